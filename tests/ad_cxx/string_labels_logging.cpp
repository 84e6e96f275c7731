// An objective that builds text as it goes, the way instrumented solver code does: a
// label made by concatenating a literal with std::to_string of an active value (libstdc++
// formats it through a variadic helper and vsnprintf), strings moved out of temporaries,
// a log of lines kept in a local std::vector<std::string>. None of it carries a
// derivative; the arithmetic beside it does. Reverse and forward mode against central
// differences. (A log in a global std::vector stops at run time instead: irgrad treats a
// mutable global whose address escapes as active, and its buffer was allocated before
// the derivative ran, so its shadow is unknown.)
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
  std::printf("OK\n");
  return 0;
}
