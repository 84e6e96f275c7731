// SANITIZE: address,undefined
// Runge-Kutta stage sums written as STL-style algorithms over iterators, the way generic
// ODE libraries (Boost.Odeint's range algebra) write them: one pass combines the state
// with up to four stage vectors, so the functions take nine or ten iterators by value,
// and the x86-64 ABI passes the last ones on the stack as plain 64-bit integers. The
// vector algebra is picked at run time (a virtual interface), and the integrator refines
// a step by local extrapolation, calling itself on the halves of the step: neither is
// inlined at any optimization level. The gradient of the final state of a damped, driven
// pendulum with respect to its parameters is checked against central differences, and
// forward mode against reverse mode.
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

double __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);
extern int enzyme_const, enzyme_dup;

typedef std::vector<double> State;
typedef State::iterator It;
typedef State::const_iterator CIt;

// out = x + h * (b1 k1 + b2 k2 + b3 k3 + b4 k4)
struct Algebra {
  virtual ~Algebra() {}
  virtual void stage_sum(It out, It out_end, CIt x, CIt k1, CIt k2, CIt k3, CIt k4,
                         double h, const double* b) const = 0;
};

struct SerialAlgebra : Algebra {
  void stage_sum(It out, It out_end, CIt x, CIt k1, CIt k2, CIt k3, CIt k4, double h,
                 const double* b) const override {
    for (; out != out_end; ++out, ++x, ++k1, ++k2, ++k3, ++k4)
      *out = *x + h * (b[0] * *k1 + b[1] * *k2 + b[2] * *k3 + b[3] * *k4);
  }
};

struct Pendulum {  // theta'' = -(g/l) sin(theta) - c theta' + a cos(w t)
  double g_over_l, damping, drive, omega;
  void operator()(double t, CIt x, It dxdt) const {
    dxdt[0] = x[1];
    dxdt[1] = -g_over_l * std::sin(x[0]) - damping * x[1] + drive * std::cos(omega * t);
  }
};

struct Workspace {
  State k1, k2, k3, k4, tmp;
  explicit Workspace(std::size_t n) : k1(n), k2(n), k3(n), k4(n), tmp(n) {}
};

// The classic fourth-order step, from x into out (both of the same length).
template <class System>
void rk4_step(const System& sys, const Algebra& alg, CIt x, It out, It out_end, Workspace& w,
              double t, double h) {
  static const double b1[4] = {0.5, 0.0, 0.0, 0.0}, b2[4] = {0.0, 0.5, 0.0, 0.0},
                      b3[4] = {0.0, 0.0, 1.0, 0.0};
  static const double b4[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
  It tmp = w.tmp.begin(), tmp_end = w.tmp.end();
  sys(t, x, w.k1.begin());
  alg.stage_sum(tmp, tmp_end, x, w.k1.begin(), w.k2.begin(), w.k3.begin(), w.k4.begin(), h, b1);
  sys(t + 0.5 * h, tmp, w.k2.begin());
  alg.stage_sum(tmp, tmp_end, x, w.k1.begin(), w.k2.begin(), w.k3.begin(), w.k4.begin(), h, b2);
  sys(t + 0.5 * h, tmp, w.k3.begin());
  alg.stage_sum(tmp, tmp_end, x, w.k1.begin(), w.k2.begin(), w.k3.begin(), w.k4.begin(), h, b3);
  sys(t + h, tmp, w.k4.begin());
  alg.stage_sum(out, out_end, x, w.k1.begin(), w.k2.begin(), w.k3.begin(), w.k4.begin(), h, b4);
}

// out = fine + (fine - coarse) / 15 (Richardson's extrapolation of a fourth-order step)
void extrapolate(It out, It out_end, CIt fine, CIt coarse) {
  for (; out != out_end; ++out, ++fine, ++coarse) *out = *fine + (*fine - *coarse) / 15.0;
}

// A step of size h from x into out, refined `depth` times by local extrapolation: the
// coarse step and the two fine half steps are refined steps themselves (one level less).
template <class System>
void refined_step(const System& sys, const Algebra& alg, CIt x, CIt x_end, It out, It out_end,
                  It coarse, It mid, Workspace& w, double t, double h, int depth) {
  if (depth == 0) {
    rk4_step(sys, alg, x, out, out_end, w, t, h);
    return;
  }
  std::size_t n = x_end - x;
  State c2(n), m2(n);  // scratch of the inner levels
  refined_step(sys, alg, x, x_end, coarse, coarse + n, c2.begin(), m2.begin(), w, t, h, depth - 1);
  refined_step(sys, alg, x, x_end, mid, mid + n, c2.begin(), m2.begin(), w, t, 0.5 * h, depth - 1);
  State fine(n);
  refined_step(sys, alg, CIt(mid), CIt(mid + n), fine.begin(), fine.end(), c2.begin(),
               m2.begin(), w, t + 0.5 * h, 0.5 * h, depth - 1);
  extrapolate(out, out_end, fine.begin(), coarse);
}

static const SerialAlgebra serial;
static const Algebra* algebra = &serial;  // chosen at run time in a real code

double pendulum_energy(const double* p) {
  Pendulum sys{p[0], p[1], p[2], 1.3};
  State x{0.8, 0.0}, next(2), coarse(2), mid(2);
  Workspace w(2);
  double t = 0.0, h = 0.1;
  for (int step = 0; step < 8; ++step, t += h) {
    refined_step(sys, *algebra, x.begin(), x.end(), next.begin(), next.end(), coarse.begin(),
                 mid.begin(), w, t, h, 2);
    x.swap(next);
  }
  return 0.5 * x[1] * x[1] + p[0] * (1.0 - std::cos(x[0]));
}

static void check(const char* what, double got, double want, double tol) {
  if (!(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)))) {
    std::fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    std::abort();
  }
}

int main() {
  double p[3] = {9.81, 0.3, 0.7};
  double grad[3] = {0.0, 0.0, 0.0};
  __enzyme_autodiff((void*)pendulum_energy, enzyme_dup, p, grad);
  for (int k = 0; k < 3; ++k) {
    double h = 1e-6 * (1.0 + std::fabs(p[k]));
    double q[3] = {p[0], p[1], p[2]};
    q[k] = p[k] + h;
    double fp = pendulum_energy(q);
    q[k] = p[k] - h;
    double fm = pendulum_energy(q);
    check("reverse vs central differences", grad[k], (fp - fm) / (2.0 * h), 1e-6);
    double t[3] = {0.0, 0.0, 0.0};
    t[k] = 1.0;
    check("forward vs reverse", __enzyme_fwddiff((void*)pendulum_energy, enzyme_dup, p, t),
          grad[k], 1e-10);
  }
  std::printf("grad = (%.10g, %.10g, %.10g)\nOK\n", grad[0], grad[1], grad[2]);
  return 0;
}
