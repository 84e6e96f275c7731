// The differentiated function still throws when called normally: only the derivative
// ignores exception edges (the user's function keeps its invokes and landing pads).
#include <stdexcept>
#include <vector>
#include "check.hpp"

static int cleanups = 0;
struct Guard {
  ~Guard() { ++cleanups; }
};

__attribute__((noinline)) double root(double v) {
  if (v < 0) throw std::invalid_argument("negative");
  return std::sqrt(v);
}

double f(double x) {
  Guard g;  // a cleanup: the call to root becomes an invoke
  std::vector<double> v{x, 2 * x};
  return root(v[0] * v[1] - 1.0) + x;  // throws for 2x^2 < 1
}

int main() {
  double x = 2.0;
  double dx = __enzyme_autodiff((void*)f, enzyme_out, x);
  check("d/dx", dx, 2 * x / std::sqrt(2 * x * x - 1) + 1.0);
  int before = cleanups;
  bool caught = false;
  try {
    volatile double zero = 0.0;
    volatile double y = f(zero);
    (void)y;
  } catch (const std::invalid_argument&) {
    caught = true;
  }
  if (!caught || cleanups - before != 1) {
    std::printf("exception semantics lost: caught=%d cleanups=%d\n", caught, cleanups - before);
    std::abort();
  }
  std::puts("OK");
}
