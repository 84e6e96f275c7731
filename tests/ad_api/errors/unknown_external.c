// EXPECT-ERROR: No derivative found for mystery
double __enzyme_fwddiff(void *, ...);
double mystery(double);
double f(double x) {
  return mystery(x) * x;  // ERROR-LINE
}
int main(void) { return __enzyme_fwddiff((void *)f, 2.0, 1.0) > 0.0; }
