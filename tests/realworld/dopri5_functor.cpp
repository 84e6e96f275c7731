// A Dormand-Prince 5(4) integrator with step size control, written the way C++
// numerical code is: the system is a functor passed to a template integrator, or an
// object behind an abstract interface whose rhs is virtual (the integrator is compiled
// once, not inlined into the caller). Differentiated end to end (parameters -> final
// state) in reverse and forward mode, checked against central differences and forward
// against reverse. The shadow of the system object is built by the caller as a copy
// (its vtable pointer is the primal one), or inside the differentiated function.
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);

namespace ode {

using State = std::vector<double>;

struct System {
  virtual ~System() = default;
  virtual void operator()(double t, const double* x, double* dxdt) const = 0;
  virtual std::size_t size() const = 0;
};

template <class F>
double dopri5_step(const F& f, double t, State& x, double h, std::array<State, 7>& k, State& tmp,
                   double rtol, double atol) {
  static constexpr double a21 = 1.0 / 5, a31 = 3.0 / 40, a32 = 9.0 / 40, a41 = 44.0 / 45,
                          a42 = -56.0 / 15, a43 = 32.0 / 9, a51 = 19372.0 / 6561,
                          a52 = -25360.0 / 2187, a53 = 64448.0 / 6561, a54 = -212.0 / 729,
                          a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247,
                          a64 = 49.0 / 176, a65 = -5103.0 / 18656, b1 = 35.0 / 384,
                          b3 = 500.0 / 1113, b4 = 125.0 / 192, b5 = -2187.0 / 6784,
                          b6 = 11.0 / 84, e1 = 71.0 / 57600, e3 = -71.0 / 16695,
                          e4 = 71.0 / 1920, e5 = -17253.0 / 339200, e6 = 22.0 / 525,
                          e7 = -1.0 / 40;
  const std::size_t n = x.size();
  f(t, x.data(), k[0].data());
  for (std::size_t i = 0; i < n; ++i) tmp[i] = x[i] + h * a21 * k[0][i];
  f(t + h / 5, tmp.data(), k[1].data());
  for (std::size_t i = 0; i < n; ++i) tmp[i] = x[i] + h * (a31 * k[0][i] + a32 * k[1][i]);
  f(t + 3 * h / 10, tmp.data(), k[2].data());
  for (std::size_t i = 0; i < n; ++i)
    tmp[i] = x[i] + h * (a41 * k[0][i] + a42 * k[1][i] + a43 * k[2][i]);
  f(t + 4 * h / 5, tmp.data(), k[3].data());
  for (std::size_t i = 0; i < n; ++i)
    tmp[i] = x[i] + h * (a51 * k[0][i] + a52 * k[1][i] + a53 * k[2][i] + a54 * k[3][i]);
  f(t + 8 * h / 9, tmp.data(), k[4].data());
  for (std::size_t i = 0; i < n; ++i)
    tmp[i] = x[i] + h * (a61 * k[0][i] + a62 * k[1][i] + a63 * k[2][i] + a64 * k[3][i] +
                         a65 * k[4][i]);
  f(t + h, tmp.data(), k[5].data());
  for (std::size_t i = 0; i < n; ++i)
    tmp[i] = x[i] + h * (b1 * k[0][i] + b3 * k[2][i] + b4 * k[3][i] + b5 * k[4][i] +
                         b6 * k[5][i]);
  f(t + h, tmp.data(), k[6].data());
  double err = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double e = h * (e1 * k[0][i] + e3 * k[2][i] + e4 * k[3][i] + e5 * k[4][i] +
                    e6 * k[5][i] + e7 * k[6][i]);
    double sc = atol + rtol * std::fmax(std::fabs(x[i]), std::fabs(tmp[i]));
    err += (e / sc) * (e / sc);
  }
  return std::sqrt(err / n);
}

template <class F>
int integrate_adaptive(const F& f, State& x, double t0, double t1, double rtol = 1e-9,
                       double atol = 1e-9) {
  std::array<State, 7> k;
  for (auto& ki : k) ki.resize(x.size());
  State tmp(x.size());
  double t = t0, h = (t1 - t0) / 20;
  int accepted = 0;
  for (int guard = 0; t < t1 && guard < 2000; ++guard) {
    if (t + h > t1) h = t1 - t;
    double err = dopri5_step(f, t, x, h, k, tmp, rtol, atol);
    if (err <= 1.0) {
      t += h;
      x.swap(tmp);  // accept: the 5th order solution (tmp is overwritten next step)
      ++accepted;
    }
    double fac = 0.9 * std::pow(std::fmax(err, 1e-10), -0.2);
    h *= std::fmin(5.0, std::fmax(0.2, fac));
  }
  return accepted;
}

// the integrator instantiated once for the abstract interface, called by reference
struct Dispatch {
  const System& sys;
  void operator()(double t, const double* x, double* dxdt) const { sys(t, x, dxdt); }
};
__attribute__((noinline)) int integrate_system(const System& sys, State& x, double t0,
                                               double t1) {
  return integrate_adaptive(Dispatch{sys}, x, t0, t1);
}

}  // namespace ode

