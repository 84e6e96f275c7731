// Nested AD wherever the inner call sits: __enzyme_autodiff / __enzyme_fwddiff inside
// static functions, called several levels below the function that is differentiated
// again. Second derivatives in all four combinations (reverse over reverse, forward over
// reverse, reverse over forward, forward over forward), and a Hessian-vector product of
// a gradient computed through memory.
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// f = x^2 y + sin(xy): f_x = 2xy + y cos(xy), f_xx = 2y - y^2 sin(xy)
static double f(double x, double y) { return x * x * y + sin(x * y); }
static double f_x(double x, double y) { return __enzyme_autodiff((void *)f, x, enzyme_const, y); }
static double f_x_fwd(double x, double y) {
  return __enzyme_fwddiff((void *)f, x, 1.0, enzyme_const, y);
}
static double scaled(double x, double y) { return 3.0 * f_x(x, y); }       // one level
static double deeper(double x, double y) { return scaled(x, y) - 1.0; }    // two levels

double fxx_rr(double x, double y) { return __enzyme_autodiff((void *)deeper, x, enzyme_const, y); }
double fxx_fr(double x, double y) {
  return __enzyme_fwddiff((void *)deeper, x, 1.0, enzyme_const, y);
}
double fxx_ff(double x, double y) {
  return __enzyme_fwddiff((void *)f_x_fwd, x, 1.0, enzyme_const, y);
}
double fxx_rf(double x, double y) {
  return __enzyme_autodiff((void *)f_x_fwd, x, enzyme_const, y);
}

// sum x_i^3: the gradient 3 x^2 written into g by a static helper; differentiating
// sum g_i^2 = 9 sum x_i^4 gives 36 x^3
static double cubes(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i] * x[i];
  return s;
}
static void grad_cubes(const double *x, double *g, int n) {
  for (int i = 0; i < n; i++) g[i] = 0;
  __enzyme_autodiff((void *)cubes, enzyme_dup, x, g, enzyme_const, n);
}
static double gradient_norm(const double *x, int n) {
  double g[8];
  grad_cubes(x, g, n);
  double s = 0;
  for (int i = 0; i < n; i++) s += g[i] * g[i];
  return s;
}

int main(void) {
  const double x = 0.7, y = 1.3;
  const double fxx = 2 * y - y * y * sin(x * y);
  CHECK(fxx_rr(x, y), 3 * fxx, 1e-12);
  CHECK(fxx_fr(x, y), 3 * fxx, 1e-12);
  CHECK(fxx_ff(x, y), fxx, 1e-12);
  CHECK(fxx_rf(x, y), fxx, 1e-12);
  double xs[4] = {0.5, -1.0, 2.0, 1.5}, dxs[4] = {0}, vs[4] = {1, 2, 3, 4};
  __enzyme_autodiff((void *)gradient_norm, enzyme_dup, xs, dxs, enzyme_const, 4);
  double hv = __enzyme_fwddiff((void *)gradient_norm, enzyme_dup, xs, vs, enzyme_const, 4);
  double want = 0;
  for (int i = 0; i < 4; i++) {
    CHECK(dxs[i], 36 * xs[i] * xs[i] * xs[i], 1e-12);
    want += 36 * xs[i] * xs[i] * xs[i] * vs[i];
  }
  CHECK(hv, want, 1e-12);
  printf("OK\n");
  return 0;
}
