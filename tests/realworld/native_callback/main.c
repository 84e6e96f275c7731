/* A callback that irgrad cannot find among the functions of the module (its address is
   taken only by native code, plugin.c): the derivative calls through the function
   pointer's shadow, which the user sets with __enzyme_virtualreverse as with Enzyme. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void *__enzyme_virtualreverse(void *);
double __enzyme_autodiff(void *, ...);

struct model {
  double (*f)(double x, const double *p);
  const double *p;
};
struct model *plugin_model(void);

double cubic(double x, const double *p) { return p[0] * x * x * x + p[1] * sin(x); }

static void make_shadow(struct model *shadow, double *dparams) {
  shadow->f = (double (*)(double, const double *))__enzyme_virtualreverse((void *)cubic);
  shadow->p = dparams;
}

__attribute__((noinline)) double evaluate(const struct model *m, double x) {
  return m->f(x, m->p) * x;
}

double loss(const struct model *m, double x) { return evaluate(m, x) + evaluate(m, 2 * x); }

int main(void) {
  struct model *m = plugin_model(), dm;
  double dp[2] = {0, 0};
  make_shadow(&dm, dp);
  double x = 1.3;
  double dx = __enzyme_autodiff((void *)loss, m, &dm, x);
  /* loss = x f(x) + 2x f(2x), f = p0 x^3 + p1 sin x */
  double want_p0 = x * x * x * x + 2 * x * pow(2 * x, 3);
  double want_p1 = x * sin(x) + 2 * x * sin(2 * x);
  double f1 = 0.5 * x * x * x + 2.0 * sin(x), g1 = 1.5 * x * x + 2.0 * cos(x);
  double f2 = 0.5 * pow(2 * x, 3) + 2.0 * sin(2 * x), g2 = 1.5 * 4 * x * x + 2.0 * cos(2 * x);
  double want_x = f1 + x * g1 + 2 * f2 + 2 * x * 2 * g2;
  if (fabs(dp[0] - want_p0) > 1e-9 || fabs(dp[1] - want_p1) > 1e-9 || fabs(dx - want_x) > 1e-9) {
    printf("got %g %g %g, want %g %g %g\n", dp[0], dp[1], dx, want_p0, want_p1, want_x);
    abort();
  }
  printf("OK\n");
  return 0;
}
