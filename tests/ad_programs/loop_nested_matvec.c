// Nested counted loops: y = A x, then |y|^2; gradients for both A and x.
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

#define R 3
#define C 4

double matvec_norm(const double *A, const double *x) {
  double y[R];
  for (int i = 0; i < R; i++) {
    y[i] = 0.0;
    for (int j = 0; j < C; j++) y[i] += A[i * C + j] * x[j];
  }
  double s = 0.0;
  for (int i = 0; i < R; i++) s += y[i] * y[i];
  return s;
}

int main(void) {
  double A[R * C], dA[R * C] = {0}, x[C] = {0.5, -1.0, 2.0, 0.25}, dx[C] = {0};
  for (int k = 0; k < R * C; k++) A[k] = 0.3 * k - 1.0;
  __enzyme_autodiff((void *)matvec_norm, enzyme_dup, A, dA, enzyme_dup, x, dx);
  double y[R];
  for (int i = 0; i < R; i++) {
    y[i] = 0.0;
    for (int j = 0; j < C; j++) y[i] += A[i * C + j] * x[j];
  }
  for (int j = 0; j < C; j++) {
    double e = 0.0;
    for (int i = 0; i < R; i++) e += 2.0 * y[i] * A[i * C + j];
    APPROX_EQ(dx[j], e, 1e-12);
  }
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) APPROX_EQ(dA[i * C + j], 2.0 * y[i] * x[j], 1e-12);
  printf("OK\n");
  return 0;
}
