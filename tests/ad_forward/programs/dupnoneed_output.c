// enzyme_dupnoneed on an output array: only its tangent is needed.
#include "fd_check.h"
void __enzyme_fwddiff(void *, ...);

void f(double x, double *out) { out[0] = x * x; out[1] = sin(x); }

int main(void) {
  double out[2], dout[2] = {0, 0};
  __enzyme_fwddiff((void *)f, 0.4, 1.0, enzyme_dupnoneed, out, dout);
  CHECK_CLOSE(dout[0], 0.8, 1e-14);
  CHECK_CLOSE(dout[1], cos(0.4), 1e-14);
  printf("OK\n");
  return 0;
}
