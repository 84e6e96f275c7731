// A stepper object holding work vectors, passed by value (copied) into the integrator the
// way Boost.Odeint passes its steppers. One work vector is only sized when a variant of
// do_step that this program never calls needs it, so its elements are never read or
// written: at -O0 nothing says what its copy constructor's memmove moves. The copy is
// inside the differentiated function; reverse and forward mode against central differences.
#include <vector>

#include "check.hpp"

struct euler_stepper {
  std::vector<double> dxdt;     // used by do_step below
  std::vector<double> lazy_tmp; // sized only by do_step_with_error (never called here)
  std::vector<int> counts;      // integers: inactive

  explicit euler_stepper(std::size_t n) : dxdt(n), counts(1, 0) {}

  template <class System>
  void do_step(System& sys, std::vector<double>& x, double dt) {
    sys(x, dxdt);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += dt * dxdt[i];
    counts[0] += 1;
  }

  template <class System>
  double do_step_with_error(System& sys, std::vector<double>& x, double dt) {
    lazy_tmp.resize(x.size());
    sys(x, lazy_tmp);
    double err = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) err += lazy_tmp[i] * dt;
    return err;
  }
};

struct decay {
  double k;
  void operator()(const std::vector<double>& x, std::vector<double>& dxdt) const {
    for (std::size_t i = 0; i < x.size(); ++i) dxdt[i] = -k * x[i] * (1.0 + 0.1 * x[i]);
  }
};

template <class Stepper>
__attribute__((noinline)) void integrate(Stepper stepper, decay sys, std::vector<double>& x,
                                         int steps, double dt) {
  for (int s = 0; s < steps; ++s) stepper.do_step(sys, x, dt);
}

double final_energy(const double* p) {
  std::vector<double> x{1.0, 0.5, 0.25};
  euler_stepper stepper(x.size());
  integrate(stepper, decay{p[0]}, x, 20, 0.05);
  return x[0] * x[0] + 2.0 * x[1] * x[1] + 3.0 * x[2] * x[2];
}

int main() {
  double p[1] = {0.7}, dp[1] = {0.0};
  __enzyme_autodiff((void*)final_energy, enzyme_dup, p, dp);
  double h = 1e-6, q[1] = {p[0] + h}, r[1] = {p[0] - h};
  check("reverse vs central difference", dp[0], (final_energy(q) - final_energy(r)) / (2 * h),
        1e-6);
  double t[1] = {1.0};
  check("forward vs reverse", __enzyme_fwddiff((void*)final_energy, enzyme_dup, p, t), dp[0]);
  std::printf("OK\n");
  return 0;
}
