// Both vectors of a dot product duplicated: each shadow gets the other vector.
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

double dot(const double *a, const double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

int main(void) {
  double a[4] = {1.0, 2.0, 3.0, 4.0}, b[4] = {-1.0, 0.5, 0.25, 2.0};
  double da[4] = {0}, db[4] = {0};
  __enzyme_autodiff((void *)dot, a, da, b, db, 4);  // pointers are duplicated by default
  for (int i = 0; i < 4; i++) {
    APPROX_EQ(da[i], b[i], 1e-15);
    APPROX_EQ(db[i], a[i], 1e-15);
  }
  printf("OK\n");
  return 0;
}
