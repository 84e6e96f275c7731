// Parameters as a std::vector of records {std::string name; double value;} filled with
// push_back and looked up by name (the way fitting and configuration code keeps its
// coefficients). Names longer than 15 characters live in heap buffers std::string
// allocates in the library (memory that is its own shadow), the others inside the
// records; the vector's end pointer is bumped through memory at each push_back, which
// type analysis treats as a walk over 40-byte records. Reverse and forward mode against
// central differences.
#include <string>
#include <vector>
#include "check.hpp"

struct Parameter {
  std::string name;
  double value;
};

static double lookup(const std::vector<Parameter>& params, const std::string& name) {
  for (const auto& p : params)
    if (p.name == name) return p.value;
  return 0.0;
}

double peak_model_loss(const double* theta, const double* t, const double* y, int n) {
  static const char* names[] = {"amplitude_of_first_peak", "decay",
                                "frequency_in_hertz_units", "phase"};
  std::vector<Parameter> params;
  for (int k = 0; k < 4; ++k) params.push_back({names[k], theta[k]});
  const double a = lookup(params, "amplitude_of_first_peak");
  const double d = lookup(params, "decay");
  const double w = lookup(params, "frequency_in_hertz_units");
  const double ph = lookup(params, "phase");
  double loss = 0.0;
  for (int i = 0; i < n; ++i) {
    double model = a * std::exp(-d * t[i]) * std::sin(w * t[i] + ph);
    loss += (model - y[i]) * (model - y[i]);
  }
  for (const auto& p : params)
    if (p.name.size() > 10) loss += 0.01 * p.value * p.value;  // ridge on the long ones
  return loss;
}

int main() {
  const int n = 20;
  double t[n], y[n];
  for (int i = 0; i < n; ++i) {
    t[i] = 0.15 * i;
    y[i] = 1.3 * std::exp(-0.4 * t[i]) * std::sin(2.2 * t[i] + 0.3) + 0.01 * (i % 3);
  }
  double theta[4] = {1.0, 0.5, 2.0, 0.1}, dtheta[4] = {0};
  __enzyme_autodiff((void*)peak_model_loss, enzyme_dup, theta, dtheta, enzyme_const, t,
                    enzyme_const, y, enzyme_const, n);
  double fd[4];
  for (int k = 0; k < 4; ++k) {
    const double h = 1e-6, keep = theta[k];
    theta[k] = keep + h;
    double up = peak_model_loss(theta, t, y, n);
    theta[k] = keep - h;
    double down = peak_model_loss(theta, t, y, n);
    theta[k] = keep;
    fd[k] = (up - down) / (2 * h);
    check("d loss / d theta", dtheta[k], fd[k], 1e-6);
  }
  double dir[4] = {1.0, -0.5, 0.25, 2.0};
  double tan = __enzyme_fwddiff((void*)peak_model_loss, enzyme_dup, theta, dir, enzyme_const,
                                t, enzyme_const, y, enzyme_const, n);
  double want = 0.0;
  for (int k = 0; k < 4; ++k) want += fd[k] * dir[k];
  check("forward tangent", tan, want, 1e-6);
  std::printf("OK\n");
  return 0;
}
