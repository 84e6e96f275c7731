// Shared accumulators updated from a parallel loop the ways C++ code does it: a
// compare_exchange_weak retry loop on std::atomic<double> (the pre-C++20 idiom),
// std::atomic<double>::fetch_add (C++20), and a C11-style _Atomic-like global through
// std::atomic_ref. The gradient of a weighted energy w.r.t. the positions is checked
// against central differences in reverse and forward mode.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <vector>
extern int enzyme_dup, enzyme_const;
template <typename R, typename... T> R __enzyme_autodiff(void *, T...);
template <typename R, typename... T> R __enzyme_fwddiff(void *, T...);

static void atomic_add(std::atomic<double> &a, double v) {
  double old = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(old, old + v, std::memory_order_relaxed)) {
  }
}

double weighted_energy(const double *x, int n) {
  std::atomic<double> pair_sum{0.0}, kinetic{0.0};
  double spread = 0.0;
  std::atomic_ref<double> spread_ref(spread);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) {
    double local = 0.0;
    for (int j = i + 1; j < n; j++) local += std::exp(-(x[i] - x[j]) * (x[i] - x[j]));
    atomic_add(pair_sum, local);
    kinetic.fetch_add(0.5 * x[i] * x[i], std::memory_order_relaxed);
    spread_ref.fetch_add(std::fabs(std::sin(x[i])));
  }
  return pair_sum.load() * kinetic.load() + spread;
}

int main() {
  const int n = 16;
  std::vector<double> x(n), dx(n, 0.0), tx(n);
  for (int i = 0; i < n; i++) {
    x[i] = 0.3 * i + 0.2 * std::sin(1.3 * i) + 0.05;  // (off |sin x|'s kink at 0)
    tx[i] = std::cos(0.7 * i);
  }
  __enzyme_autodiff<void>((void *)weighted_energy, enzyme_dup, x.data(), dx.data(), enzyme_const, n);
  double tan = __enzyme_fwddiff<double>((void *)weighted_energy, enzyme_dup, x.data(), tx.data(),
                                        enzyme_const, n);
  int bad = 0;
  double dir = 0.0;
  for (int i = 0; i < n; i++) {
    double s = x[i], h = 1e-6;
    x[i] = s + h;
    double fp = weighted_energy(x.data(), n);
    x[i] = s - h;
    double fm = weighted_energy(x.data(), n);
    x[i] = s;
    double fd = (fp - fm) / (2 * h);
    dir += fd * tx[i];
    if (std::fabs(fd - dx[i]) > 1e-6 * (1 + std::fabs(fd))) {
      bad++;
      std::printf("dx[%d] = %.10g, finite differences %.10g\n", i, dx[i], fd);
    }
  }
  if (std::fabs(dir - tan) > 1e-6 * (1 + std::fabs(dir))) {
    bad++;
    std::printf("tangent %.10g, finite differences %.10g\n", tan, dir);
  }
  std::printf(bad ? "WRONG\n" : "OK\n");
  return bad != 0;
}
