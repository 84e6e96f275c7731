// EXPECT-ERROR: the loop it marks must have one latch and one exit
// A loop left from the middle of its body cannot be a fixed-point step.
#include <enzyme/fixed_point.h>
#include <stdint.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
static void solve(double *x, const double *p) {
  for (int it = 0; it < 100; it++) {
    __enzyme_set_fixed_point(-1.0, (int64_t)-1, (void *)0, x, (int64_t)sizeof(double));  // ERROR-LINE
    double next = 0.5 * *x + *p;
    if (next == *x) break;
    *x = next;
    if (*x > 1e6) return;
  }
}
int main(void) {
  double x = 0.0, dx = 1.0, p = 1.0, dp = 0.0;
  __enzyme_autodiff((void *)solve, enzyme_dup, &x, &dx, enzyme_dup, &p, &dp);
  return dp > 0;
}
