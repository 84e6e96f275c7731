/* Two units register gradients of their own static soft_clip under one name; each
   unit's registration applies to its own function after the link. */
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double smooth_energy(const double *x, int n);
double fidelity(const double *x, const double *data, int n);
extern int smooth_rule_calls, fidelity_rule_calls;

static const double DATA[5] = {0.2, -0.4, 1.1, 0.7, -0.3};

double objective(const double *x, int n) { return fidelity(x, DATA, n) + 0.5 * smooth_energy(x, n); }

int main(void) {
  double x[5] = {0.1, 0.3, -0.2, 0.9, 0.4}, dx[5] = {0};
  __enzyme_autodiff((void *)objective, enzyme_dup, x, dx, enzyme_const, 5);
  if (smooth_rule_calls != 4 || fidelity_rule_calls != 5) {
    printf("registered gradients ran %d and %d times\n", smooth_rule_calls, fidelity_rule_calls);
    return 1;
  }
  for (int i = 0; i < 5; i++) {
    double h = 1e-6, s = x[i];
    x[i] = s + h;
    double fp = objective(x, 5);
    x[i] = s - h;
    double fm = objective(x, 5);
    x[i] = s;
    double fd = (fp - fm) / (2 * h);
    if (fabs(fd - dx[i]) > 1e-6 * (1 + fabs(fd))) {
      printf("dx[%d] = %.12g, finite differences %.12g\n", i, dx[i], fd);
      return 1;
    }
  }
  printf("ok\n");
  return 0;
}
