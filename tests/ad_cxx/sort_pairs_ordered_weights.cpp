// An ordered weighted average (an L-statistic, the way robust-statistics code writes it):
// residuals paired with their index in a std::vector<std::pair<double, int>>, ordered by
// std::sort, weighted by rank and by the original position. At -O0 nothing (no TBAA)
// says what the pair's int member is; it is moved as i32 through the sort's insertion
// loop, and no float of that width exists in the program. Reverse and forward mode
// against central differences.
#include <algorithm>
#include <utility>
#include <vector>
#include "check.hpp"

double ordered_weighted_loss(const double* theta, const double* t, const double* y, int n) {
  std::vector<std::pair<double, int>> r;
  r.reserve(n);
  for (int i = 0; i < n; ++i) {
    double e = theta[0] + theta[1] * t[i] - y[i];
    r.emplace_back(e * e, i);
  }
  std::sort(r.begin(), r.end());
  double loss = 0.0;
  for (int k = 0; k < n; ++k) {
    double rank_weight = (k < n - 2) ? 1.0 : 0.25;  // down-weight the two largest
    loss += rank_weight * r[k].first * (1.0 + 0.05 * r[k].second);
  }
  return loss / n;
}

int main() {
  const int n = 9;
  double t[n], y[n];
  for (int i = 0; i < n; ++i) {
    t[i] = 0.5 * i;
    y[i] = 1.0 + 0.8 * t[i] + ((i % 3) - 1) * 0.3 + (i == 4 ? 3.0 : 0.0);
  }
  double theta[2] = {0.7, 1.1}, dtheta[2] = {0, 0};
  __enzyme_autodiff((void*)ordered_weighted_loss, enzyme_dup, theta, dtheta, enzyme_const, t,
                    enzyme_const, y, enzyme_const, n);
  double fd[2];
  for (int k = 0; k < 2; ++k) {
    const double h = 1e-6, keep = theta[k];
    theta[k] = keep + h;
    double up = ordered_weighted_loss(theta, t, y, n);
    theta[k] = keep - h;
    double down = ordered_weighted_loss(theta, t, y, n);
    theta[k] = keep;
    fd[k] = (up - down) / (2 * h);
    check("d loss / d theta", dtheta[k], fd[k], 1e-6);
  }
  double dir[2] = {0.3, -1.0};
  double tangent = __enzyme_fwddiff((void*)ordered_weighted_loss, enzyme_dup, theta, dir,
                                    enzyme_const, t, enzyme_const, y, enzyme_const, n);
  check("forward tangent", tangent, fd[0] * dir[0] + fd[1] * dir[1], 1e-6);
  std::printf("OK\n");
  return 0;
}
