// The float complex twin of libm_complex.c: on x86-64 a float complex crosses calls as
// one <2 x float> (cexpf, csqrtf, cabsf) while __mulsc3/__divsc3 take four floats and
// return <2 x float>. The loss is computed in float; its gradient (reverse, forward and
// width-2 forward) is checked against central differences of the same loss in double
// precision, to float accuracy.
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_width;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double d[2]; } V2;
V2 __enzyme_fwddiff2(void *, ...) __asm__("__enzyme_fwddiff");

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

#define N 4

// a real loss of z = x0 + i x1 and w = x2 + i x3 through function `which`
__attribute__((noinline)) static float complex apply(int which, float complex z,
                                                     float complex w) {
  switch (which) {
    case 0: return cexpf(z) / w;
    case 1: return clogf(z) * csqrtf(w);
    case 2: return csinf(z) + ccosf(w) * ctanf(z);
    case 3: return csinhf(z) * ccoshf(w) - ctanhf(z);
    case 4: return casinf(z) + cacosf(w) + catanf(z);
    case 5: return casinhf(z) + cacoshf(w) + catanhf(z);
    case 6: return cpowf(z, w);
    case 7: return (z * w) / (z - w) + 1.0f / (w * w);
    default: return cabsf(z) * cexpf(I * cargf(w));
  }
}

__attribute__((noinline)) static double complex apply_d(int which, double complex z,
                                                        double complex w) {
  switch (which) {
    case 0: return cexp(z) / w;
    case 1: return clog(z) * csqrt(w);
    case 2: return csin(z) + ccos(w) * ctan(z);
    case 3: return csinh(z) * ccosh(w) - ctanh(z);
    case 4: return casin(z) + cacos(w) + catan(z);
    case 5: return casinh(z) + cacosh(w) + catanh(z);
    case 6: return cpow(z, w);
    case 7: return (z * w) / (z - w) + 1.0 / (w * w);
    default: return cabs(z) * cexp(I * carg(w));
  }
}

double loss(const double *x, int which) {
  float complex z = (float)x[0] + I * (float)x[1], w = (float)x[2] + I * (float)x[3];
  float complex r = apply(which, z, w);
  return crealf(r) * 0.75f - cimagf(r) * 1.25f + crealf(r * conjf(r)) * 0.1f;
}

static double loss_d(const double *x, int which) {
  double complex z = x[0] + I * x[1], w = x[2] + I * x[3];
  double complex r = apply_d(which, z, w);
  return creal(r) * 0.75 - cimag(r) * 1.25 + creal(r * conj(r)) * 0.1;
}

static double fd(const double *x, int which, int k) {
  double p[N], m[N];
  memcpy(p, x, sizeof p);
  memcpy(m, x, sizeof m);
  p[k] += 1e-6;
  m[k] -= 1e-6;
  return (loss_d(p, which) - loss_d(m, which)) / 2e-6;
}

int main(void) {
  const double x[N] = {0.35, -0.4, 0.8, 0.3};  // inside every function's principal domain
  for (int which = 0; which <= 8; which++) {
    double dx[N] = {0};
    __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, which);
    double g[N];
    for (int k = 0; k < N; k++) {
      g[k] = fd(x, which, k);
      APPROX_EQ(dx[k], g[k], 2e-3);
    }
    double t[N] = {0.5, -1.0, 0.25, 2.0}, u[N] = {-1.5, 0.0, 1.0, 0.5};
    double tg = 0, ug = 0;
    for (int k = 0; k < N; k++) { tg += t[k] * g[k]; ug += u[k] * g[k]; }
    double ft = __enzyme_fwddiff((void *)loss, enzyme_dup, x, t, enzyme_const, which);
    APPROX_EQ(ft, tg, 2e-3);
    V2 v = __enzyme_fwddiff2((void *)loss, enzyme_width, 2, enzyme_dup, x, t, u,
                             enzyme_const, which);
    APPROX_EQ(v.d[0], tg, 2e-3);
    APPROX_EQ(v.d[1], ug, 2e-3);
  }
  printf("OK\n");
  return 0;
}
