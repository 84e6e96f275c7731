// EXPECT-ERROR: expected a pointer to the value
extern int enzyme_byref;
double __enzyme_autodiff(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  return __enzyme_autodiff((void *)sq, enzyme_byref, 8, 3.0) > 0;  // ERROR-LINE
}
