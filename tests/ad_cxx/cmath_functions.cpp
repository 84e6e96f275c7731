// <cmath> in namespace std: sqrt, exp, log, sin, cos, pow, tanh, hypot.
#include <cmath>
#include "check.hpp"

double mix(double x, double y) {
  return std::sqrt(x) * std::exp(y) + std::log(x * y) + std::sin(x) * std::cos(y) +
         std::pow(x, 3.0) + std::tanh(y) + std::hypot(x, y);
}

int main() {
  double x = 1.3, y = 0.4;
  double dx = __enzyme_autodiff((void*)mix, enzyme_out, x, enzyme_const, y);
  double want_x = 0.5 / std::sqrt(x) * std::exp(y) + 1.0 / x + std::cos(x) * std::cos(y) +
                  3 * x * x + x / std::hypot(x, y);
  check("d/dx", dx, want_x);
  double dy = __enzyme_autodiff((void*)mix, enzyme_const, x, enzyme_out, y);
  double th = std::tanh(y);
  double want_y = std::sqrt(x) * std::exp(y) + 1.0 / y - std::sin(x) * std::sin(y) +
                  (1 - th * th) + y / std::hypot(x, y);
  check("d/dy", dy, want_y);
  std::puts("OK");
}
