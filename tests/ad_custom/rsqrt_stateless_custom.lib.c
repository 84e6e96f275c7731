/* A reciprocal square root the way game and graphics code writes it: the bit-level
   initial guess, refined by Newton steps until it is accurate to double precision.
   Compiled natively: irgrad never sees it. */
#include <stdint.h>
#include <string.h>

double fast_rsqrt(double x) {
  uint64_t bits;
  double y;
  memcpy(&bits, &x, sizeof bits);
  bits = 0x5fe6eb50c7b537a9ULL - (bits >> 1);
  memcpy(&y, &bits, sizeof y);
  for (int k = 0; k < 5; k++) y = y * (1.5 - 0.5 * x * y * y);
  return y;
}
