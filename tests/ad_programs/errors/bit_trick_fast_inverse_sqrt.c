// EXPECT-ERROR: integer operation on an active floating-point value
// Float bit tricks through integer operations on an active path (fast inverse square root).
#include <stdint.h>
#include <string.h>
double __enzyme_autodiff(void *, ...);

double fast_rsqrt(double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  bits = 0x5fe6eb50c7b537a9ULL - (bits >> 1);  // integer arithmetic on the bits of x
  double y;
  memcpy(&y, &bits, sizeof y);
  return y * (1.5 - 0.5 * x * y * y);
}

int main(void) { return __enzyme_autodiff((void *)fast_rsqrt, 4.0) > 0.0; }
