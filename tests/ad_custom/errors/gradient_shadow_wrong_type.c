// EXPECT-ERROR: parameter 2 of the augmented forward pass norm2_aug has type double, but it receives the shadow of argument 1 'x' (ptr)
// The augmented forward pass forgets that a pointer argument is followed by its shadow.
#include <math.h>
double __enzyme_autodiff(void *, ...);

double norm2(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}
typedef struct { void *tape; double value; } Aug;
Aug norm2_aug(const double *x, double scale, int n) { Aug a = {0, norm2(x, n)}; return a; }
void norm2_rev(const double *x, double *dx, int n, double dret, void *tape) {}

void *__enzyme_register_gradient_norm2[] = {(void *)norm2, (void *)norm2_aug, (void *)norm2_rev}; // ERROR-LINE

double f(const double *x) { return norm2(x, 3); }

int main(void) {
  double x[3] = {1, 2, 3}, dx[3] = {0};
  __enzyme_autodiff((void *)f, x, dx);
  return 0;
}
