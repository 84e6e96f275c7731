// EXPECT-ERROR: missing shadow for argument 1 of sum
extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);
double sum(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i]; return s; }
int main(void) {
  double x[3] = {1, 2, 3};
  return __enzyme_fwddiff((void *)sum, enzyme_dup, x, enzyme_const, 3) > 0.0;  // ERROR-LINE
}
