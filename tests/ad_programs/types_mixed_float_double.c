// float and double mixed in one computation (fpext/fptrunc on the active path).
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

double mixed(const float *xf, const double *xd, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    float t = xf[i] * 2.0f + 1.0f;   // float arithmetic
    double u = (double)t * xd[i];    // fpext
    float v = (float)(u * u);        // fptrunc
    s += v + sinf(xf[i]);
  }
  return s;
}

int main(void) {
  enum { N = 3 };
  float xf[N] = {0.5f, -0.25f, 1.0f}, dxf[N] = {0};
  double xd[N] = {1.5, 0.5, -2.0}, dxd[N] = {0};
  __enzyme_autodiff((void *)mixed, xf, dxf, xd, dxd, N);
  for (int i = 0; i < N; i++) {
    double t = 2.0 * xf[i] + 1.0, u = t * xd[i];
    APPROX_EQ(dxf[i], 2.0 * u * 2.0 * xd[i] + cos(xf[i]), 1e-5);
    APPROX_EQ(dxd[i], 2.0 * u * t, 1e-5);
  }
  printf("OK\n");
  return 0;
}
