// EXPECT-ERROR: missing shadow for argument 1 of first
extern int enzyme_dup;
double __enzyme_fwddiff(void *, ...);
double first(const double *x) { return x[0]; }
int main(void) {
  double x[1] = {1};
  return __enzyme_fwddiff((void *)first, enzyme_dup, x) > 0.0;  // ERROR-LINE
}
