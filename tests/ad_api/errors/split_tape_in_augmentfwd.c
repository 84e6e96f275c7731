// EXPECT-ERROR: enzyme_tape is an argument of __enzyme_reverse
extern int enzyme_tape;
void *__enzyme_augmentfwd(void *, ...);
double f(double x) { return x * x; }
int main(void) {
  void *t = 0;
  return __enzyme_augmentfwd((void *)f, enzyme_tape, t, 2.0) != 0;  // ERROR-LINE
}
