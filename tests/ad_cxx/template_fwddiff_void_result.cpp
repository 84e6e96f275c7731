// Enzyme's templated C++ prototypes: `__enzyme_fwddiff<void>(...)` of a function that
// returns a double whose tangent nobody asks for (only shadow memory is wanted), and
// `__enzyme_autodiff<void>` likewise; also the value-returning instantiations.
#include <vector>

#include "check.hpp"

template <typename R, typename... Args>
R __enzyme_fwddiff(void*, Args...);
template <typename R, typename... Args>
R __enzyme_autodiff(void*, Args...);

// y = 3 x^2 elementwise, returns sum(y)
double squares(const double* x, double* y, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    y[i] = 3.0 * x[i] * x[i];
    s += y[i];
  }
  return s;
}

double cube(double x) { return x * x * x; }

int main() {
  const int n = 4;
  std::vector<double> x = {1.0, -2.0, 0.5, 3.0}, dx(n, 1.0), y(n), dy(n, 0.0);
  __enzyme_fwddiff<void>((void*)squares, enzyme_dup, x.data(), dx.data(), enzyme_dup,
                         y.data(), dy.data(), enzyme_const, n);
  for (int i = 0; i < n; ++i) check("dy", dy[i], 6.0 * x[i]);
  double ds = __enzyme_fwddiff<double>((void*)squares, enzyme_dup, x.data(), dx.data(),
                                       enzyme_dup, y.data(), dy.data(), enzyme_const, n);
  check("dsum", ds, 6.0 * (x[0] + x[1] + x[2] + x[3]));
  std::vector<double> gx(n, 0.0), gy(n, 0.0);
  __enzyme_autodiff<void>((void*)squares, enzyme_dup, x.data(), gx.data(), enzyme_dup,
                          y.data(), gy.data(), enzyme_const, n);
  for (int i = 0; i < n; ++i) check("gx", gx[i], 6.0 * x[i]);
  __enzyme_fwddiff<void>((void*)cube, 2.0, 1.0);  // result unused: nothing to return
  check("cube'", __enzyme_fwddiff<double>((void*)cube, 2.0, 1.0), 12.0);
  check("cube' rev", __enzyme_autodiff<double>((void*)cube, 2.0), 12.0);
  std::puts("OK");
}
