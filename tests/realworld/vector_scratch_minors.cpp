// SANITIZE: address,undefined
// SANITIZE: address,undefined -O2
// Scratch std::vectors that live inside one call, the way textbook C++ numerics writes
// them: a determinant by cofactor expansion whose every level builds its minor in a
// std::vector, a Gauss-Seidel-like sweep that builds each new row in a temporary vector,
// and a polynomial fit whose normal equations live in a std::vector of rows. Each
// vector's buffer is operator new'd and deleted by its own function; the reverse pass
// reads some of them again (the last one: its entries are re-read where nothing
// overwrote them) and not others, whose memory then goes back where the primal frees it
// (under AddressSanitizer, a block freed too early is a use after free). The gradients
// are checked against central differences and forward mode.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

double __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);
extern int enzyme_dup, enzyme_const;

static void check(const char* what, double got, double want, double tol) {
  if (!(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)))) {
    std::printf("%s: got %.17g, want %.17g\n", what, got, want);
    std::abort();
  }
}

static double det_rec(const double* a, int n) {
  if (n == 1) return a[0];
  if (n == 2) return a[0] * a[3] - a[1] * a[2];
  std::vector<double> minor((n - 1) * (n - 1));
  double sum = 0.0;
  for (int c = 0; c < n; ++c) {
    for (int i = 1; i < n; ++i) {
      int k = 0;
      for (int j = 0; j < n; ++j)
        if (j != c) minor[(i - 1) * (n - 1) + k++] = a[i * n + j];
    }
    double cof = det_rec(minor.data(), n - 1);
    sum += (c % 2 ? -1.0 : 1.0) * a[c] * cof;
  }
  return sum;
}

double det5(const double* a) { return det_rec(a, 5); }

// rows of a 2-D field relaxed one after another; each new row is built in a temporary
double sweep_energy(const double* u0) {
  const int nx = 6, ny = 5, sweeps = 3;
  std::vector<double> u(u0, u0 + nx * ny);
  for (int s = 0; s < sweeps; ++s)
    for (int r = 1; r < ny - 1; ++r) {
      std::vector<double> row(nx);
      for (int i = 0; i < nx; ++i) {
        double left = u[r * nx + (i + nx - 1) % nx], right = u[r * nx + (i + 1) % nx];
        row[i] = 0.25 * (left + right + u[(r - 1) * nx + i] + u[(r + 1) * nx + i]);
        row[i] += 0.1 * std::sin(row[i]);
      }
      for (int i = 0; i < nx; ++i) u[r * nx + i] = row[i];
    }
  double e = 0.0;
  for (double v : u) e += v * v;
  return e;
}

// least squares fit of a quadratic: the normal equations' rows are built, then reduced
// by Gaussian elimination without pivoting, then read again by the back substitution
double fit_misfit(const double* y) {
  const int m = 7, p = 3;
  std::vector<std::vector<double>> ne(p, std::vector<double>(p + 1, 0.0));
  for (int k = 0; k < m; ++k) {
    double t = 0.25 * k, pw[3] = {1.0, t, t * t};
    for (int i = 0; i < p; ++i) {
      for (int j = 0; j < p; ++j) ne[i][j] += pw[i] * pw[j];
      ne[i][p] += pw[i] * y[k];
    }
  }
  for (int col = 0; col < p; ++col)
    for (int r = col + 1; r < p; ++r) {
      double f = ne[r][col] / ne[col][col];
      for (int j = col; j <= p; ++j) ne[r][j] -= f * ne[col][j];
    }
  std::vector<double> coef(p);
  for (int i = p - 1; i >= 0; --i) {
    double s = ne[i][p];
    for (int j = i + 1; j < p; ++j) s -= ne[i][j] * coef[j];
    coef[i] = s / ne[i][i];
  }
  double r2 = 0.0;
  for (int k = 0; k < m; ++k) {
    double t = 0.25 * k, e = coef[0] + coef[1] * t + coef[2] * t * t - y[k];
    r2 += e * e * (1.0 + std::cos(y[k]));
  }
  return r2;
}

// dx (the gradient at x0) against central differences of f, and forward mode's
// directional derivative dir along t against dx . t
static void check_gradient(const char* name, double (*f)(const double*), const double* x0,
                           const double* dx, const double* t, double dir, int n) {
  for (int k = 0; k < n; ++k) {
    double h = 1e-6;
    std::vector<double> q(x0, x0 + n);
    q[k] = x0[k] + h;
    double fp = f(q.data());
    q[k] = x0[k] - h;
    double fm = f(q.data());
    check(name, dx[k], (fp - fm) / (2.0 * h), 1e-6);
  }
  double dot = 0.0;
  for (int k = 0; k < n; ++k) dot += dx[k] * t[k];
  check(name, dir, dot, 1e-9);
}

#define CHECK_GRADIENT(f, x0, n)                                                 \
  do {                                                                           \
    std::vector<double> x(x0, x0 + n), dx(n, 0.0), t(n);                         \
    for (int k = 0; k < n; ++k) t[k] = std::cos(1.0 + k);                        \
    __enzyme_autodiff((void*)f, enzyme_dup, x.data(), dx.data());                \
    double dir = __enzyme_fwddiff((void*)f, enzyme_dup, x.data(), t.data());     \
    check_gradient(#f, f, x0, dx.data(), t.data(), dir, n);                      \
  } while (0)

int main() {
  double a[30];
  for (int i = 0; i < 30; ++i) a[i] = 0.2 + 0.1 * ((i * 7) % 11) + (i % 6 == 0);
  CHECK_GRADIENT(det5, a, 25);
  CHECK_GRADIENT(sweep_energy, a, 30);
  CHECK_GRADIENT(fit_misfit, a, 7);
  std::printf("OK\n");
  return 0;
}
