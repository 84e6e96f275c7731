// Boost.Odeint with a std::vector state: the Lorenz system integrated with the classic
// fourth-order Runge-Kutta stepper (integrate_const) and with an error-controlled
// Runge-Kutta-Cash-Karp stepper (integrate_adaptive). The gradient of the final state with
// respect to the model parameters (sigma, rho, beta) is checked against central
// differences and forward mode. Also built with the sanitizers, whose checks keep Boost's
// iterator algorithms and stage tables out of line: iterators then cross calls as
// integers, and the stage coefficients are copied as integers that LLVM folded.
// SANITIZE: address,undefined
// SANITIZE: address,undefined -O0
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

double __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);
extern int enzyme_const, enzyme_dup;

namespace odeint = boost::numeric::odeint;
typedef std::vector<double> state_type;

struct lorenz {
  double sigma, rho, beta;
  void operator()(const state_type& x, state_type& dxdt, double /*t*/) const {
    dxdt[0] = sigma * (x[1] - x[0]);
    dxdt[1] = x[0] * (rho - x[2]) - x[1];
    dxdt[2] = x[0] * x[1] - beta * x[2];
  }
};

// a weighted sum of the state at t = 0.5, after fixed RK4 steps
double lorenz_rk4(const double* p) {
  state_type x(3);
  x[0] = 1.0; x[1] = 1.0; x[2] = 1.0;
  lorenz sys{p[0], p[1], p[2]};
  odeint::runge_kutta4<state_type> stepper;
  odeint::integrate_const(stepper, sys, x, 0.0, 0.5, 0.01);
  return x[0] + 2.0 * x[1] + 3.0 * x[2];
}

// the same with step-size control (the step sequence is piecewise constant in p)
double lorenz_adaptive(const double* p) {
  state_type x{1.0, 1.0, 1.0};
  lorenz sys{p[0], p[1], p[2]};
  auto stepper = odeint::make_controlled<odeint::runge_kutta_cash_karp54<state_type>>(1e-8, 1e-8);
  odeint::integrate_adaptive(stepper, sys, x, 0.0, 0.5, 0.01);
  return x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
}

static void check(const char* what, double got, double want, double tol) {
  if (!(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)))) {
    std::fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    std::abort();
  }
}

template <double (*f)(const double*)>
static void check_gradient(const char* name, double fd_tol) {
  double p[3] = {10.0, 28.0, 8.0 / 3.0};
  double grad[3] = {0.0, 0.0, 0.0};
  __enzyme_autodiff((void*)f, enzyme_dup, p, grad);
  for (int k = 0; k < 3; ++k) {
    double h = 1e-6 * (1.0 + std::fabs(p[k]));
    double q[3] = {p[0], p[1], p[2]};
    q[k] = p[k] + h;
    double fp = f(q);
    q[k] = p[k] - h;
    double fm = f(q);
    check(name, grad[k], (fp - fm) / (2.0 * h), fd_tol);
    double t[3] = {0.0, 0.0, 0.0};
    t[k] = 1.0;
    double tangent = __enzyme_fwddiff((void*)f, enzyme_dup, p, t);
    check(name, tangent, grad[k], 1e-9);
  }
  std::printf("%s: grad = (%.10g, %.10g, %.10g)\n", name, grad[0], grad[1], grad[2]);
}

int main() {
  check_gradient<lorenz_rk4>("rk4", 1e-6);
  check_gradient<lorenz_adaptive>("cash-karp", 1e-5);
  std::printf("OK\n");
  return 0;
}
