// A value class with overloaded operators and a lambda (inlined closures).
#include "check.hpp"

struct Vec3 {
  double x, y, z;
  Vec3 operator+(const Vec3& o) const { return {x + o.x, y + o.y, z + o.z}; }
  Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
  double dot(const Vec3& o) const { return x * o.x + y * o.y + z * o.z; }
};

double spring(const double* p) {
  Vec3 a{p[0], p[1], p[2]}, b{p[3], p[4], p[5]};
  auto len2 = [](const Vec3& v) { return v.dot(v); };
  Vec3 d = a + b * -1.0;
  double l = std::sqrt(len2(d));
  return 0.5 * (l - 1.0) * (l - 1.0);
}

int main() {
  double p[6] = {0.1, 0.2, 0.3, 1.0, -0.5, 0.8}, dp[6] = {0, 0, 0, 0, 0, 0};
  __enzyme_autodiff((void*)spring, enzyme_dup, p, dp);
  double d[3] = {p[0] - p[3], p[1] - p[4], p[2] - p[5]};
  double l = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  for (int i = 0; i < 3; ++i) {
    check("d/da", dp[i], (l - 1.0) * d[i] / l);
    check("d/db", dp[i + 3], -(l - 1.0) * d[i] / l);
  }
  std::puts("OK");
}
