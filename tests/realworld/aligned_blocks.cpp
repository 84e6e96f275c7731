// Over-aligned blocks (alignas(64), as SIMD code lays out its data) allocated inside the
// differentiated function with aligned operator new[] / delete[] (and nothrow new), in
// reverse and forward mode: their shadows are allocated and freed the same way.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);

struct alignas(64) Block {
  double v[8];
};

double blocked_energy(const double* x, int n) {
  Block* b = new Block[n];
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 8; ++k) b[i].v[k] = std::sin(x[i]) * (k + 1);
  double s = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 8; ++k) s += b[i].v[k] * b[i].v[k];
  delete[] b;
  Block* acc = new (std::nothrow) Block;
  if (!acc) return 0;
  acc->v[5] = s;
  double r = 0.5 * acc->v[5] + x[0];
  delete acc;
  return r;
}

int main() {
  double x[3] = {0.3, 1.1, -0.7}, dx[3] = {0, 0, 0};
  __enzyme_autodiff((void*)blocked_energy, enzyme_dup, x, dx, enzyme_const, 3);
  // r = 0.5 * 204 * sum sin^2 x_i + x_0
  for (int i = 0; i < 3; ++i) {
    double want = 204.0 * std::sin(x[i]) * std::cos(x[i]) + (i == 0 ? 1.0 : 0.0);
    double t[3] = {0, 0, 0};
    t[i] = 1;
    double fwd = __enzyme_fwddiff((void*)blocked_energy, enzyme_dup, x, t, enzyme_const, 3);
    if (std::fabs(dx[i] - want) > 1e-10 || std::fabs(fwd - want) > 1e-10) {
      std::printf("x%d: reverse %.15g forward %.15g, want %.15g\n", i, dx[i], fwd, want);
      std::abort();
    }
  }
  std::printf("OK\n");
  return 0;
}
