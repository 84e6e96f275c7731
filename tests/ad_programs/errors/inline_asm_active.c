// EXPECT-ERROR: inline assembly
// Inline assembly that takes and produces an active value.
double __enzyme_autodiff(void *, ...);

double f(double x) {
  double y = x * x;
#if defined(__x86_64__)
  __asm__ volatile("" : "+x"(y));  // opaque to the compiler and to AD
#elif defined(__aarch64__)
  __asm__ volatile("" : "+w"(y));
#else
  __asm__ volatile("" : "+r"(y));
#endif
  return y * 3.0;
}

int main(void) { return __enzyme_autodiff((void *)f, 2.0) > 0.0; }
