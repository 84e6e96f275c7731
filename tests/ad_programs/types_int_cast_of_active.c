// Integer casts of active values (index computation, truncation): no derivative flows through them.
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

static const double table[10] = {0.0, 1.0, 4.0, 9.0, 16.0, 25.0, 36.0, 49.0, 64.0, 81.0};

double lookup_mix(double x) {
  int idx = (int)(x * 3.0);           // fptosi of an active value: used as an index
  long whole = (long)x;                // truncation
  double frac = x - (double)whole;     // sitofp result is constant
  return table[idx] * x + frac * frac + (double)(int)(x * x);
}

int main(void) {
  double xs[] = {0.5, 1.3, 2.7};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    int idx = (int)(x * 3.0);
    double frac = x - (double)(long)x;
    APPROX_EQ(__enzyme_autodiff((void *)lookup_mix, x), table[idx] + 2.0 * frac, 1e-12);
  }
  printf("OK\n");
  return 0;
}
