// EXPECT-ERROR: the shadow of argument 1 of first has type double
extern int enzyme_dup;
double __enzyme_fwddiff(void *, ...);
double first(const double *x, int n) { return x[0] * n; }
int main(void) {
  double x[1] = {1.0};
  return __enzyme_fwddiff((void *)first, enzyme_dup, x, 1.0, 1) > 0.0;  // ERROR-LINE
}
