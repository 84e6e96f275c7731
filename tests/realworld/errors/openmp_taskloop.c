// EXPECT-ERROR: but not a task
// FLAGS: -fopenmp
// A loss whose loop is an OpenMP taskloop reduction: its chunks are tasks the runtime
// runs whenever it decides, which irgrad does not run serially inside a derivative
// (parallel loops it does); it says so at the pragma's line and names the construct.
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

double energy(const double *x, int n) {
  double s = 0.0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop reduction(+ : s) // ERROR-LINE
  for (int i = 0; i < n; i++) s += sin(x[i]) * x[i];
  return s;
}

int main(void) {
  double x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dx[8] = {0};
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, 8);
  printf("%g\n", dx[0]);
  return 0;
}
