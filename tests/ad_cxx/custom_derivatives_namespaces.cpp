// Custom derivatives and attributes in C++: registrations inside a namespace (their
// names are mangled), a custom gradient and forward derivative of a pair potential that
// is evaluated through a tabulated spline (the way molecular dynamics codes do, and whose
// analytic derivative is what one wants), called from a template over the dimension and
// from a class member, with std::vector; a static member function marked
// __attribute__((enzyme_inactive)) that records statistics, and a function declared like
// log1p. Reverse and forward mode are checked against central finite differences.
#include <vector>

#include "check.hpp"

#ifndef enzyme_inactive // clang++-22 | irgrad opt: the annotations irgrad reads
#define enzyme_inactive annotate("enzyme_inactive")
#define enzyme_function_like(name) annotate("enzyme_function_like=" name)
#endif

namespace md {

// Lennard-Jones energy as a function of the squared distance, through a table lookup
// with linear interpolation in 1/r^2: accurate enough for a simulation, but its
// derivative would be piecewise constant -- the custom derivatives give the exact one.
struct Table {
  double lo = 0.2, hi = 4.0;
  int n = 2048;
  std::vector<double> e;
  Table() : e(n + 1) {
    for (int k = 0; k <= n; k++) {
      double s = lo + (hi - lo) * k / n, s3 = s * s * s;  // s = 1 / r^2
      e[k] = 4.0 * (s3 * s3 - s3);
    }
  }
};
static Table table;

__attribute__((noinline)) double pair_energy(double r2) {
  double s = 1.0 / r2, t = (s - table.lo) / (table.hi - table.lo) * table.n;
  int k = static_cast<int>(t);
  double w = t - k;
  return (1.0 - w) * table.e[k] + w * table.e[k + 1];
}
inline double exact_slope(double r2) {  // dE/d(r^2) of 4 (r^-12 - r^-6)
  double s = 1.0 / r2, s3 = s * s * s;
  return 4.0 * (-6.0 * s3 * s3 * s + 3.0 * s3 * s);
}

struct Aug { void* tape; double value; };
Aug pair_energy_aug(double r2) { return {nullptr, pair_energy(r2)}; }
double pair_energy_rev(double r2, double d_result, void*) { return d_result * exact_slope(r2); }
struct Dual { double value, tangent; };
Dual pair_energy_fwd(double r2, double dr2) { return {pair_energy(r2), exact_slope(r2) * dr2}; }

void* __enzyme_register_gradient_pair_energy[] = {
    reinterpret_cast<void*>(pair_energy), reinterpret_cast<void*>(pair_energy_aug),
    reinterpret_cast<void*>(pair_energy_rev)};
void* __enzyme_register_derivative_pair_energy[] = {
    reinterpret_cast<void*>(pair_energy), reinterpret_cast<void*>(pair_energy_fwd)};

struct Stats {
  static int pairs;
  __attribute__((enzyme_inactive)) static void count(double r2) {
    if (r2 > 0) pairs++;
  }
};
int Stats::pairs = 0;

__attribute__((enzyme_function_like("log1p"))) double soft_log1p(double x) {
  return std::log(1.0 + x);
}

template <int D>
double cluster_energy(const double* pos, int n) {
  double e = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double r2 = 0.0;
      for (int k = 0; k < D; k++) {
        double d = pos[D * i + k] - pos[D * j + k];
        r2 += d * d;
      }
      Stats::count(r2);
      e += pair_energy(r2);
    }
  // a soft confinement of the cluster around the origin
  for (int i = 0; i < D * n; i++) e += 0.01 * soft_log1p(pos[i] * pos[i]);
  return e;
}

}  // namespace md

extern "C" double energy3(const double* pos, int n) { return md::cluster_energy<3>(pos, n); }

int main() {
  const int n = 5;
  std::vector<double> pos = {0.0, 0.0, 0.0, 1.12, 0.05, 0.0,  0.5, 1.0, 0.1,
                             0.6, 0.4, 0.95, -0.4, 0.7, -0.6};
  std::vector<double> grad(pos.size(), 0.0), dir(pos.size());
  __enzyme_autodiff(reinterpret_cast<void*>(energy3), enzyme_dup, pos.data(), grad.data(),
                    enzyme_const, n);
  const double h = 1e-6;
  double dot = 0.0;
  for (size_t i = 0; i < pos.size(); i++) {
    // the exact derivative, from the analytic slope (finite differences of the table
    // would see its interpolation): perturb and use the analytic pair energy
    std::vector<double> p = pos, m = pos;
    p[i] += h;
    m[i] -= h;
    auto exact = [&](const std::vector<double>& q) {
      double e = 0.0;
      for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
          double r2 = 0.0;
          for (int k = 0; k < 3; k++) r2 += (q[3 * a + k] - q[3 * b + k]) * (q[3 * a + k] - q[3 * b + k]);
          double s3 = 1.0 / (r2 * r2 * r2);
          e += 4.0 * (s3 * s3 - s3);
        }
      for (double v : q) e += 0.01 * std::log1p(v * v);
      return e;
    };
    check("d energy / d pos (reverse)", grad[i], (exact(p) - exact(m)) / (2 * h), 1e-6);
    dir[i] = std::cos(0.7 * i);
    dot += grad[i] * dir[i];
  }
  double tangent = __enzyme_fwddiff(reinterpret_cast<void*>(energy3), enzyme_dup, pos.data(),
                                    dir.data(), enzyme_const, n);
  check("forward vs reverse", tangent, dot, 1e-10);
  if (md::Stats::pairs < 10) {
    std::printf("the statistics were not recorded\n");
    std::abort();
  }
  std::printf("OK\n");
  return 0;
}
