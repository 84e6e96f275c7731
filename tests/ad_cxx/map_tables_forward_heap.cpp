// Forward-mode sensitivities of a model that keeps its coefficients in local lookup
// tables, the way configuration-driven code does: a std::map<std::string, double> of named
// material constants and a sparse std::map<int, double> of mode amplitudes, built on every
// call and destroyed when the function returns (libstdc++'s _Rb_tree::_M_erase walks the
// nodes and deletes them). Every node the derivative allocates has a shadow node; both
// must be released with the map. The directional derivatives are checked against central
// differences, then the heap in use (glibc's mallinfo2) must not grow over many derivative
// calls. Before, the destructor's node walk ran on the primal tree only: each call leaked
// one shadow node per entry (72 bytes per string-keyed node, 48 per int-keyed one).
#include <malloc.h>

#include <map>
#include <string>
#include "check.hpp"

static double mode_sum(const double* a, int n, double t) {
  std::map<int, double> modes;  // sparse: only the odd modes are excited
  for (int k = 0; k < n; ++k) modes[2 * k + 1] = a[k] / (2 * k + 1);
  double s = 0.0;
  for (const auto& [m, amp] : modes) s += amp * std::sin(m * t);
  return s;
}

double beam_response(const double* p, const double* a, int n) {
  std::map<std::string, double> material;
  material["E"] = p[0];
  material["density"] = p[1];
  material["thermal_expansion_coefficient"] = p[2];  // longer than a node's inline buffer
  const double c = std::sqrt(material.at("E") / material.at("density"));
  double r = 0.0;
  for (int i = 1; i <= 8; ++i) {
    const double t = 0.05 * i * c;
    r += mode_sum(a, n, t) * (1.0 + material["thermal_expansion_coefficient"] * i);
  }
  return r * r;
}

static size_t heap_in_use() { return mallinfo2().uordblks; }

int main() {
  const int n = 4;
  double p[3] = {2.1, 0.78, 0.012}, a[n] = {1.0, 0.5, -0.25, 0.125};
  double dp[3] = {0.3, -0.2, 1.0}, da[n] = {0.5, 1.0, -1.0, 2.0};
  const double h = 1e-6;
  double pu[3], pd[3], au[n], ad[n];
  for (int k = 0; k < 3; ++k) { pu[k] = p[k] + h * dp[k]; pd[k] = p[k] - h * dp[k]; }
  for (int k = 0; k < n; ++k) { au[k] = a[k] + h * da[k]; ad[k] = a[k] - h * da[k]; }
  const double want = (beam_response(pu, au, n) - beam_response(pd, ad, n)) / (2 * h);
  const double zero[4] = {0.0, 0.0, 0.0, 0.0};
  auto tangent = [&] {
    return __enzyme_fwddiff((void*)beam_response, enzyme_dup, p, dp, enzyme_dup, a, da,
                            enzyme_const, n);
  };
  check("forward tangent", tangent(), want, 1e-6);
  // one direction at a time: the parameters' part plus the amplitudes' part
  double tp = __enzyme_fwddiff((void*)beam_response, enzyme_dup, p, dp, enzyme_dup, a, zero,
                               enzyme_const, n);
  double ta = __enzyme_fwddiff((void*)beam_response, enzyme_dup, p, zero, enzyme_dup, a, da,
                               enzyme_const, n);
  check("tangents add up", tp + ta, want, 1e-6);
  // the heap in use settles after the first calls: no shadow node outlives its map
  const size_t before = heap_in_use();
  for (int rep = 0; rep < 500; ++rep) tangent();
  const size_t after = heap_in_use();
  if (after > before + 4096) {
    std::printf("heap grew by %zu bytes over 500 derivative calls\n", after - before);
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
