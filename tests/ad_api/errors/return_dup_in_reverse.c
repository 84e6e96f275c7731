// EXPECT-ERROR: enzyme_dup_return: in reverse mode a floating-point result is enzyme_active_return or enzyme_const_return
extern int enzyme_dup_return;
double __enzyme_autodiff(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  return __enzyme_autodiff((void *)sq, enzyme_dup_return, 2.0) > 0;  // ERROR-LINE
}
