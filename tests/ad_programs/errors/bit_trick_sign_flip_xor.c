// EXPECT-ERROR: integer operation on an active floating-point value
// Flipping the sign bit with an integer xor on an active value (through a union).
#include <stdint.h>
double __enzyme_autodiff(void *, ...);

union bits {
  double d;
  uint64_t u;
};

__attribute__((noinline)) double negate_bits(double x) {
  union bits b;
  b.d = x;
  b.u ^= 0x8000000000000000ULL;
  return b.d;
}

double f(double x) { return negate_bits(x * x) + 3.0 * x; }

int main(void) { return __enzyme_autodiff((void *)f, 1.5) > 0.0; }
