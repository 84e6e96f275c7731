/* An ordered region runs its iterations' ordered parts in sequence across threads:
   irgrad does not run it serially inside derivatives and says so at the loop. */
// EXPECT-ERROR: but not an ordered region
#include <math.h>
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

double running_sum(const double *x, double *out, int n) {
  double s = 0.0;
#pragma omp parallel for ordered schedule(static, 1)
  for (int i = 0; i < n; i++) {
    double v = sin(x[i]);
#pragma omp ordered
    {
      s += v;
      out[i] = s;
    }
  }
  return s;
}

int main(void) {
  double x[16] = {0}, dx[16] = {0}, out[16], dout[16] = {0};
  __enzyme_autodiff((void *)running_sum, enzyme_dup, x, dx, enzyme_dup, out, dout,
                    enzyme_const, 16);
  printf("%g\n", dx[0]);
  return 0;
}
