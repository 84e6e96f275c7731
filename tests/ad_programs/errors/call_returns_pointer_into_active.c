// EXPECT-ERROR: shadow return values are not supported yet
// A callee returning a pointer into active memory: the loads through it would need the
// shadow of the result; irgrad says so instead of returning a zero derivative.
#include <stdio.h>
void __enzyme_autodiff(void *, ...);
__attribute__((noinline)) double *pick(double *x) { return x + 1; }
double f(double *x) {
  double *p = pick(x);
  return p[0] * p[0];
}
int main(void) {
  double x[2] = {1.0, 3.0}, dx[2] = {0, 0};
  __enzyme_autodiff((void *)f, x, dx);
  printf("%g\n", dx[1]);
  return 0;
}
