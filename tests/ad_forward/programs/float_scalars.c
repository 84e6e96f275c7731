// A float function (sinf, expf, sqrtf): float arguments reach the vararg call as double.
#include "fd_check.h"
float __enzyme_fwddiff(void *, ...);

float f(float x) { return sinf(x) * expf(0.5f * x) + sqrtf(x); }
static double fd_f(double x) { return (double)f((float)x); }

int main(void) {
  for (float x = 0.5f; x < 3.0f; x += 0.5f) {
    float d = __enzyme_fwddiff((void *)f, x, 1.0f);
    double h = 1e-3;
    double want = ((double)f((float)(x + h)) - (double)f((float)(x - h))) / (2 * h);
    CHECK_CLOSE(d, want, 1e-2);
    (void)fd_f;
  }
  printf("OK\n");
  return 0;
}
