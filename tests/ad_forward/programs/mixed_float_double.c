// float and double mixed: fpext/fptrunc pass tangents through.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

double f(double x) {
  float a = (float)x * 2.0f;
  float b = a * a;
  return (double)b * x + (double)sinf(a);
}

int main(void) {
  for (double x = -0.8; x <= 0.8; x += 0.4) {
    double h = 1e-3;
    double want = (f(x + h) - f(x - h)) / (2 * h);
    CHECK_CLOSE(__enzyme_fwddiff((void *)f, x, 1.0), want, 1e-3);
  }
  printf("OK\n");
  return 0;
}
