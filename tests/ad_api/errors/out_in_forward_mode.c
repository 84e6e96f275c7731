// EXPECT-ERROR: not valid in forward mode
extern int enzyme_out;
double __enzyme_fwddiff(void *, ...);
double f(double x) { return x * x; }
int main(void) {
  return __enzyme_fwddiff((void *)f, enzyme_out, 2.0) > 0.0;  // ERROR-LINE
}
