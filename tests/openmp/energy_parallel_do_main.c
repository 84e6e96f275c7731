#include <stdio.h>
#include <math.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double energy(const double *x, int n);
int main(void) {
  double x[50], dx[50] = {0}; int bad = 0;
  for (int i = 0; i < 50; i++) x[i] = 0.1 * i;
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, 50);
  for (int i = 0; i < 50; i++) { double g = cos(x[i]) * x[i] * x[i] + 2 * sin(x[i]) * x[i]; if (fabs(g - dx[i]) > 1e-10) bad = 1; }
  printf(bad ? "WRONG\n" : "OK\n"); return bad;
}
