// EXPECT-ERROR: enzyme_dupv must be followed by an integer byte stride
extern int enzyme_dupv, enzyme_width;
double __enzyme_fwddiff(void *, ...);
double sq(const double *x) { return x[0] * x[0]; }
int main(void) {
  double x[1] = {2}, dx[4] = {1, 0, 1, 0};
  return __enzyme_fwddiff((void *)sq, enzyme_width, 2, enzyme_dupv, 8.0, x, dx) > 0;  // ERROR-LINE
}
