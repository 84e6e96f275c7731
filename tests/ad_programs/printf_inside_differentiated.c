// printf inside the differentiated function (inactive side effect, printed once per call).
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

double logged_energy(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i] * x[i];
    printf("step %d: partial sum %.3f\n", i, s);
  }
  printf("energy = %g\n", s);
  return s;
}

int main(void) {
  double x[3] = {1.0, 2.0, -0.5}, dx[3] = {0};
  __enzyme_autodiff((void *)logged_energy, enzyme_dup, x, dx, 3);
  for (int i = 0; i < 3; i++) APPROX_EQ(dx[i], 3.0 * x[i] * x[i], 1e-12);
  printf("OK\n");
  return 0;
}
