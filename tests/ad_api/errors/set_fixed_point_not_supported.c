// EXPECT-ERROR: __enzyme_set_fixed_point (a fixed-point loop marked from inside) is not supported
#include <enzyme/fixed_point.h>
#include <stdint.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
static void solve(double *x, double *p) {
  double change = 1.0;
  while (change > 1e-12) {
    __enzyme_set_fixed_point(-1.0, -1, (void *)0, x, (int64_t)sizeof(double));  // ERROR-LINE
    double next = 0.5 * *x + *p;
    change = next > *x ? next - *x : *x - next;
    *x = next;
  }
}
int main(void) {
  double x = 0.0, dx = 1.0, p = 1.0, dp = 0.0;
  __enzyme_autodiff((void *)solve, enzyme_dup, &x, &dx, enzyme_dup, &p, &dp);
  return dp > 0;
}
