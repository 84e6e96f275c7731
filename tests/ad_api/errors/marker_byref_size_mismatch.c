// EXPECT-ERROR: enzyme_byref, 4 before argument 1 of sq: the argument has type double (8 bytes)
extern int enzyme_byref;
double __enzyme_autodiff(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  double x = 3;
  return __enzyme_autodiff((void *)sq, enzyme_byref, 4, &x) > 0;  // ERROR-LINE
}
