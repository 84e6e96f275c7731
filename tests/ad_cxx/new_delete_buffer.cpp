// operator new[] / delete[] (_Znam/_ZdaPv) and new/delete of a struct (_Znwm/_ZdlPv):
// their shadows are allocated and freed like malloc'd memory.
#include "check.hpp"

struct Acc {
  double total = 0;
  void add(double v) { total += v * v; }
};

double cumulative(const double* x, int n) {
  double* buf = new double[n];
  Acc* acc = new Acc;
  double run = 0;
  for (int i = 0; i < n; ++i) {
    run += x[i];
    buf[i] = run;
  }
  for (int i = 0; i < n; ++i) acc->add(buf[i]);
  double r = acc->total;
  delete acc;
  delete[] buf;
  return r;
}

int main() {
  double x[4] = {0.5, -1.0, 2.0, 0.25}, dx[4] = {0, 0, 0, 0};
  __enzyme_autodiff((void*)cumulative, enzyme_dup, x, dx, enzyme_const, 4);
  // f = sum_k S_k^2, S_k = x_0 + .. + x_k: df/dx_i = 2 sum_{k>=i} S_k
  double S[4], run = 0;
  for (int k = 0; k < 4; ++k) S[k] = run += x[k];
  for (int i = 0; i < 4; ++i) {
    double want = 0;
    for (int k = i; k < 4; ++k) want += 2 * S[k];
    check("d/dx", dx[i], want);
  }
  std::puts("OK");
}
