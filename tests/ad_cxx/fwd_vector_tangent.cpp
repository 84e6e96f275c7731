// Forward mode (__enzyme_fwddiff) through std::vector code: the directional derivative
// equals the dot product of the (analytic) gradient with the tangent.
#include <vector>
#include "check.hpp"

double logsumexp(const double* x, int n) {
  std::vector<double> e;
  e.reserve(n);
  double m = x[0];
  for (int i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;
  for (int i = 0; i < n; ++i) e.push_back(std::exp(x[i] - m));
  double s = 0;
  for (double v : e) s += v;
  return m + std::log(s);
}

int main() {
  double x[4] = {0.3, 1.2, -0.7, 0.9}, t[4] = {1.0, -0.5, 2.0, 0.25};
  double d = __enzyme_fwddiff((void*)logsumexp, enzyme_dup, x, t, enzyme_const, 4);
  double m = 1.2, s = 0;
  for (double v : x) s += std::exp(v - m);
  double want = 0;
  for (int i = 0; i < 4; ++i) want += std::exp(x[i] - m) / s * t[i];
  check("jvp", d, want);
  std::puts("OK");
}
