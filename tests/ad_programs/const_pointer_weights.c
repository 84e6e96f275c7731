// A constant pointer (enzyme_const) next to a duplicated one: weights get no shadow.
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

double weighted_norm(const double *w, const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += w[i] * x[i] * x[i];
  return sqrt(s);
}

int main(void) {
  double w[3] = {1.0, 2.0, 0.5}, x[3] = {0.3, -1.2, 2.0}, dx[3] = {0};
  __enzyme_autodiff((void *)weighted_norm, enzyme_const, w, enzyme_dup, x, dx, 3);
  double norm = weighted_norm(w, x, 3);
  for (int i = 0; i < 3; i++) APPROX_EQ(dx[i], w[i] * x[i] / norm, 1e-12);
  printf("OK\n");
  return 0;
}
