// EXPECT-ERROR: enzyme_tape is only valid in split mode
extern int enzyme_tape;
double __enzyme_autodiff(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  void *t = 0;
  return __enzyme_autodiff((void *)sq, enzyme_tape, &t, 2.0) > 0;  // ERROR-LINE
}
