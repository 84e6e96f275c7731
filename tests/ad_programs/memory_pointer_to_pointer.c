// A matrix as an array of row pointers; the shadow rows are reached through shadow pointers.
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

double frobenius2(double **rows, int r, int c) {
  double s = 0.0;
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++) s += rows[i][j] * rows[i][j] * (i + 1);
  return s;
}

int main(void) {
  double r0[2] = {1.0, 2.0}, r1[2] = {-0.5, 0.25}, r2[2] = {3.0, -1.0};
  double d0[2] = {0}, d1[2] = {0}, d2[2] = {0};
  double *rows[3] = {r0, r1, r2}, *drows[3] = {d0, d1, d2};
  __enzyme_autodiff((void *)frobenius2, enzyme_dup, rows, drows, 3, 2);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++) APPROX_EQ(drows[i][j], 2.0 * rows[i][j] * (i + 1), 1e-12);
  printf("OK\n");
  return 0;
}
