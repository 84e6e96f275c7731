// EXPECT-ERROR: the marker enzyme_const is followed by nothing
extern int enzyme_const, enzyme_dup;
double __enzyme_fwddiff(void *, ...);
double f(double x, double y) { return x * y; }
int main(void) {
  return __enzyme_fwddiff((void *)f, enzyme_dup, 2.0, 1.0, enzyme_const) > 0.0;  // ERROR-LINE
}
