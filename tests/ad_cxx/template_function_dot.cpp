// Template functions: an instantiation is differentiated (dot<double, 3> via a pointer).
#include "check.hpp"

template <typename T, int N>
T dot(const T* a, const T* b) {
  T s = T(0);
  for (int i = 0; i < N; ++i) s += a[i] * b[i];
  return s;
}

template <typename T>
T sq(T v) { return v * v; }

template <int N>
double energy(const double* a, const double* b) {
  return sq(dot<double, N>(a, b)) + dot<double, N>(a, a);
}

int main() {
  double a[3] = {1.0, 2.0, -1.0}, b[3] = {0.5, -1.5, 2.0};
  double da[3] = {0, 0, 0}, db[3] = {0, 0, 0};
  __enzyme_autodiff((void*)energy<3>, enzyme_dup, a, da, enzyme_dup, b, db);
  double d = dot<double, 3>(a, b);
  for (int i = 0; i < 3; ++i) {
    check("d/da", da[i], 2 * d * b[i] + 2 * a[i]);
    check("d/db", db[i], 2 * d * a[i]);
  }
  std::puts("OK");
}
