/* A dynamic schedule hands out chunks at run time: irgrad does not run it serially inside
   a derivative, and says so at the loop instead of differentiating something else. */
// EXPECT-ERROR: but not a dynamic, guided or runtime schedule
#include <math.h>
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

double sum_sines(const double *x, int n) {
  double s = 0.0;
#pragma omp parallel for reduction(+ : s) schedule(dynamic, 4)
  for (int i = 0; i < n; i++) s += sin(x[i]);
  return s;
}

int main(void) {
  double x[16] = {0}, dx[16] = {0};
  __enzyme_autodiff((void *)sum_sines, enzyme_dup, x, dx, enzyme_const, 16);
  printf("%g\n", dx[0]);
  return 0;
}
