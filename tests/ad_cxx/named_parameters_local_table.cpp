// Fit parameters kept as a std::vector of {std::string name; double value;} records,
// filled with push_back from a local table of names (`const char* names[] = {...}`, which
// the compiler copies from a constant array of string literals), then read back by
// position and by name -- the way small fitting and configuration codes keep their
// coefficients. Two of the names are longer than std::string's inline buffer (their
// characters live in heap blocks the library allocates). The objective is a sum of
// squares of a damped oscillation's residuals; its gradient (reverse mode) and its
// directional derivatives (forward mode, one direction per parameter) are checked against
// central differences. A second objective keeps the same table as
// std::pair<std::string, double> entries built in place (emplace_back(name, value)),
// in forward mode. Before: reverse mode did not finish compiling at -O1..-O3 (type
// analysis extended a 40-byte record walk by one record per fixed-point step), and
// forward mode on the second objective copied the characters of a name from the null
// shadow of the local table (SIGSEGV at -O1..-O3).
#include <utility>
#include <string>
#include <vector>
#include "check.hpp"

struct Parameter {
  std::string name;
  double value;
};

static double find(const std::vector<Parameter>& params, const char* name) {
  for (const auto& p : params)
    if (p.name == name) return p.value;
  return 0.0;
}

double residual_norm(const double* theta, const double* t, const double* y, int n,
                     int nparams) {
  const char* names[] = {"amplitude_of_first_peak", "decay", "frequency_in_hertz_units"};
  std::vector<Parameter> params;
  for (int k = 0; k < nparams; ++k) params.push_back({names[k], theta[k]});
  double ridge = 0.0;
  for (const auto& p : params) ridge += p.value * p.value;
  const double a = find(params, "amplitude_of_first_peak");
  const double d = find(params, "decay");
  const double w = find(params, "frequency_in_hertz_units");
  double s = 1e-3 * ridge;
  for (int i = 0; i < n; ++i) {
    const double r = a * std::exp(-d * t[i]) * std::cos(w * t[i]) - y[i];
    s += r * r;
  }
  return s;
}

double cubic_penalty(const double* theta, int nparams) {
  const char* names[] = {"amplitude_of_first_peak", "decay", "frequency_in_hertz_units"};
  std::vector<std::pair<std::string, double>> entries;
  for (int k = 0; k < nparams; ++k) entries.emplace_back(names[k], theta[k]);
  double s = 0.0;
  for (const auto& [name, value] : entries) s += value * value * value / name.size();
  return s;
}

int main() {
  const int n = 16, np = 3;
  double t[n], y[n];
  for (int i = 0; i < n; ++i) {
    t[i] = 0.2 * i;
    y[i] = 1.1 * std::exp(-0.3 * t[i]) * std::cos(1.7 * t[i]) + 0.02 * ((i % 4) - 1.5);
  }
  double theta[np] = {1.0, 0.4, 1.5}, dtheta[np] = {0}, fd[np];
  for (int k = 0; k < np; ++k) {
    const double h = 1e-6, keep = theta[k];
    theta[k] = keep + h;
    const double up = residual_norm(theta, t, y, n, np);
    theta[k] = keep - h;
    const double down = residual_norm(theta, t, y, n, np);
    theta[k] = keep;
    fd[k] = (up - down) / (2 * h);
  }
  __enzyme_autodiff((void*)residual_norm, enzyme_dup, theta, dtheta, enzyme_const, t,
                    enzyme_const, y, enzyme_const, n, enzyme_const, np);
  for (int k = 0; k < np; ++k) check("d norm / d theta", dtheta[k], fd[k], 1e-6);
  for (int k = 0; k < np; ++k) {
    double dir[np] = {0.0, 0.0, 0.0};
    dir[k] = 1.0;
    const double tan = __enzyme_fwddiff((void*)residual_norm, enzyme_dup, theta, dir,
                                        enzyme_const, t, enzyme_const, y, enzyme_const, n,
                                        enzyme_const, np);
    check("forward d norm / d theta", tan, fd[k], 1e-6);
  }
  for (int k = 0; k < np; ++k) {
    double dir[np] = {0.0, 0.0, 0.0};
    dir[k] = 1.0;
    const double tan = __enzyme_fwddiff((void*)cubic_penalty, enzyme_dup, theta, dir,
                                        enzyme_const, np);
    const double h = 1e-6, keep = theta[k];
    theta[k] = keep + h;
    const double up = cubic_penalty(theta, np);
    theta[k] = keep - h;
    const double down = cubic_penalty(theta, np);
    theta[k] = keep;
    check("forward d penalty / d theta", tan, (up - down) / (2 * h), 1e-6);
  }
  std::printf("OK\n");
  return 0;
}
