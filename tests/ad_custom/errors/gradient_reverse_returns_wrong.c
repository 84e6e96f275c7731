// EXPECT-ERROR: must return the derivatives of the floating-point arguments of scale in order: {double, double}
// Two active scalar arguments, but the reverse pass returns only one derivative.
double __enzyme_autodiff(void *, ...);

double scale(double x, double s) { return x * s; }
typedef struct { void *tape; double value; } Aug;
Aug scale_aug(double x, double s) { Aug a = {0, x * s}; return a; }
double scale_rev(double x, double s, double dret, void *tape) { return dret * s; }

void *__enzyme_register_gradient_scale[] = {(void *)scale, (void *)scale_aug, (void *)scale_rev}; // ERROR-LINE

double f(double x) { return scale(x, 2.0) * x; }

int main(void) { return __enzyme_autodiff((void *)f, 1.5) > 0 ? 0 : 1; }
