// std::vector<double>: push_back, size, operator[] (reverse mode, pointer argument).
#include <vector>
#include "check.hpp"

double norm_of(const double* x, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(x[i] * x[i]);
  double s = 0;
  for (size_t i = 0; i < v.size(); ++i) s += v[i];
  return std::sqrt(s);
}

int main() {
  double x[5] = {1.0, 2.0, 2.0, -4.0, 0.5}, dx[5] = {0, 0, 0, 0, 0};
  __enzyme_autodiff((void*)norm_of, enzyme_dup, x, dx, enzyme_const, 5);
  double r = norm_of(x, 5);
  for (int i = 0; i < 5; ++i) check("d norm / dx", dx[i], x[i] / r);
  std::puts("OK");
}
