// Model parameters kept in globals and in a class's static members, each given the shadow
// its owner declared with Enzyme's attribute enzyme_shadow(d_...): reverse mode adds the
// parameters' adjoints there (a parameter gradient without passing the parameters
// around), forward mode reads their tangents from there. The shadows are the user's:
// irgrad never zeroes them, so gradients of several calls accumulate.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#ifndef enzyme_shadow  // plain clang: the annotation irgrad reads
#define enzyme_shadow(s) annotate("enzyme_shadow", &(s))
#endif

double d_rate = 0.0;
__attribute__((enzyme_shadow(d_rate))) double rate = 0.7;

struct Model {
  static double d_weights[3];
  __attribute__((enzyme_shadow(d_weights))) static double weights[3];
  static double predict(double t) {
    return weights[0] + weights[1] * std::exp(-rate * t) + weights[2] * t;
  }
};
double Model::d_weights[3] = {0, 0, 0};
double Model::weights[3] = {0.5, 2.0, -0.1};

double loss(const double *times, const double *obs, int n) {
  double l = 0.0;
  for (int i = 0; i < n; i++) {
    double r = Model::predict(times[i]) - obs[i];
    l += r * r;
  }
  return 0.5 * l;
}

static void check(double got, double want, const char *what) {
  if (std::fabs(got - want) > 1e-6 * (1 + std::fabs(want))) {
    std::printf("%s = %.12g, finite differences %.12g\n", what, got, want);
    std::abort();
  }
}

int main() {
  std::vector<double> t = {0.0, 0.5, 1.0, 2.0, 3.5}, y = {2.4, 1.9, 1.4, 0.8, 0.3};
  int n = (int)t.size();
  __enzyme_autodiff((void *)loss, enzyme_const, t.data(), enzyme_const, y.data(),
                    enzyme_const, n);
  const double h = 1e-6;
  double save = rate;
  rate = save + h;
  double fp = loss(t.data(), y.data(), n);
  rate = save - h;
  double fm = loss(t.data(), y.data(), n);
  rate = save;
  double g_rate = (fp - fm) / (2 * h);
  check(d_rate, g_rate, "d_rate");
  double g_w[3];
  for (int k = 0; k < 3; k++) {
    double w = Model::weights[k];
    Model::weights[k] = w + h;
    fp = loss(t.data(), y.data(), n);
    Model::weights[k] = w - h;
    fm = loss(t.data(), y.data(), n);
    Model::weights[k] = w;
    g_w[k] = (fp - fm) / (2 * h);
    check(Model::d_weights[k], g_w[k], "d_weights[k]");
  }
  // a second gradient accumulates into the user's shadows
  __enzyme_autodiff((void *)loss, enzyme_const, t.data(), enzyme_const, y.data(),
                    enzyme_const, n);
  check(d_rate, 2 * g_rate, "d_rate after two gradients");
  // forward mode: the tangent of the parameters is read from their shadows
  d_rate = 1.0;
  for (double &d : Model::d_weights) d = 0.5;
  double tan = __enzyme_fwddiff((void *)loss, enzyme_const, t.data(), enzyme_const, y.data(),
                                enzyme_const, n);
  check(tan, g_rate + 0.5 * (g_w[0] + g_w[1] + g_w[2]), "tangent");
  std::printf("OK\n");
  return 0;
}
