// A noinline callee with its own std::vector (so its body has invokes) that overwrites
// its input: the caller's derivative needs the callee's augmented primal and reverse.
#include <vector>
#include "check.hpp"

__attribute__((noinline)) double sumsq_and_shift(double* x, int n) {
  std::vector<double> t(x, x + n);
  double s = 0;
  for (int i = 0; i < n; ++i) s += t[i] * t[i];
  for (int i = 0; i < n; ++i) x[i] = 0.5 * t[i];  // overwrites the input
  return s;
}

double twice(double* x, int n) {
  double a = sumsq_and_shift(x, n);  // sum x^2
  double b = sumsq_and_shift(x, n);  // sum (x/2)^2
  return a * b;
}

int main() {
  double x[3] = {1.0, -2.0, 0.5}, dx[3] = {0, 0, 0};
  double x0[3] = {1.0, -2.0, 0.5};
  __enzyme_autodiff((void*)twice, enzyme_dup, x, dx, enzyme_const, 3);
  double S = 0;
  for (double v : x0) S += v * v;
  // f = S * S/4 = S^2 / 4: df/dx_i = S x_i
  for (int i = 0; i < 3; ++i) check("d/dx", dx[i], S * x0[i]);
  std::puts("OK");
}
