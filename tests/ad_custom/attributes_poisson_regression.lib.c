/* An "opaque library" (compiled natively; irgrad sees only the declarations). */
#include <math.h>
#include <stdio.h>

void lib_trace(const char *tag, double value) {
  static int shown;
  if (!shown++) fprintf(stderr, "[trace] %s = %g\n", tag, value);
}

double lib_log1p(double x) { return log1p(x); }

double lib_dot(const double *a, const double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
