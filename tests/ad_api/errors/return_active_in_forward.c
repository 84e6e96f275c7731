// EXPECT-ERROR: enzyme_active_return is for a floating-point result in reverse mode
extern int enzyme_active_return;
double __enzyme_fwddiff(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  return __enzyme_fwddiff((void *)sq, enzyme_active_return, 2.0, 1.0) > 0;  // ERROR-LINE
}