// a functor with parameters (template path)
struct VanDerPol {
  double mu;
  void operator()(double, const double* x, double* dxdt) const {
    dxdt[0] = x[1];
    dxdt[1] = mu * (1 - x[0] * x[0]) * x[1] - x[0];
  }
};

// two implementations of the interface (virtual path)
struct Pendulum : ode::System {
  double g, damping;
  Pendulum(double g_, double d_) : g(g_), damping(d_) {}
  void operator()(double, const double* x, double* dxdt) const override {
    dxdt[0] = x[1];
    dxdt[1] = -g * std::sin(x[0]) - damping * x[1];
  }
  std::size_t size() const override { return 2; }
};
struct Brusselator : ode::System {
  double a, b;
  Brusselator(double a_, double b_) : a(a_), b(b_) {}
  void operator()(double, const double* x, double* dxdt) const override {
    dxdt[0] = a + x[0] * x[0] * x[1] - (b + 1) * x[0];
    dxdt[1] = b * x[0] - x[0] * x[0] * x[1];
  }
  std::size_t size() const override { return 2; }
};

double vdp_final(const double* p) {
  ode::State x = {2.0, 0.0};
  ode::integrate_adaptive(VanDerPol{p[0]}, x, 0.0, 3.0);
  return x[0] - 0.5 * x[1];
}

double system_final(const double* p, int which) {
  Pendulum pend(p[0], p[1]);
  Brusselator bru(p[0], p[1]);
  const ode::System& sys = which ? static_cast<const ode::System&>(bru) : pend;
  ode::State x = {1.0, 0.5};
  ode::integrate_system(sys, x, 0.0, 2.0);
  return x[0] * x[0] + x[1];
}

// the caller's object, differentiated with a shadow object the caller copied
double object_final(const ode::System* sys) {
  ode::State x = {1.0, 0.5};
  ode::integrate_system(*sys, x, 0.0, 2.0);
  return x[0] * x[0] + x[1];
}

static int failures = 0;
static void check(const char* what, double got, double want, double tol) {
  if (!(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)))) {
    std::printf("%s: got %.15g, want %.15g\n", what, got, want);
    ++failures;
  }
}

int main() {
  const double h = 1e-6;
  {
    double p[1] = {0.8}, dp[1] = {0};
    __enzyme_autodiff((void*)vdp_final, enzyme_dup, p, dp);
    double pa[1] = {0.8 + h}, pm[1] = {0.8 - h};
    double fd = (vdp_final(pa) - vdp_final(pm)) / (2 * h);
    double t[1] = {1.0};
    double tan = __enzyme_fwddiff((void*)vdp_final, enzyme_dup, p, t);
    std::printf("functor: d/dmu = %.12g (central difference %.12g)\n", dp[0], fd);
    check("functor reverse vs central difference", dp[0], fd, 1e-5);
    check("functor forward vs reverse", tan, dp[0], 1e-10);
  }
  for (int which = 0; which < 2; ++which) {
    double p[2] = {which ? 1.0 : 9.81, which ? 3.0 : 0.2}, dp[2] = {0, 0};
    __enzyme_autodiff((void*)system_final, enzyme_dup, p, dp, enzyme_const, which);
    for (int k = 0; k < 2; ++k) {
      double pa[2] = {p[0], p[1]}, pm[2] = {p[0], p[1]};
      pa[k] += h;
      pm[k] -= h;
      double fd = (system_final(pa, which) - system_final(pm, which)) / (2 * h);
      double t[2] = {0, 0};
      t[k] = 1;
      double tan = __enzyme_fwddiff((void*)system_final, enzyme_dup, p, t, enzyme_const, which);
      std::printf("virtual %d: d/dp%d = %.12g (central difference %.12g)\n", which, k, dp[k], fd);
      check("virtual reverse vs central difference", dp[k], fd, 1e-5);
      check("virtual forward vs reverse", tan, dp[k], 1e-10);
    }
  }
  {
    Brusselator bru(1.0, 3.0);
    Brusselator dbru = bru;  // the shadow object: a copy whose parameters are zeroed
    dbru.a = 0;
    dbru.b = 0;
    __enzyme_autodiff((void*)object_final, &bru, &dbru);
    Brusselator ba(1.0, 3.0 + h), bm(1.0, 3.0 - h);
    double fd = (object_final(&ba) - object_final(&bm)) / (2 * h);
    check("caller's object: d/db", dbru.b, fd, 1e-5);
    Brusselator tb(0.0, 1.0);
    double tan = __enzyme_fwddiff((void*)object_final, &bru, &tb);
    check("caller's object: forward vs reverse", tan, dbru.b, 1e-10);
  }
  if (failures) std::abort();
  std::printf("OK\n");
  return 0;
}
