// SANITIZE: alignment,null -O2
// A fixed-point solver that takes trial steps on a copy of its state and keeps the copy
// when the residual goes down, the way line searches and damped Newton codes do. The
// state carries optional buffers (a history for acceleration) whose size is a run-time
// option and is zero here: copying the state copies empty std::vectors, whose end pointer
// is null + 0. Under -fsanitize=alignment LLVM keeps that `null + n` apart from the size
// test and stores it into the copy. The gradient of the converged value with respect to
// the parameters is checked against central differences and forward mode.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

double __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);
extern int enzyme_dup;

static long history_length = 0;  // an option of the solver (no acceleration here)

struct SolverState {
  std::vector<double> x;
  std::vector<double> history;  // previous iterates, when acceleration is on
  double residual;
};

static double residual_of(const std::vector<double>& x, const double* p) {
  double r = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    double fx = p[i] * std::cos(x[i]) + 0.1 * x[(i + 1) % x.size()];
    r += (fx - x[i]) * (fx - x[i]);
  }
  return r;
}

double solve(const double* p) {
  SolverState s;
  s.x.assign(3, 0.5);
  s.history.resize(history_length * 3);
  s.residual = residual_of(s.x, p);
  for (int it = 0; it < 30; ++it) {
    SolverState trial = s;  // the trial step works on a copy
    for (std::size_t i = 0; i < trial.x.size(); ++i)
      trial.x[i] = p[i] * std::cos(s.x[i]) + 0.1 * s.x[(i + 1) % s.x.size()];
    trial.residual = residual_of(trial.x, p);
    if (trial.residual < s.residual) s = trial;
  }
  return s.x[0] + 2.0 * s.x[1] + 3.0 * s.x[2];
}

static void check(const char* what, double got, double want, double tol) {
  if (!(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)))) {
    std::fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    std::abort();
  }
}

int main() {
  double p[3] = {0.7, 0.9, 0.5};
  double grad[3] = {0.0, 0.0, 0.0};
  __enzyme_autodiff((void*)solve, enzyme_dup, p, grad);
  for (int k = 0; k < 3; ++k) {
    double h = 1e-6, q[3] = {p[0], p[1], p[2]};
    q[k] = p[k] + h;
    double fp = solve(q);
    q[k] = p[k] - h;
    double fm = solve(q);
    check("reverse vs central differences", grad[k], (fp - fm) / (2.0 * h), 1e-6);
    double t[3] = {0.0, 0.0, 0.0};
    t[k] = 1.0;
    check("forward vs reverse", __enzyme_fwddiff((void*)solve, enzyme_dup, p, t), grad[k],
          1e-10);
  }
  std::printf("grad = (%.10g, %.10g, %.10g)\nOK\n", grad[0], grad[1], grad[2]);
  return 0;
}
