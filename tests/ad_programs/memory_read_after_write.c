// Values stored to memory and read back later (read-after-write through a local buffer).
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

__attribute__((noinline)) void fill(double *buf, double x, int n) {
  for (int i = 0; i < n; i++) buf[i] = x * (i + 1);
}

double store_then_load(double x) {
  double buf[8];
  fill(buf, x, 8);
  buf[3] = buf[3] * buf[5];  // read-after-write, then overwrite
  double s = 0.0;
  for (int i = 0; i < 8; i++) s += buf[i];
  return s;
}

int main(void) {
  double x = 0.7;
  // s = x * (1+2+3+5+6+7+8) + (4x)(6x) = 32 x + 24 x^2
  APPROX_EQ(__enzyme_autodiff((void *)store_then_load, x), 32.0 + 48.0 * x, 1e-12);
  printf("OK\n");
  return 0;
}
