// EXPECT-ERROR: __enzyme_fixed_point needs at least one 'enzyme_fp_state, pointer, bytes'
#include <enzyme/fixed_point.h>
#include <stdint.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
static int halve(int64_t i, double *x) {
  (void)i;
  *x = 0.5 * *x + 1.0;
  return *x > 2.0 + 1e-12 || *x < 2.0 - 1e-12;
}
static void solve(double *x) {
  __enzyme_fixed_point((void *)halve, enzyme_fp_reduction, 1e-20, x);  // ERROR-LINE
}
int main(void) {
  double x = 0.0, dx = 1.0;
  __enzyme_autodiff((void *)solve, enzyme_dup, &x, &dx);
  return dx > 0;
}
