// EXPECT-ERROR: too many arguments
double __enzyme_fwddiff(void *, ...);
double f(double x) { return x * x; }
int main(void) {
  return __enzyme_fwddiff((void *)f, 2.0, 1.0, 4.0) > 0.0;  // ERROR-LINE
}
