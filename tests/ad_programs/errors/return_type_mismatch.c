// EXPECT-ERROR: return type
// Two active scalars but the call is declared to return a single double.
double __enzyme_autodiff(void *, ...);

double f(double x, double y) { return x * y; }

int main(void) { return __enzyme_autodiff((void *)f, 2.0, 3.0) > 0.0; }
