// Values whose derivative is not needed must not poison the gradient: an out-of-line
// read-only call whose result is unused overflows to inf; unused math calls sit at
// their poles (log(0), sqrt(0), pow(0, y)); a select keeps only the finite arm; a
// zero adjoint meets an infinite partial. Every derivative must be finite and right.
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
double __enzyme_fwddiff(void *, ...);
typedef struct { double dx, dy; } Grad2;
Grad2 __enzyme_autodiff2(void *, ...) __asm__("__enzyme_autodiff");

__attribute__((noinline)) double power_series(double x, int terms) {
  double p = 1.0, s = 0.0;
  for (int i = 0; i < terms; i++) {
    p *= x;  // x = 10: overflows to inf
    s += p;
  }
  return s;
}

__attribute__((noinline)) double norm_of(const double *v, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += v[i] * v[i];
  return sqrt(s);  // sqrt(0): an infinite partial
}

double model(double x, double y) {
  power_series(x, 400);         // result unused: no derivative needed
  double unused_log = log(y - 2.0);  // log(0) at y = 2
  double unused_root = sqrt(y - 2.0);
  double unused_pow = pow(y - 2.0, 0.5);
  (void)unused_log;
  (void)unused_root;
  (void)unused_pow;
  double safe = y > 2.0 ? log(y - 2.0) : 0.0;          // the log arm is not taken
  double ratio = x != 0.0 ? y / x : y;                 // the division arm is not taken
  return x * y + safe + 0.0 * sqrt(y - 2.0) + ratio;  // 0 * inf in the adjoint
}

double with_zero_vector(const double *v, double x) {
  double n = norm_of(v, 3);  // v = 0: d norm / dv = v / 0
  return x * x + 0.0 * n;
}

int main(void) {
  // at (10, 2): f = x y + 0 + 0 * 0 + y / x
  double x = 10.0, y = 2.0;
  Grad2 g = __enzyme_autodiff2((void *)model, x, y);
  APPROX_EQ(g.dx, y - y / (x * x), 1e-12);
  APPROX_EQ(g.dy, x + 1.0 / x, 1e-12);
  APPROX_EQ(__enzyme_fwddiff((void *)model, x, 1.0, y, 0.0), g.dx, 1e-12);
  APPROX_EQ(__enzyme_fwddiff((void *)model, x, 0.0, y, 1.0), g.dy, 1e-12);
  // at x = 0 the other arm of the division is taken: f = 0 * y + y
  g = __enzyme_autodiff2((void *)model, 0.0, y);
  APPROX_EQ(g.dx, y, 1e-12);
  APPROX_EQ(g.dy, 1.0, 1e-12);

  double v[3] = {0.0, 0.0, 0.0}, dv[3] = {0.0, 0.0, 0.0};
  double dx = __enzyme_autodiff((void *)with_zero_vector, v, dv, 1.5);
  APPROX_EQ(dx, 3.0, 1e-12);
  for (int i = 0; i < 3; i++) APPROX_EQ(dv[i], 0.0, 0.0);
  double tv[3] = {1.0, 0.0, 0.0};
  APPROX_EQ(__enzyme_fwddiff((void *)with_zero_vector, enzyme_dup, v, tv, 1.5, 0.0), 0.0,
            0.0);
  printf("OK\n");
  return 0;
}
