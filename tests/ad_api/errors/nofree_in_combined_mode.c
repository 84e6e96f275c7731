// EXPECT-ERROR: enzyme_nofree is only valid in split mode
extern int enzyme_nofree;
double __enzyme_autodiff(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  return __enzyme_autodiff((void *)sq, enzyme_nofree, 2.0) > 0;  // ERROR-LINE
}
