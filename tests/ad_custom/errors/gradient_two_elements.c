// EXPECT-ERROR: expected {fn, augmented_forward, reverse}, found 2 element(s)
// A forward-mode registration spelled as a gradient registration.
double __enzyme_autodiff(void *, ...);

double cube(double x) { return x * x * x; }
typedef struct { double value, tangent; } Dual;
Dual cube_fwd(double x, double dx) { Dual d = {x * x * x, 3 * x * x * dx}; return d; }

void *__enzyme_register_gradient_cube[] = {(void *)cube, (void *)cube_fwd}; // ERROR-LINE

double f(double x) { return cube(x) + x; }

int main(void) { return __enzyme_autodiff((void *)f, 2.0) > 0 ? 0 : 1; }
