// EXPECT-ERROR: needs the tape from __enzyme_augmentfwd
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
double f(double x) { return x * x; }
int main(void) {
  void *tape = __enzyme_augmentfwd((void *)f, 2.0);
  (void)tape;
  return __enzyme_reverse((void *)f, 2.0, 1.0) > 0;  // ERROR-LINE
}
