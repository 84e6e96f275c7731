// EXPECT-ERROR: the forward derivative cube_fwd returns double; it must return {double, double}
// Enzyme's forward derivative returns the result and its tangent, not the tangent alone.
double __enzyme_fwddiff(void *, ...);

double cube(double x) { return x * x * x; }
double cube_fwd(double x, double dx) { return 3 * x * x * dx; }
void *__enzyme_register_derivative_cube[] = {(void *)cube, (void *)cube_fwd}; // ERROR-LINE

double f(double x) { return cube(x) + x; }

int main(void) { return __enzyme_fwddiff((void *)f, 1.5, 1.0) > 0 ? 0 : 1; }
