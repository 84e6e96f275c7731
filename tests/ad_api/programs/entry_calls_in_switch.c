// A driver that picks the function to differentiate in a switch, the way a benchmark or a
// test harness selects a variant: each case calls an entry point with its own function
// and its own markers. The optimizer must not merge these calls into one call of a
// `select` of functions (and of markers), which would no longer say what to
// differentiate.
#include "check.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double sum_squares(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}
static double sum_sines(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += sin(x[i]);
  return s;
}
__attribute__((noinline)) static void gradient_of(int variant, const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) dx[i] = 0.0;
  switch (variant) {
    case 0:
      __enzyme_autodiff((void *)sum_squares, enzyme_dup, x, dx, enzyme_const, n);
      break;
    default:
      __enzyme_autodiff((void *)sum_sines, enzyme_dup, x, dx, enzyme_const, n);
  }
}

__attribute__((noinline)) static double tangent_of(int variant, const double *x, const double *t, int n) {
  switch (variant) {
    case 0: return __enzyme_fwddiff((void *)sum_squares, enzyme_dup, x, t, enzyme_const, n);
    default: return __enzyme_fwddiff((void *)sum_sines, enzyme_dup, x, t, enzyme_const, n);
  }
}

int main(int argc, char **argv) {
  (void)argv;
  double x[3] = {0.3, -0.7, 1.1}, dx[3], t[3] = {1.0, 0.0, 0.0};
  for (int v = argc - 1; v < 2; v++) {
    gradient_of(v, x, dx, 3);
    for (int i = 0; i < 3; i++) {
      double want = v == 0 ? 2 * x[i] : cos(x[i]);
      CHECK(dx[i], want, 1e-12);
    }
    CHECK(tangent_of(v, x, t, 3), dx[0], 1e-12);
  }
  printf("OK\n");
  return 0;
}
