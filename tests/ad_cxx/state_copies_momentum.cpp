// Gradient descent with optional momentum that keeps the best iterate seen so far, written
// the way optimizer codes carry their state: a struct of std::vector<double> members
// copied whole (copy construction, operator=), with std::copy, and a path of accepted
// iterates grown with insert of a run-time range. The momentum buffer is sized by a
// run-time option that is off here, so it is only ever copied (a run-time-length memmove
// of an empty std::vector<double>). Reverse mode against central differences and against
// forward mode.
#include <algorithm>
#include <vector>

#include "check.hpp"

static std::size_t momentum_slots = 0;  // an option of the optimizer (momentum off)

struct Iterate {
  std::vector<double> x;
  std::vector<double> velocity;  // the momentum, when it is on
  std::vector<double> grad;
  double value = 0.0;
};

class Objective {
 public:
  Objective(const double* p, std::size_t n) : p_(p), n_(n) {}

  double value(const std::vector<double>& x) const {
    double e = 0.0;
    for (std::size_t i = 0; i < n_; ++i) {
      double d = x[i] - p_[i];
      e += 0.5 * (1.0 + i) * d * d + 0.1 * std::sin(x[i]) * p_[(i + 1) % n_];
    }
    return e;
  }

  void gradient(const std::vector<double>& x, std::vector<double>& g) const {
    g.assign(n_, 0.0);
    for (std::size_t i = 0; i < n_; ++i)
      g[i] = (1.0 + i) * (x[i] - p_[i]) + 0.1 * std::cos(x[i]) * p_[(i + 1) % n_];
  }

 private:
  const double* p_;
  std::size_t n_;
};

double descend(const double* p, std::size_t n) {
  Objective f(p, n);
  Iterate cur;
  cur.x.assign(p, p + n);  // start at the parameters, scaled
  for (double& v : cur.x) v *= 0.5;
  cur.velocity.resize(momentum_slots);
  f.gradient(cur.x, cur.grad);
  cur.value = f.value(cur.x);
  Iterate best = cur;
  std::vector<double> path(cur.x.begin(), cur.x.end());
  for (int it = 0; it < 12; ++it) {
    Iterate trial;
    trial.x.resize(n);
    std::copy(cur.x.begin(), cur.x.end(), trial.x.begin());
    trial.velocity = cur.velocity;
    trial.grad = cur.grad;
    for (std::size_t i = 0; i < n; ++i) trial.x[i] -= 0.15 * trial.grad[i];
    f.gradient(trial.x, trial.grad);
    trial.value = f.value(trial.x);
    if (trial.value < best.value) {
      best = trial;
      path.insert(path.end(), trial.x.begin(), trial.x.end());
    }
    cur = trial;
  }
  double s = best.value;
  for (std::size_t k = 0; k < path.size(); ++k) s += 0.01 * path[k] * (1.0 + k % n);
  return s;
}

int main() {
  const std::size_t n = 4;
  double p[n] = {0.8, -0.3, 1.2, 0.5}, dp[n] = {0.0, 0.0, 0.0, 0.0};
  __enzyme_autodiff((void*)descend, enzyme_dup, p, dp, enzyme_const, n);
  for (std::size_t k = 0; k < n; ++k) {
    const double h = 1e-6;
    double q[n] = {p[0], p[1], p[2], p[3]};
    q[k] = p[k] + h;
    double fp = descend(q, n);
    q[k] = p[k] - h;
    double fm = descend(q, n);
    check("reverse vs central differences", dp[k], (fp - fm) / (2.0 * h), 1e-6);
    double t[n] = {0.0, 0.0, 0.0, 0.0};
    t[k] = 1.0;
    check("forward vs reverse", __enzyme_fwddiff((void*)descend, enzyme_dup, p, t,
                                                 enzyme_const, n), dp[k], 1e-10);
  }
  std::printf("OK\n");
  return 0;
}
