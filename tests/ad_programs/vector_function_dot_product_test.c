// A function with several outputs: reverse mode with seed c gives J^T c; checked by the dot-product test.
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

void rotate_scale(const double *in, double *out) {
  double r = sqrt(in[0] * in[0] + in[1] * in[1]);
  out[0] = r * cos(in[2]) * in[0];
  out[1] = r * sin(in[2]) * in[1];
  out[2] = exp(in[2]) + in[0] * in[1];
}

int main(void) {
  double x[3] = {0.6, -0.8, 0.3}, dx[3] = {0};
  double c[3] = {0.7, -1.1, 0.4}, t[3] = {0.2, 0.9, -0.5};
  double out[3], dout[3];
  memcpy(dout, c, sizeof dout);
  __enzyme_autodiff((void *)rotate_scale, x, dx, out, dout);
  // <t, J^T c> == <J t, c> with J t from central finite differences
  double h = 1e-6, xp[3], xm[3], op[3], om[3], jt_c = 0.0, t_jtc = 0.0;
  for (int i = 0; i < 3; i++) {
    xp[i] = x[i] + h * t[i];
    xm[i] = x[i] - h * t[i];
  }
  rotate_scale(xp, op);
  rotate_scale(xm, om);
  for (int i = 0; i < 3; i++) {
    jt_c += (op[i] - om[i]) / (2.0 * h) * c[i];
    t_jtc += t[i] * dx[i];
  }
  APPROX_EQ(t_jtc, jt_c, 1e-7);
  printf("OK\n");
  return 0;
}
