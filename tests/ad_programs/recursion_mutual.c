// Mutual recursion (even/odd steps) passing an active scalar.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)
double __enzyme_autodiff(void *, ...);

double odd_step(double x, int n);

__attribute__((noinline)) double even_step(double x, int n) {
  if (n <= 0) return x;
  return odd_step(x * x * 0.5, n - 1);
}

__attribute__((noinline)) double odd_step(double x, int n) {
  if (n <= 0) return x;
  return even_step(sin(x) + x, n - 1);
}

double start(double x, int n) { return even_step(x, n); }

int main(void) {
  double x = 0.9;
  for (int n = 0; n < 6; n++) {
    // forward chain rule
    double v = x, d = 1.0;
    for (int k = 0; k < n; k++) {
      if (k % 2 == 0) {
        d *= v;
        v = v * v * 0.5;
      } else {
        d *= cos(v) + 1.0;
        v = sin(v) + v;
      }
    }
    APPROX_EQ(__enzyme_autodiff((void *)start, x, n), d, 1e-12);
  }
  printf("OK\n");
  return 0;
}
