// EXPECT-ERROR: has a custom derivative (__enzyme_register_gradient_damp) that cannot be used in forward mode
// Only a reverse-mode registration, but forward mode is asked for: the call inside the
// differentiated function is where the registration cannot be honoured.
#include <math.h>
double __enzyme_fwddiff(void *, ...);

double damp(double x, double k) { return x * exp(-k * x); }
typedef struct { void *tape; double value; } Aug;
Aug damp_aug(double x, double k) { Aug a = {0, damp(x, k)}; return a; }
typedef struct { double dx, dk; } Grad;
Grad damp_rev(double x, double k, double dret, void *tape) {
  double e = exp(-k * x);
  Grad g = {dret * e * (1 - k * x), -dret * x * x * e};
  return g;
}
void *__enzyme_register_gradient_damp[] = {(void *)damp, (void *)damp_aug, (void *)damp_rev};

double energy(double x) {
  double y = damp(x, 0.5); // ERROR-LINE
  return y * y;
}

int main(void) { return __enzyme_fwddiff((void *)energy, 1.0, 1.0) > 0 ? 0 : 1; }
