// EXPECT-ERROR: strided shadows are for pointers
extern int enzyme_dupv, enzyme_width;
double __enzyme_fwddiff(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  return __enzyme_fwddiff((void *)sq, enzyme_width, 2, enzyme_dupv, 8, 3.0, 1.0) > 0;  // ERROR-LINE
}
