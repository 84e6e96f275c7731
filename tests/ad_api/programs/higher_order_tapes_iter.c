// Higher-order derivatives of code whose derivatives keep a tape (irgrad's own tape
// runtime differentiated again): 4th derivatives of a Taylor series whose length grows
// with the order (__enzyme_iter), in reverse^4 and forward^4; 2nd and 3rd derivatives of
// loops whose reverse pass needs every iterate (a tape outgrowing its stack buffer, and
// a data-dependent loop whose tape grows push by push), in every combination of modes.
#include <stdint.h>

#include "check.h"

extern int enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
uint64_t __enzyme_iter(uint64_t, uint64_t);

__attribute__((noinline)) static uint64_t factorial(uint64_t n) {
  return n == 0 ? 1 : n * factorial(n - 1);
}
// sin(x) by its Taylor series up to x^9 in the primal; every derivative order adds a term
static double taylor_sin(double x) {
  double r = 0;
  uint64_t last = __enzyme_iter(9, 1);
  for (uint64_t i = 1; i <= last; i += 2)
    r += pow(x, (double)i) / (double)factorial(i) * ((i % 4 == 1) ? 1.0 : -1.0);
  return r;
}
static double r1(double x) { return __enzyme_autodiff((void *)taylor_sin, x); }
static double r2(double x) { return __enzyme_autodiff((void *)r1, x); }
static double r3(double x) { return __enzyme_autodiff((void *)r2, x); }
static double r4(double x) { return __enzyme_autodiff((void *)r3, x); }
static double f1(double x) { return __enzyme_fwddiff((void *)taylor_sin, x, 1.0); }
static double f2(double x) { return __enzyme_fwddiff((void *)f1, x, 1.0); }
static double f3(double x) { return __enzyme_fwddiff((void *)f2, x, 1.0); }
static double f4(double x) { return __enzyme_fwddiff((void *)f3, x, 1.0); }

// 400 iterates of a map: the reverse pass needs every x_k
static double orbit(double x, double a, int n) {
  for (int k = 0; k < n; k++) x = a * sin(x) + 0.05 * x * x;
  return x;
}
static double orbit_x(double x, double a, int n) {
  return __enzyme_autodiff((void *)orbit, x, enzyme_const, a, enzyme_const, n);
}
// a loop that runs until the state is small: the tape grows push by push
static double damped(double x, double a) {
  double s = 0;
  while (fabs(x) > 1e-3) {
    s += x * x * x;
    x = a * x - 0.01 * x * x * x;
  }
  return s;
}
static double d1(double x, double a) { return __enzyme_autodiff((void *)damped, x, enzyme_const, a); }
static double d2r(double x, double a) { return __enzyme_autodiff((void *)d1, x, enzyme_const, a); }
static double d2f(double x, double a) {
  return __enzyme_fwddiff((void *)d1, x, 1.0, enzyme_const, a);
}

int main(void) {
  const double x = 0.4;
  CHECK(taylor_sin(x), sin(x), 1e-9);
  CHECK(r1(x), cos(x), 1e-9);
  CHECK(r2(x), -sin(x), 1e-9);
  CHECK(r3(x), -cos(x), 1e-9);
  CHECK(r4(x), sin(x), 1e-9);
  CHECK(f4(x), sin(x), 1e-9);

  const double a = 0.9, h = 1e-5;
  const int n = 400;
  double orbit_xx = (orbit_x(0.3 + h, a, n) - orbit_x(0.3 - h, a, n)) / (2 * h);
  CHECK(__enzyme_autodiff((void *)orbit_x, 0.3, enzyme_const, a, enzyme_const, n), orbit_xx,
        1e-5);
  CHECK(__enzyme_fwddiff((void *)orbit_x, 0.3, 1.0, enzyme_const, a, enzyme_const, n),
        orbit_xx, 1e-5);
  // third derivatives of the data-dependent loop
  const double h3 = 1e-4;
  double d3 = (d2r(0.3 + h3, a) - d2r(0.3 - h3, a)) / (2 * h3);
  CHECK(d2f(0.3, a), d2r(0.3, a), 1e-10);
  CHECK(__enzyme_autodiff((void *)d2r, 0.3, enzyme_const, a), d3, 1e-5);
  CHECK(__enzyme_fwddiff((void *)d2r, 0.3, 1.0, enzyme_const, a), d3, 1e-5);
  CHECK(__enzyme_autodiff((void *)d2f, 0.3, enzyme_const, a), d3, 1e-5);
  CHECK(__enzyme_fwddiff((void *)d2f, 0.3, 1.0, enzyme_const, a), d3, 1e-5);
  printf("OK\n");
  return 0;
}
