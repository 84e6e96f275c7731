// EXPECT-ERROR: enzyme_width is given twice
extern int enzyme_width;
double __enzyme_fwddiff(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  return __enzyme_fwddiff((void *)sq, enzyme_width, 2, enzyme_width, 2, 3.0, 1.0, 1.0) > 0;  // ERROR-LINE
}
