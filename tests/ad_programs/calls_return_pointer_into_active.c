// Out-of-line callees returning pointers into active memory (shadow return values): the
// derivative reads and writes through the returned pointer, so the callee's augmented
// primal returns the pointer's shadow too. Reverse and forward mode.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double *pick(double *x, int i) { return x + i; }
// the larger of two entries, by address (a select of two shadowed pointers)
__attribute__((noinline)) double *larger(double *a, double *b) { return *a > *b ? a : b; }

double f(double *x) {
  double *p = pick(x, 1);
  double *q = larger(x, x + 2);
  *q = *q * *p;  // written through a returned pointer
  return p[0] * p[0] + *q;
}

int main(void) {
  double x[3] = {1.0, 3.0, 2.0}, dx[3] = {0, 0, 0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  // q = x + 2 (2 > 1): f = x1^2 + x2 x1, df = (0, 2 x1 + x2, x1)
  APPROX_EQ(dx[0], 0.0, 1e-12);
  APPROX_EQ(dx[1], 2 * 3.0 + 2.0, 1e-12);
  APPROX_EQ(dx[2], 3.0, 1e-12);
  double y[3] = {1.0, 3.0, 2.0}, t[3] = {0.5, -1.0, 2.0};
  double tan = __enzyme_fwddiff((void *)f, enzyme_dup, y, t);
  APPROX_EQ(tan, 0.5 * 0.0 - 1.0 * 8.0 + 2.0 * 3.0, 1e-12);
  printf("OK\n");
  return 0;
}
