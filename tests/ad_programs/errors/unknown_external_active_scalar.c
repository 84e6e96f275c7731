// EXPECT-ERROR: No derivative found for
// An external function with no body and no rule, called on an active value.
extern int enzyme_out;
double __enzyme_autodiff(void *, ...);
double mystery_transform(double);  // defined in some other library: no IR, no rule

double f(double x) { return mystery_transform(x) * x; }

int main(void) { return __enzyme_autodiff((void *)f, enzyme_out, 2.0) > 0.0; }
