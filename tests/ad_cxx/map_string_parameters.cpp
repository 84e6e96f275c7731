// Model parameters kept in a std::map<std::string, double> (the way configuration-driven
// simulation code names its coefficients): built from an initializer list, read with
// at() and operator[], iterated over with structured bindings. Keys shorter than 16
// characters live inside the map node (the string's inline buffer, beside the active
// double); longer ones in a heap buffer that std::string allocates in the library. Both
// kinds are copied into nodes by char_traits::copy (a memcpy of run-time length) and
// carry no derivative. Reverse and forward mode against central differences.
#include <map>
#include <string>
#include "check.hpp"

double model_energy(const double* p, const double* obs, int n) {
  std::map<std::string, double> params{{"k", p[0]},
                                       {"damping_coefficient", p[1]},
                                       {"offset", p[2]},
                                       {"nonlinear_stiffness_term", p[3]}};
  params["scale"] = 1.0 + params.at("offset") * params.at("offset");
  double e = 0.0;
  for (int i = 0; i < n; ++i) {
    double t = 0.1 * i;
    double model = params["scale"] * std::exp(-params.at("damping_coefficient") * t) *
                   std::cos(params.at("k") * t) +
                   params.at("nonlinear_stiffness_term") * t * t;
    double r = model - obs[i];
    e += r * r;
  }
  for (const auto& [name, value] : params) e += 1e-3 * name.size() * value * value;
  return e;
}

static double energy_at(const double* p, const double* obs) { return model_energy(p, obs, 12); }

int main() {
  double p[4] = {2.0, 0.3, 0.5, -0.05}, obs[12];
  for (int i = 0; i < 12; ++i) obs[i] = std::cos(1.9 * 0.1 * i) * (1.0 - 0.02 * i);
  double dp[4] = {0};
  __enzyme_autodiff((void*)model_energy, enzyme_dup, p, dp, enzyme_const, obs,
                    enzyme_const, 12);
  double fd[4];
  for (int k = 0; k < 4; ++k) {
    const double h = 1e-6, keep = p[k];
    p[k] = keep + h;
    double up = energy_at(p, obs);
    p[k] = keep - h;
    double down = energy_at(p, obs);
    p[k] = keep;
    fd[k] = (up - down) / (2 * h);
    check("d energy / d p", dp[k], fd[k], 1e-6);
  }
  double tp[4] = {0.5, -1.0, 0.25, 2.0};
  double t = __enzyme_fwddiff((void*)model_energy, enzyme_dup, p, tp, enzyme_const, obs,
                              enzyme_const, 12);
  double want = 0.0;
  for (int k = 0; k < 4; ++k) want += fd[k] * tp[k];
  check("forward tangent", t, want, 1e-6);
  std::printf("OK\n");
  return 0;
}
