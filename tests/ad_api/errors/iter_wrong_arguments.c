// EXPECT-ERROR: __enzyme_iter takes two integers of the same type
unsigned long __enzyme_iter(unsigned long, int);
double __enzyme_autodiff(void *, ...);
double poly(double x) {
  double s = 0, p = 1;
  for (unsigned long i = 0; i <= __enzyme_iter(5, 1); i++) { s += p; p *= x; }  // ERROR-LINE
  return s;
}
int main(void) { return __enzyme_autodiff((void *)poly, 0.5) > 0; }
