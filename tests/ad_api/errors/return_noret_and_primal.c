// EXPECT-ERROR: enzyme_noret and enzyme_primal_return contradict each other
extern int enzyme_noret, enzyme_primal_return;
double __enzyme_fwddiff(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  return __enzyme_fwddiff((void *)sq, enzyme_noret, enzyme_primal_return, 2.0, 1.0) > 0;  // ERROR-LINE
}
