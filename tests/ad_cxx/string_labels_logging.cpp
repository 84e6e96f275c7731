// An objective that builds text as it goes, the way instrumented solver code does: a
// label made by concatenating a literal with std::to_string of an active value (libstdc++
// formats it through a variadic helper and vsnprintf), strings moved out of temporaries,
// a log of lines kept in a local std::vector<std::string>. None of it carries a
// derivative; the arithmetic beside it does. Reverse and forward mode against central
// differences. A second objective appends its lines to a global std::vector<std::string>
// whose first lines the derivative writes, reverse mode (the strings the library fills
// in it have their characters as their own shadows). (Forward mode on it stops with a
// located message at -O1..-O3, and a derivative called when primal calls already filled
// the global can stop at run time: the shadow of a buffer it grows is unknown.)
#include <string>
#include <vector>
#include "check.hpp"

static size_t logged_lines = 0;
static char first_line[32];

double logged_energy(const double* x, int n) {
  std::vector<std::string> log_lines;
  double e = 0.0;
  for (int i = 0; i < n; ++i) {
    double term = x[i] * x[i] * (1.0 + 0.1 * i) + std::sin(x[i]);
    std::string label = "term_" + std::to_string(i) + " = " + std::to_string(term);
    if (label.size() > 64) label.resize(64);
    log_lines.push_back(std::move(label));
    e += term;
  }
  std::string summary = "energy of " + std::to_string(n) + " terms";
  log_lines.push_back(summary + ": " + std::to_string(e));
  logged_lines += log_lines.size();
  log_lines[0].copy(first_line, sizeof first_line - 1);
  return e;
}

static std::vector<std::string> global_log;

double globally_logged_energy(const double* x, int n) {
  double e = 0.0;
  for (int i = 0; i < n; ++i) {
    double term = x[i] * x[i] * (1.0 + 0.1 * i) + std::sin(x[i]);
    std::string label = "term_" + std::to_string(i) + " of the global log = ";
    global_log.push_back(std::move(label) + std::to_string(term));
    e += term;
  }
  return e;
}

int main() {
  const int n = 5;
  double x[n] = {0.3, -1.2, 0.8, 2.0, -0.4}, dx[n] = {0};
  __enzyme_autodiff((void*)logged_energy, enzyme_dup, x, dx, enzyme_const, n);
  double fd[n];
  for (int k = 0; k < n; ++k) {
    const double h = 1e-6, keep = x[k];
    x[k] = keep + h;
    double up = logged_energy(x, n);
    x[k] = keep - h;
    double down = logged_energy(x, n);
    x[k] = keep;
    fd[k] = (up - down) / (2 * h);
    check("d energy / dx", dx[k], fd[k], 1e-6);
  }
  double tx[n] = {1.0, 0.5, -0.25, 2.0, -1.0};
  double t = __enzyme_fwddiff((void*)logged_energy, enzyme_dup, x, tx, enzyme_const, n);
  double want = 0.0;
  for (int k = 0; k < n; ++k) want += fd[k] * tx[k];
  check("forward tangent", t, want, 1e-6);
  if (logged_lines != (2 + 2 * n) * (n + 1) ||  // (n + 1) lines in each of 2n + 2 calls
      std::string(first_line).rfind("term_0 = ", 0) != 0) {
    std::printf("log: %zu lines, first '%s'\n", logged_lines, first_line);
    return 1;
  }
  // the global log: its first lines come from the derivative, the rest from primal calls
  double dg[n] = {0};
  __enzyme_autodiff((void*)globally_logged_energy, enzyme_dup, x, dg, enzyme_const, n);
  double g0 = globally_logged_energy(x, n);
  for (int k = 0; k < n; ++k) {
    const double h = 1e-6, keep = x[k];
    x[k] = keep + h;
    double up = globally_logged_energy(x, n);
    x[k] = keep - h;
    double down = globally_logged_energy(x, n);
    x[k] = keep;
    check("global log: d energy / dx", dg[k], (up - down) / (2 * h), 1e-6);
  }
  if (global_log.size() != static_cast<size_t>(n) * (2 + 2 * n) || g0 == 0.0 ||
      global_log.back().find("of the global log = ") == std::string::npos) {
    std::printf("global log: %zu lines\n", global_log.size());
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
