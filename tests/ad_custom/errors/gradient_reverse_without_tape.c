// EXPECT-ERROR: the reverse pass scale_rev takes 3 parameter(s)
// The augmented forward pass returns a tape, but the reverse pass does not take it.
typedef struct { void *tape; double value; } Aug;
double __enzyme_autodiff(void *, ...);

double scale(double x, double s) { return x * s; }
Aug scale_aug(double x, double s) { Aug a = {0, x * s}; return a; }
typedef struct { double dx, ds; } Grad;
Grad scale_rev(double x, double s, double dret) { Grad g = {dret * s, dret * x}; return g; }

void *__enzyme_register_gradient_scale[] = {(void *)scale, (void *)scale_aug, (void *)scale_rev}; // ERROR-LINE

double f(double x) { return scale(x, 2.0) * x; }

int main(void) { return __enzyme_autodiff((void *)f, 1.5) > 0 ? 0 : 1; }
