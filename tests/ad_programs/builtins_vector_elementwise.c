// Vector intrinsics (llvm.sin.v4f64 ...) from clang's elementwise builtins on ext_vector_type.
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
void __enzyme_autodiff(void *, ...);

typedef double double4 __attribute__((ext_vector_type(4)));

double vec_energy(const double4 *x, const double4 *y) {
  double4 s = __builtin_elementwise_sin(*x) * __builtin_elementwise_sqrt(*y) +
              __builtin_elementwise_exp(*x) + __builtin_elementwise_max(*x, *y);
  return s[0] + s[1] + s[2] + s[3];
}

int main(void) {
  double4 x = {0.1, 0.9, -0.4, 1.6}, y = {0.5, 0.2, 1.1, 1.2};
  double4 dx = {0, 0, 0, 0}, dy = {0, 0, 0, 0};
  __enzyme_autodiff((void *)vec_energy, enzyme_dup, &x, &dx, enzyme_dup, &y, &dy);
  for (int i = 0; i < 4; i++) {
    double xi = x[i], yi = y[i];
    double mx = xi >= yi ? 1.0 : 0.0;
    APPROX_EQ(dx[i], cos(xi) * sqrt(yi) + exp(xi) + mx, 1e-12);
    APPROX_EQ(dy[i], sin(xi) * 0.5 / sqrt(yi) + (1.0 - mx), 1e-12);
  }
  printf("OK\n");
  return 0;
}
