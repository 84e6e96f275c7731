// EXPECT-ERROR: enzyme_out before argument 1 of first (ptr)
extern int enzyme_out;
void __enzyme_autodiff(void *, ...);
double first(const double *x) { return x[0] * x[0]; }
int main(void) {
  double x[1] = {1.0};
  __enzyme_autodiff((void *)first, enzyme_out, x);  // ERROR-LINE
  return 0;
}
