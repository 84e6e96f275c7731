// The float (f-suffixed) libm variants: sinf cosf expf logf powf sqrtf tanhf atan2f hypotf fabsf.
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

float float_mix(const float *x) {
  return sinf(x[0]) * cosf(x[1]) + expf(x[2]) * logf(x[3]) + powf(x[3], x[0]) + sqrtf(x[2]) +
         tanhf(x[1]) + atan2f(x[0], x[3]) + hypotf(x[1], x[2]) + fabsf(x[1]);
}

int main(void) {
  float x[4] = {0.4f, -0.9f, 1.3f, 2.2f}, dx[4] = {0};
  __enzyme_autodiff((void *)float_mix, x, dx);
  double a = x[0], b = x[1], c = x[2], d = x[3];
  double r2 = a * a + d * d, h = sqrt(b * b + c * c);
  double e0 = cos(a) * cos(b) + pow(d, a) * log(d) + d / r2;
  double e1 = -sin(a) * sin(b) + (1.0 - tanh(b) * tanh(b)) + b / h - 1.0;
  double e2 = exp(c) * log(d) + 0.5 / sqrt(c) + c / h;
  double e3 = exp(c) / d + a * pow(d, a - 1.0) - a / r2;
  APPROX_EQ(dx[0], e0, 1e-5);
  APPROX_EQ(dx[1], e1, 1e-5);
  APPROX_EQ(dx[2], e2, 1e-5);
  APPROX_EQ(dx[3], e3, 1e-5);
  printf("OK\n");
  return 0;
}
