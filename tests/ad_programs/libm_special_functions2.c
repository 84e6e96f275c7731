// libm functions without an LLVM intrinsic: fdim remainder remquo logb nextafter
// nexttoward, the Bessel functions j0 j1 jn y0 y1 yn, lgamma_r and glibc's sincos, each in
// double, float and long double, in reverse (__enzyme_autodiff) and forward
// (__enzyme_fwddiff) mode, checked against central finite differences.
#define _GNU_SOURCE
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
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// double
static double f_fdim(double x) { return fdim(2.0 * x, x * x) + fdim(0.1, x); }
static double f_remainder(double x) { return remainder(7.0 * x, 2.0 + x); }
static double f_remquo(double x) {
  int q;
  return remquo(7.0 * x, 2.0 + x, &q) * x;
}
static double f_logb(double x) { return logb(x) * x; }
static double f_nextafter(double x) { return nextafter(x * x, 0.0) + nexttoward(x, 9.0L); }
static double f_bessel(double x) {
  return j0(x) + 2.0 * j1(x) + jn(3, x) + jn(0, x) + y0(x) + y1(x) + yn(2, x);
}
static double f_lgamma_r(double x) {
  int sign;
  double r = lgamma_r(x, &sign);
  return sign * r;
}
static double f_sincos(double x) {
  double s, c;
  sincos(x, &s, &c);
  return s * c + 2.0 * s - c;
}

// float
static double f_fdimf(double x) {
  float y = (float)x;
  return fdimf(2.0f * y, y * y) + fdimf(0.1f, y);
}
static double f_remainderf(double x) {
  float y = (float)x;
  return remainderf(7.0f * y, 2.0f + y);
}
static double f_logbf(double x) { return logbf((float)x) * x; }
static double f_nextafterf(double x) {
  float y = (float)x;
  return nextafterf(y * y, 0.0f) + nexttowardf(y, 9.0L);
}
static double f_besself(double x) {
  float y = (float)x;
  return j0f(y) + 2.0f * j1f(y) + jnf(3, y) + jnf(0, y) + y0f(y) + y1f(y) + ynf(2, y);
}
static double f_lgammaf_r(double x) {
  int sign;
  float r = lgammaf_r((float)x, &sign);
  return sign * r;
}
static double f_sincosf(double x) {
  float s, c;
  sincosf((float)x, &s, &c);
  return s * c + 2.0f * s - c;
}

// long double
static double f_fdiml(double x) {
  long double y = x;
  return (double)(fdiml(2.0L * y, y * y) + fdiml(0.1L, y));
}
static double f_remainderl(double x) {
  long double y = x;
  return (double)remainderl(7.0L * y, 2.0L + y);
}
static double f_logbl(double x) { return (double)(logbl(x) * x); }
static double f_nextafterl(double x) {
  long double y = x;
  return (double)(nextafterl(y * y, 0.0L) + nexttowardl(y, 9.0L));
}
static double f_bessell(double x) {
  long double y = x;
  return (double)(j0l(y) + 2.0L * j1l(y) + jnl(3, y) + jnl(0, y) + y0l(y) + y1l(y) +
                  ynl(2, y));
}
static double f_lgammal_r(double x) {
  int sign;
  long double r = lgammal_r(x, &sign);
  return (double)(sign * r);
}
static double f_sincosl(double x) {
  long double s, c;
  sincosl(x, &s, &c);
  return (double)(s * c + 2.0L * s - c);
}

static double central_fd(double (*f)(double), double x) {
  double h = 1e-6 * (1.0 + fabs(x));
  return (f(x + h) - f(x - h)) / (2.0 * h);
}

// f's derivative in both modes against finite differences of `ref` (f in double)
#define CHECK(f, ref, x, tol)                                   \
  do {                                                          \
    double fd_ = central_fd(ref, x);                            \
    APPROX_EQ(__enzyme_autodiff((void *)f, x), fd_, tol);       \
    APPROX_EQ(__enzyme_fwddiff((void *)f, x, 1.0), fd_, tol);   \
  } while (0)

int main(void) {
  double xs[] = {0.3, 0.6, 1.7, 2.9};
  for (int i = 0; i < 4; i++) {
    double x = xs[i];
    CHECK(f_fdim, f_fdim, x, 1e-7);
    CHECK(f_remainder, f_remainder, x, 1e-7);
    CHECK(f_remquo, f_remquo, x, 1e-7);
    CHECK(f_logb, f_logb, x, 1e-7);
    CHECK(f_nextafter, f_nextafter, x, 1e-7);
    CHECK(f_bessel, f_bessel, x, 1e-6);
    CHECK(f_lgamma_r, f_lgamma_r, x, 1e-7);
    CHECK(f_sincos, f_sincos, x, 1e-7);

    CHECK(f_fdimf, f_fdim, x, 1e-5);
    CHECK(f_remainderf, f_remainder, x, 1e-5);
    CHECK(f_logbf, f_logb, x, 1e-5);
    CHECK(f_nextafterf, f_nextafter, x, 1e-5);
    CHECK(f_besself, f_bessel, x, 1e-4);
    CHECK(f_lgammaf_r, f_lgamma_r, x, 1e-5);
    CHECK(f_sincosf, f_sincos, x, 1e-5);

    CHECK(f_fdiml, f_fdim, x, 1e-7);
    CHECK(f_remainderl, f_remainder, x, 1e-7);
    CHECK(f_logbl, f_logb, x, 1e-7);
    CHECK(f_nextafterl, f_nextafter, x, 1e-7);
    CHECK(f_bessell, f_bessel, x, 1e-6);
    CHECK(f_lgammal_r, f_lgamma_r, x, 1e-7);
    CHECK(f_sincosl, f_sincos, x, 1e-7);
  }
  // hand-derived values: d/dx remainder(7x, 2+x) = 7 - n with n = rint(7x / (2+x))
  APPROX_EQ(__enzyme_autodiff((void *)f_remainder, 0.6), 7.0 - 2.0, 1e-12);
  // lgamma_r of a negative argument (its sign is -1)
  APPROX_EQ(__enzyme_fwddiff((void *)f_lgamma_r, -0.5, 1.0), central_fd(f_lgamma_r, -0.5),
            1e-7);
  printf("OK\n");
  return 0;
}
