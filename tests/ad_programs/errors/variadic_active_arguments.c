// EXPECT-ERROR: Cannot differentiate a call of @weighted_norm: it is variadic
// A variadic helper that reads its doubles with va_arg: va_arg carries no derivatives,
// so irgrad refuses the call (forward mode dropped the tangents of the `...` arguments).
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) static double weighted_norm(int count, ...) {
  va_list ap;
  va_start(ap, count);
  double s = 0.0;
  for (int i = 0; i < count; i++) {
    double v = va_arg(ap, double);
    s += (i + 1) * v * v;
  }
  va_end(ap);
  return sqrt(s);
}

double f(double a, double b) { return weighted_norm(3, a, a * b, sin(b)); }

int main(void) {
  printf("%g\n", __enzyme_autodiff((void *)f, 0.5, 1.5));
  return 0;
}
