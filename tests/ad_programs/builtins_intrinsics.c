// LLVM intrinsics through clang builtins: fma fmax fmin copysign powi sqrt fabs floor exp log.
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

double builtin_mix(const double *x) {
  double a = __builtin_fma(x[0], x[1], x[2]);     // llvm.fma
  double b = __builtin_fmax(x[0], x[1]);          // llvm.maxnum
  double c = __builtin_fmin(x[1], x[2]);          // llvm.minnum
  double d = __builtin_copysign(x[3], x[1]);      // llvm.copysign
  double e = __builtin_powi(x[3], 3);             // llvm.powi
  double f = __builtin_sqrt(x[2]) + __builtin_fabs(x[1]) + __builtin_floor(x[3]);
  return a + b * c + d + e + f;
}

int main(void) {
  double x[4] = {0.5, -1.5, 2.0, 1.25}, dx[4] = {0};
  __enzyme_autodiff((void *)builtin_mix, enzyme_dup, x, dx);
  // b = max(0.5, -1.5) = x0, c = min(-1.5, 2) = x1, d = -|x3| (x1 < 0)
  APPROX_EQ(dx[0], x[1] + x[1], 1e-12);                 // fma + b*c
  APPROX_EQ(dx[1], x[0] + x[0] - 1.0, 1e-12);           // fma + b*c + fabs
  APPROX_EQ(dx[2], 1.0 + 0.5 / sqrt(x[2]), 1e-12);      // fma + sqrt
  APPROX_EQ(dx[3], -1.0 + 3.0 * x[3] * x[3], 1e-12);    // copysign + powi (+ floor: 0)
  printf("OK\n");
  return 0;
}
