// EXPECT-ERROR: integer operation on an active floating-point value
// Clearing the low mantissa bits with an integer `and` on an active value (through a
// union): LLVM cannot turn this into a floating-point operation, so irgrad must refuse.
#include <stdint.h>
double __enzyme_autodiff(void *, ...);

union bits {
  double d;
  uint64_t u;
};

__attribute__((noinline)) double truncate_mantissa(double x) {
  union bits b;
  b.d = x;
  b.u &= 0xFFFFFFFF00000000ULL;
  return b.d;
}

double f(double x) { return truncate_mantissa(x * x) + 3.0 * x; }

int main(void) { return __enzyme_autodiff((void *)f, 1.5) > 0.0; }
