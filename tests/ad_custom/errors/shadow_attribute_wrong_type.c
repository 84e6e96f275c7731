// EXPECT-ERROR: the shadow d_gain of gain has type float, not double
// A shadow declared with enzyme_shadow (spelled as the annotation it is) must have its
// global's type.
double __enzyme_autodiff(void *, ...);
float d_gain;
__attribute__((annotate("enzyme_shadow", &d_gain))) double gain = 2.0;  // ERROR-LINE
double f(double x) { return gain * x; }
int main(void) { return __enzyme_autodiff((void *)f, 1.0) > 0 ? 0 : 1; }
