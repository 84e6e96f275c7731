// EXPECT-ERROR: enzyme_const
// A marker as the last argument, with no argument after it to describe.
extern int enzyme_const;
double __enzyme_autodiff(void *, ...);

double f(double x) { return x * x; }

int main(void) { return __enzyme_autodiff((void *)f, 2.0, enzyme_const) > 0.0; }
