// main owns std::vector inputs and shadows, so clang calls __enzyme_autodiff with
// `invoke`; the function takes a const std::vector<double>& (shadow: a vector of the
// same size). Checked against central finite differences computed here.
#include <vector>
#include "check.hpp"

double smooth(const std::vector<double>& x) {
  std::vector<double> tmp(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    tmp[i] = std::exp(0.3 * x[i]) * (i + 1);
  double s = 0;
  for (std::size_t i = 1; i < tmp.size(); ++i) s += tmp[i] * tmp[i - 1];
  return s;
}

int main() {
  std::vector<double> x{0.1, -0.4, 0.9, 1.3, -0.2, 0.6};
  std::vector<double> dx(x.size(), 0.0);
  __enzyme_autodiff((void*)smooth, enzyme_dup, &x, &dx);
  const double h = 1e-6;
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::vector<double> p = x, m = x;
    p[i] += h;
    m[i] -= h;
    check("finite difference", dx[i], (smooth(p) - smooth(m)) / (2 * h), 1e-6);
  }
  std::puts("OK");
}
