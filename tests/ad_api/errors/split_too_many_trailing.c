// EXPECT-ERROR: left over after the adjoint of the result and the tape
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  void *t = __enzyme_augmentfwd((void *)sq, 2.0);
  return __enzyme_reverse((void *)sq, 2.0, 1.0, t, t) > 0;  // ERROR-LINE
}
