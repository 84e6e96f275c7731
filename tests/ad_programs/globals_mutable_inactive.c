// Mutable globals: a call counter and a tunable parameter read and written as inactive data.
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

int call_count = 0;
double stiffness = 2.0;
int history[16];

double spring(double x) {
  history[call_count % 16] = (int)(x * 100.0);  // integer bookkeeping, inactive
  call_count++;
  return 0.5 * stiffness * x * x;
}

int main(void) {
  double x = 0.4;
  APPROX_EQ(__enzyme_autodiff((void *)spring, x), stiffness * x, 1e-15);
  stiffness = 3.5;
  APPROX_EQ(__enzyme_autodiff((void *)spring, x), 3.5 * x, 1e-15);
  if (call_count < 2) abort();  // the primal side effects happened
  if (history[0] != 40) abort();
  printf("OK\n");
  return 0;
}
