// EXPECT-ERROR: enzyme_width must be followed by a constant width
extern int enzyme_width;
double __enzyme_fwddiff(void *, ...);
double sq(double x) { return x * x; }
volatile int width = 2;
int main(void) {
  return __enzyme_fwddiff((void *)sq, enzyme_width, width, 3.0, 1.0, 1.0) > 0;  // ERROR-LINE
}
