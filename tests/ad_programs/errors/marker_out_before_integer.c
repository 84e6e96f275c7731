// EXPECT-ERROR: enzyme_out
// enzyme_out placed before an integer argument: integers cannot be active.
extern int enzyme_out;
double __enzyme_autodiff(void *, ...);

double scale(int n, double x) { return n * x; }

int main(void) { return __enzyme_autodiff((void *)scale, enzyme_out, 3, 2.0) > 0.0; }
