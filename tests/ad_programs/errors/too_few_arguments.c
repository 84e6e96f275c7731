// EXPECT-ERROR: too few arguments
// __enzyme_autodiff given fewer arguments than the function takes.
double __enzyme_autodiff(void *, ...);

double f(double x, double y) { return x * y; }

int main(void) { return __enzyme_autodiff((void *)f, 2.0) > 0.0; }
