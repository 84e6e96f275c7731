// Nested AD in C++: __enzyme_autodiff / enzyme::autodiff calls inside template
// instantiations, lambdas, functors, static member functions and an anonymous namespace,
// differentiated again (Hessian-vector products, second derivatives) in both modes.
#include <enzyme/enzyme>

#include <vector>

#include "check.hpp"

namespace {

// Rosenbrock-like energy of N coordinates
template <int N>
double energy(const double* x) {
  double s = 0;
  for (int i = 0; i + 1 < N; ++i) {
    double a = 1 - x[i], b = x[i + 1] - x[i] * x[i];
    s += a * a + 10 * b * b;
  }
  return s;
}

// the gradient by a nested call in a template
template <int N>
void gradient(const double* x, double* g) {
  for (int i = 0; i < N; ++i) g[i] = 0;
  __enzyme_autodiff((void*)energy<N>, enzyme_dup, x, g);
}

// g . v: its gradient in x is the Hessian-vector product H v
template <int N>
double directional(const double* x, const double* v) {
  double g[N];
  gradient<N>(x, g);
  double s = 0;
  for (int i = 0; i < N; ++i) s += g[i] * v[i];
  return s;
}

struct Model {
  double c;
  static double potential(double r) { return 1.0 / r + r * r; }
  // dV/dr through the C++ interface inside a static member
  static double force(double r) {
    return enzyme::get<0>(enzyme::get<0>(
        enzyme::autodiff<enzyme::Reverse>(potential, enzyme::Active{r})));
  }
  double operator()(double r) const { return c * force(r); }
};

}  // namespace

int main() {
  constexpr int N = 4;
  double x[N] = {0.3, -0.5, 1.2, 0.8}, v[N] = {1, 0.5, -1, 2};
  // H v two ways: reverse over (reverse inside a template), forward over it
  double hv_r[N] = {0, 0, 0, 0}, dv[N] = {0, 0, 0, 0};
  __enzyme_autodiff((void*)directional<N>, enzyme_dup, x, hv_r, enzyme_dup, v, dv);
  double hv_f[N] = {0, 0, 0, 0}, g[N];
  __enzyme_fwddiff((void*)gradient<N>, enzyme_dup, x, v, enzyme_dupnoneed, g, hv_f);
  for (int i = 0; i < N; ++i) {
    double gp[N], gm[N], xp[N], xm[N], h = 1e-6;
    for (int k = 0; k < N; ++k) {
      xp[k] = x[k] + h * v[k];
      xm[k] = x[k] - h * v[k];
    }
    gradient<N>(xp, gp);
    gradient<N>(xm, gm);
    double fd = (gp[i] - gm[i]) / (2 * h);
    check("Hv reverse over reverse", hv_r[i], fd, 1e-6);
    check("Hv forward over reverse", hv_f[i], fd, 1e-6);
    gradient<N>(x, g);
    check("d/dv of g.v", dv[i], g[i]);  // the gradient itself
  }

  // a lambda whose body asks for a derivative, differentiated through the C++ interface
  const double s = 1.7;
  auto slope = [s](double t) {
    return s * __enzyme_autodiff((void*)+[](double u) { return std::sin(u) * u; }, t);
  };
  double t = 0.9;
  // slope(t) = s (sin t + t cos t); slope'(t) = s (2 cos t - t sin t)
  check("slope", slope(t), s * (std::sin(t) + t * std::cos(t)));
  check("slope' reverse", enzyme::get<0>(enzyme::get<0>(
                              enzyme::autodiff<enzyme::Reverse>(slope, enzyme::Active{t}))),
        s * (2 * std::cos(t) - t * std::sin(t)));
  check("slope' forward", enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(
                              slope, enzyme::Duplicated{t, 1.0})),
        s * (2 * std::cos(t) - t * std::sin(t)));

  // a functor calling a static member that differentiates (V' = -1/r^2 + 2r)
  Model m{0.5};
  double r = 1.3;
  check("force", Model::force(r), -1 / (r * r) + 2 * r);
  check("stiffness reverse", enzyme::get<0>(enzyme::get<0>(
                                 enzyme::autodiff<enzyme::Reverse>(m, enzyme::Active{r}))),
        0.5 * (2 / (r * r * r) + 2));
  check("stiffness forward", enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(
                                 m, enzyme::Duplicated{r, 1.0})),
        0.5 * (2 / (r * r * r) + 2));
  std::puts("OK");
}
