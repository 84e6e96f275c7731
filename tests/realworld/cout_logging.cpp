// A damped Newton iteration for a small nonlinear system that reports its progress with
// std::cout inside the differentiated function (iteration number, residual norm, the
// current iterate with std::setprecision, a status std::string), as solvers written for
// people do. The derivative of the solution with respect to the system's parameter is
// checked against central differences and forward mode; the printing must not disturb it.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

double __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);
extern int enzyme_const, enzyme_dup, enzyme_out;

struct NewtonLog {
  std::string name;
  int verbosity;
  void step(int it, double norm, const double* x) const {
    if (verbosity > 0) {
      std::cout << name << " iteration " << it << ": |F| = " << std::scientific
                << std::setprecision(3) << norm << "  x = (" << std::fixed << x[0] << ", "
                << x[1] << ")" << std::endl;
    }
  }
};

// F(x) = (x0^2 + a x1 - 2, exp(x0) - x1 - a) = 0, solved from (1, 1); returns x0 + 2 x1
double solve(double a, int verbosity) {
  NewtonLog log{"newton", verbosity};
  double x[2] = {1.0, 1.0};
  for (int it = 0; it < 30; ++it) {
    double f0 = x[0] * x[0] + a * x[1] - 2.0;
    double f1 = std::exp(x[0]) - x[1] - a;
    double norm = std::sqrt(f0 * f0 + f1 * f1);
    log.step(it, norm, x);
    if (norm < 1e-13) break;
    // Jacobian [[2 x0, a], [exp(x0), -1]]
    double j00 = 2.0 * x[0], j01 = a, j10 = std::exp(x[0]), j11 = -1.0;
    double det = j00 * j11 - j01 * j10;
    double dx0 = (f0 * j11 - j01 * f1) / det;
    double dx1 = (j00 * f1 - j10 * f0) / det;
    x[0] -= dx0;
    x[1] -= dx1;
  }
  std::ostringstream status;
  status << "converged to " << x[0] << ", " << x[1];
  if (verbosity > 1) std::cout << status.str() << '\n';
  return x[0] + 2.0 * x[1];
}

static void check(const char* what, double got, double want, double tol) {
  if (!(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)))) {
    std::fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    std::abort();
  }
}

int main() {
  const double a = 0.7;
  double grad = __enzyme_autodiff((void*)solve, enzyme_out, a, enzyme_const, 2);
  double h = 1e-6;
  double fd = (solve(a + h, 0) - solve(a - h, 0)) / (2 * h);
  check("reverse vs central difference", grad, fd, 1e-6);
  double tangent = __enzyme_fwddiff((void*)solve, a, 1.0, enzyme_const, 1);
  check("forward vs reverse", tangent, grad, 1e-10);
  std::printf("d(x0 + 2 x1)/da = %.12f\nOK\n", grad);
  return 0;
}
