// A function with throw/try/catch: the derivative follows the normal path (no exception
// is thrown here; a thrown exception through a derivative is undefined, as in Enzyme).
#include <stdexcept>
#include <vector>
#include "check.hpp"

static double checked_log(double v) {
  if (v <= 0) throw std::domain_error("log of a non-positive number");
  return std::log(v);
}

double safe_entropy(const double* p, int n) {
  std::vector<double> terms;
  for (int i = 0; i < n; ++i) {
    try {
      terms.push_back(-p[i] * checked_log(p[i]));
    } catch (const std::domain_error&) {
      terms.push_back(0.0);
    }
  }
  double s = 0;
  for (double t : terms) s += t;
  return s;
}

int main() {
  double p[3] = {0.2, 0.5, 0.3}, dp[3] = {0, 0, 0};
  __enzyme_autodiff((void*)safe_entropy, enzyme_dup, p, dp, enzyme_const, 3);
  for (int i = 0; i < 3; ++i) check("d/dp", dp[i], -std::log(p[i]) - 1.0);
  std::puts("OK");
}
