// std::array: range-for, operator[], size(); active scalar (enzyme_out) and dup pointer.
#include <array>
#include "check.hpp"

double weighted(double t, const double* w) {
  std::array<double, 4> a{};
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = w[i] * std::pow(t, double(i));
  double s = 0;
  for (double v : a) s += v;
  return s * t;
}

int main() {
  double w[4] = {1.0, -2.0, 0.5, 3.0}, dw[4] = {0, 0, 0, 0};
  double t = 1.5;
  double dt = __enzyme_autodiff((void*)weighted, enzyme_out, t, enzyme_dup, w, dw);
  // f = sum_i w_i t^(i+1): df/dt = sum (i+1) w_i t^i, df/dw_i = t^(i+1)
  double want = 0;
  for (int i = 0; i < 4; ++i) want += (i + 1) * w[i] * std::pow(t, i);
  check("d/dt", dt, want);
  for (int i = 0; i < 4; ++i) check("d/dw", dw[i], std::pow(t, i + 1));
  std::puts("OK");
}
