// A damped Newton solver for the equilibrium of a chain of nonlinear springs that reports
// its progress into a global message log, the way library code keeps a diagnostics sink
// (a std::vector<std::string> at namespace scope, appended to by a helper that is not
// inlined and directly by the solver). The log holds only characters: it carries no
// derivative, while the solver's arithmetic beside it does. The objective is the chain's
// energy at equilibrium plus a load term; its gradient with respect to the spring
// stiffnesses is checked against central differences in reverse mode (twice: derivatives
// add up) and in forward mode (one direction per spring). The log already holds lines,
// with their own heap buffers, before the first derivative runs, and grows (moving them)
// inside it. Before, the log was an active global whose buffer the derivative found set by
// the caller: a run-time stop at -O0, 'Cannot deduce type' at -O1..-O3; then forward mode
// alone still stopped at -O1..-O3 ('inactive pointer stored into memory that also holds
// active pointers': the moved strings, which reverse mode already took as their own
// shadows).
#include <string>
#include <vector>
#include "check.hpp"

std::vector<std::string> g_solver_log;
static int g_solves = 0;

static __attribute__((noinline)) void log_message(const std::string& msg) {
  g_solver_log.push_back(msg);
}

static void log_iteration(int it, int n) {
  std::string line = "newton iteration " + std::to_string(it);
  line += " of a chain of " + std::to_string(n) + " springs";  // long: a heap buffer
  log_message(line);
}

// spring k joins node k-1 and node k (node -1 is fixed at 0); the force of spring k at
// extension e is stiff[k] * (e + 0.1 e^3); node k carries load f
double chain_energy(const double* stiff, int n) {
  const double f = 0.3;
  double u[8] = {0}, r[8], d[8], c[8], rhs[8];
  g_solver_log.emplace_back("solve start");
  for (int it = 0; it < 8; ++it) {
    log_iteration(it, n);
    // residual r = internal - external, tangent: tridiagonal (d diagonal, c coupling)
    for (int k = 0; k < n; ++k) { r[k] = -f; d[k] = 0.0; }
    for (int k = 0; k < n; ++k) {
      double e = u[k] - (k ? u[k - 1] : 0.0);
      double force = stiff[k] * (e + 0.1 * e * e * e);
      double kt = stiff[k] * (1.0 + 0.3 * e * e);
      r[k] += force;
      d[k] += kt;
      if (k) { r[k - 1] -= force; d[k - 1] += kt; }
      c[k] = -kt;  // coupling between node k-1 and k
    }
    // Thomas algorithm on the tridiagonal system
    for (int k = 0; k < n; ++k) rhs[k] = -r[k];
    for (int k = 1; k < n; ++k) {
      double m = c[k] / d[k - 1];
      d[k] -= m * c[k];
      rhs[k] -= m * rhs[k - 1];
    }
    rhs[n - 1] /= d[n - 1];
    for (int k = n - 2; k >= 0; --k) rhs[k] = (rhs[k] - c[k + 1] * rhs[k + 1]) / d[k];
    for (int k = 0; k < n; ++k) u[k] += rhs[k];
  }
  double energy = 0.0;
  for (int k = 0; k < n; ++k) {
    double e = u[k] - (k ? u[k - 1] : 0.0);
    energy += stiff[k] * (0.5 * e * e + 0.025 * e * e * e * e) - f * u[k];
  }
  g_solver_log.push_back(std::string("solve done after 8 iterations"));
  ++g_solves;
  return energy;
}

int main() {
  const int n = 6;
  double s[n] = {1.0, 1.5, 0.8, 2.0, 1.2, 0.9}, ds[n] = {0}, fd[n];
  log_message("log opened before any derivative, with a line long enough for the heap");
  for (int k = 0; k < n; ++k) {
    const double h = 1e-6, keep = s[k];
    s[k] = keep + h;
    double up = chain_energy(s, n);
    s[k] = keep - h;
    double down = chain_energy(s, n);
    s[k] = keep;
    fd[k] = (up - down) / (2 * h);
  }
  __enzyme_autodiff((void*)chain_energy, enzyme_dup, s, ds, enzyme_const, n);
  for (int k = 0; k < n; ++k) check("d energy / d stiffness", ds[k], fd[k], 1e-6);
  __enzyme_autodiff((void*)chain_energy, enzyme_dup, s, ds, enzyme_const, n);
  for (int k = 0; k < n; ++k) check("twice d energy / d stiffness", ds[k], 2 * fd[k], 1e-6);
  for (int k = 0; k < n; ++k) {
    double dir[n] = {0};
    dir[k] = 1.0;
    double t = __enzyme_fwddiff((void*)chain_energy, enzyme_dup, s, dir, enzyme_const, n);
    check("forward d energy / d stiffness", t, fd[k], 1e-6);
  }
  // every solve logs its start, 8 iterations and its end
  size_t lines = 1 + (size_t)g_solves * 10;
  if (g_solver_log.size() != lines || g_solver_log[1] != "solve start" ||
      g_solver_log.back() != "solve done after 8 iterations" ||
      g_solver_log[2].rfind("newton iteration 0 of a chain of 6 springs", 0) != 0) {
    std::printf("log: %zu lines (want %zu)\n", g_solver_log.size(), lines);
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
