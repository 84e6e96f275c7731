// A weighted power spectrum through a naive DFT written with std::complex<double>, the
// way signal-processing code is written: std::exp of an imaginary phase, complex
// division by a filter response (a call of __divdc3), std::abs (cabs), std::sqrt
// (csqrt) and std::norm, with the spectrum kept in a std::vector. Reverse mode and
// forward mode are checked against central differences.
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern int enzyme_dup, enzyme_const;
extern "C" {
void __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);
}

using cplx = std::complex<double>;

static std::vector<cplx> dft(const double* x, int n) {
  std::vector<cplx> out(n);
  const double pi = std::acos(-1.0);
  for (int k = 0; k < n; k++) {
    cplx s = 0.0;
    for (int j = 0; j < n; j++) s += x[j] * std::exp(cplx(0.0, -2.0 * pi * j * k / n));
    out[k] = s;
  }
  return out;
}

double spectrum_energy(const double* x, int n) {
  std::vector<cplx> X = dft(x, n);
  double e = 0.0;
  for (int k = 0; k < n; k++) {
    cplx filtered = X[k] / cplx(1.0 + 0.1 * k, 0.2);  // a first-order filter response
    e += std::abs(filtered) * (k + 1) + std::norm(std::sqrt(filtered + 2.0));
  }
  return e;
}

int main() {
  const int n = 8;
  double x[n], dx[n] = {0};
  for (int i = 0; i < n; i++) x[i] = std::sin(0.7 * i) + 0.3 * std::cos(2.1 * i);
  __enzyme_autodiff((void*)spectrum_energy, enzyme_dup, x, dx, enzyme_const, n);
  for (int i = 0; i < n; i++) {
    double keep = x[i];
    x[i] = keep + 1e-6;
    double up = spectrum_energy(x, n);
    x[i] = keep - 1e-6;
    double down = spectrum_energy(x, n);
    x[i] = keep;
    double fd = (up - down) / 2e-6;
    double t[n] = {0};
    t[i] = 1.0;
    double fwd = __enzyme_fwddiff((void*)spectrum_energy, enzyme_dup, x, t, enzyme_const, n);
    if (std::fabs(dx[i] - fd) > 1e-6 * (1 + std::fabs(fd)) ||
        std::fabs(fwd - fd) > 1e-6 * (1 + std::fabs(fd))) {
      std::fprintf(stderr, "d/dx[%d]: reverse %.12g, forward %.12g, differences %.12g\n", i,
                   dx[i], fwd, fd);
      return 1;
    }
  }
  std::printf("OK\n");
  return 0;
}
