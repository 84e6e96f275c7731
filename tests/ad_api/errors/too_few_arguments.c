// EXPECT-ERROR: too few arguments
double __enzyme_fwddiff(void *, ...);
double f(double x, double y) { return x * y; }
int main(void) {
  return __enzyme_fwddiff((void *)f, 2.0, 1.0) > 0.0;  // ERROR-LINE
}
