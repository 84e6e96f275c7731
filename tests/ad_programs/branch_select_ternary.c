// Ternaries that become select instructions, including one choosing between pointers.
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

double pick(const double *a, const double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    const double *src = (i % 2 == 0) ? a : b;  // select of pointers (and of shadows)
    double v = src[i];
    s += v > 0.0 ? v * v : -3.0 * v;  // select of values
  }
  return s;
}

int main(void) {
  enum { N = 4 };
  double a[N] = {1.0, 9.0, -2.0, 9.0}, b[N] = {9.0, -0.5, 9.0, 1.5};
  double da[N] = {0}, db[N] = {0};
  __enzyme_autodiff((void *)pick, a, da, b, db, N);
  APPROX_EQ(da[0], 2.0, 1e-15);
  APPROX_EQ(db[1], -3.0, 1e-15);
  APPROX_EQ(da[2], -3.0, 1e-15);
  APPROX_EQ(db[3], 3.0, 1e-15);
  APPROX_EQ(da[1] + da[3] + db[0] + db[2], 0.0, 0.0);
  printf("OK\n");
  return 0;
}
