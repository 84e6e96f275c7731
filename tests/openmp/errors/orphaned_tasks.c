/* Tasks outside any parallel region (the caller decides where it runs): irgrad does not
   differentiate them and stops at the task (the derivative used to be silently 0). */
// EXPECT-ERROR: but not a task
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

static double product_tree(const double *x, int n) {
  if (n == 1) return x[0];
  double a, b;
#pragma omp task shared(a)
  a = product_tree(x, n / 2);
#pragma omp task shared(b)
  b = product_tree(x + n / 2, n - n / 2);
#pragma omp taskwait
  return a * b;
}

double product(const double *x, int n) {
  double r = product_tree(x, n);
  return r;
}

int main(void) {
  double x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dx[8] = {0};
  __enzyme_autodiff((void *)product, enzyme_dup, x, dx, enzyme_const, 8);
  printf("%g\n", dx[0]);
  return 0;
}
