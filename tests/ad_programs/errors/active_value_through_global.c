// EXPECT-ERROR: global
// An active value stored into a mutable global that has no shadow and read back.
double __enzyme_autodiff(void *, ...);

double scratch;  // no shadow: the derivative stored here would be lost

__attribute__((noinline)) void stash(double v) { scratch = v; }

double f(double x) {
  stash(x * x);
  return scratch * 3.0;
}

int main(void) { return __enzyme_autodiff((void *)f, 2.0) > 0.0; }
