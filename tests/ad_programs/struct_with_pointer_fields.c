// A struct holding pointers to data: its shadow struct points at the shadow data.
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

typedef struct {
  const double *coef;
  const double *x;
  int n;
} Problem;

double evaluate(const Problem *p) {
  double s = 0.0;
  for (int i = 0; i < p->n; i++) s += p->coef[i] * exp(p->x[i]);
  return s;
}

int main(void) {
  double coef[3] = {1.0, -2.0, 0.5}, x[3] = {0.1, 0.2, -0.3};
  double dcoef[3] = {0}, dx[3] = {0};
  Problem p = {coef, x, 3};
  Problem dp = {dcoef, dx, 3};
  __enzyme_autodiff((void *)evaluate, enzyme_dup, &p, &dp);
  for (int i = 0; i < 3; i++) {
    APPROX_EQ(dcoef[i], exp(x[i]), 1e-12);
    APPROX_EQ(dx[i], coef[i] * exp(x[i]), 1e-12);
  }
  printf("OK\n");
  return 0;
}
