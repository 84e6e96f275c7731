// EXPECT-ERROR: too many arguments
// __enzyme_autodiff given more arguments than the function takes.
double __enzyme_autodiff(void *, ...);

double f(double x) { return x * x; }

int main(void) { return __enzyme_autodiff((void *)f, 2.0, 3.0, 4.0) > 0.0; }
