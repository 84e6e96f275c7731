// EXPECT-ERROR: two return markers: enzyme_active_return contradicts
extern int enzyme_const_return, enzyme_active_return;
double __enzyme_autodiff(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  return __enzyme_autodiff((void *)sq, enzyme_const_return, enzyme_active_return, 2.0) > 0;  // ERROR-LINE
}
