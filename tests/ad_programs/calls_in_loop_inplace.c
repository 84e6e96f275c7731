// A callee in a loop updating a state vector in place (an explicit time stepper): each
// call's tape is kept by the caller's tape, the reverse calls run in reverse order.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)
void __enzyme_autodiff(void *, ...);

enum { N = 3, STEPS = 5 };

__attribute__((noinline)) void step(double *s, const double *w, double dt) {
  double a = s[0], b = s[1], c = s[2];
  s[0] = a + dt * (w[0] * b * c - a * a);
  s[1] = b + dt * sin(a * w[1]);
  s[2] = c * (1.0 + dt * w[2] * cos(b));
}

double integrate(double *s, const double *w, int steps) {
  for (int t = 0; t < steps; t++) step(s, w, 0.1);
  return s[0] * s[1] + s[2];
}

static double run(const double *s0, const double *w) {
  double s[N];
  memcpy(s, s0, sizeof s);
  return integrate(s, w, STEPS);
}

int main(void) {
  double s0[N] = {0.4, -0.7, 1.2}, w[N] = {0.9, 1.7, -0.6};
  double s[N], ds[N] = {0}, dw[N] = {0};
  memcpy(s, s0, sizeof s);
  __enzyme_autodiff((void *)integrate, enzyme_dup, s, ds, enzyme_dup, w, dw,
                    enzyme_const, STEPS);
  for (int k = 0; k < N; k++) {
    double h = 1e-6, p[N], m[N];
    memcpy(p, s0, sizeof p);
    memcpy(m, s0, sizeof m);
    p[k] += h;
    m[k] -= h;
    APPROX_EQ(ds[k], (run(p, w) - run(m, w)) / (2 * h), 1e-6);
    memcpy(p, w, sizeof p);
    memcpy(m, w, sizeof m);
    p[k] += h;
    m[k] -= h;
    APPROX_EQ(dw[k], (run(s0, p) - run(s0, m)) / (2 * h), 1e-6);
  }
  printf("OK\n");
  return 0;
}
