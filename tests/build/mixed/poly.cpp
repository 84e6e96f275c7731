// A C++ static library: a templated polynomial behind a C entry point.
#include <array>
#include <cmath>

namespace poly {
template <typename T, std::size_t N> struct Polynomial {
  std::array<T, N> c;
  T operator()(T r) const {
    T v = 0;
    for (std::size_t k = N; k-- > 0;) v = v * r + c[k];
    return v;
  }
};
}  // namespace poly

extern "C" double cxx_potential(double r) {
  static const poly::Polynomial<double, 4> p{{1.0, -0.5, 2.0, 0.75}};
  return p(r) + std::exp(-r * r);
}
