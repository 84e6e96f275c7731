/* A data-fidelity unit: a different static soft_clip (a scaled one), registered under the
   same name in its own translation unit. */
#include <math.h>

static double soft_clip(double x) { return 2.0 * tanh(0.5 * x); }
int fidelity_rule_calls; /* how often the registered gradient ran */
static void soft_clip_aug(double x) { (void)x; }
static double soft_clip_rev(double x, double d) {
  fidelity_rule_calls++;
  double t = tanh(0.5 * x);
  return d * (1.0 - t * t);
}
void *__enzyme_register_gradient_soft_clip[3] = {(void *)soft_clip, (void *)soft_clip_aug,
                                                 (void *)soft_clip_rev};

double fidelity(const double *x, const double *data, int n) {
  double f = 0.0;
  for (int i = 0; i < n; i++) f += soft_clip(x[i] - data[i]);
  return f;
}
