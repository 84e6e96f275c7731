/* A smoothing unit: its static soft_clip has a registered gradient (the library's own
   derivative, which the AD engine uses instead of differentiating the body). */
#include <math.h>

static double soft_clip(double x) { return x / sqrt(1.0 + x * x); }
int smooth_rule_calls; /* how often the registered gradient ran */
static void soft_clip_aug(double x) { (void)x; }
static double soft_clip_rev(double x, double d) {
  smooth_rule_calls++;
  double s = 1.0 + x * x;
  return d / (s * sqrt(s));
}
void *__enzyme_register_gradient_soft_clip[3] = {(void *)soft_clip, (void *)soft_clip_aug,
                                                 (void *)soft_clip_rev};

double smooth_energy(const double *x, int n) {
  double e = 0.0;
  for (int i = 0; i + 1 < n; i++) e += soft_clip(x[i + 1] - x[i]);
  return e;
}
