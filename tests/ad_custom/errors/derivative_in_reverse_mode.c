// EXPECT-ERROR: has a custom derivative (__enzyme_register_derivative_damp) that cannot be used in reverse mode
// Only a forward-mode registration, but reverse mode is asked for.
#include <math.h>
double __enzyme_autodiff(void *, ...);

double damp(double x, double k) { return x * exp(-k * x); }
typedef struct { double value, tangent; } Dual;
Dual damp_fwd(double x, double dx, double k, double dk) {
  double e = exp(-k * x);
  Dual d = {x * e, e * (1 - k * x) * dx - x * x * e * dk};
  return d;
}
void *__enzyme_register_derivative_damp[] = {(void *)damp, (void *)damp_fwd};

double energy(double x) {
  double y = damp(x, 0.5); // ERROR-LINE
  return y * y;
}

int main(void) { return __enzyme_autodiff((void *)energy, 1.0) > 0 ? 0 : 1; }
