// EXPECT-ERROR: __enzyme_fwdsplit (forward split mode) is not supported
double __enzyme_fwdsplit(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  return __enzyme_fwdsplit((void *)sq, 2.0, 1.0, (void *)0) > 0;  // ERROR-LINE
}
