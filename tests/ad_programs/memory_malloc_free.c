// malloc and free inside the differentiated function (the shadow allocation is zeroed).
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

double squares_via_heap(const double *x, int n) {
  double *tmp = (double *)malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) tmp[i] = x[i] * x[i];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += tmp[i] * x[i];
  free(tmp);
  return s;
}

int main(void) {
  enum { N = 5 };
  double x[N] = {1.0, 0.5, -2.0, 0.25, 1.5}, dx[N] = {0};
  __enzyme_autodiff((void *)squares_via_heap, enzyme_dup, x, dx, N);
  for (int i = 0; i < N; i++) APPROX_EQ(dx[i], 3.0 * x[i] * x[i], 1e-12);
  printf("OK\n");
  return 0;
}
