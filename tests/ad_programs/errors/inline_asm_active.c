// EXPECT-ERROR: inline assembly
// Inline assembly that computes an active value with an instruction irgrad does not know
// (a square root written in assembly); an empty barrier would compute nothing and is
// differentiated through (tests/ad_programs/benchmark_barriers.c).
double __enzyme_autodiff(void *, ...);

double f(double x) {
  double y = x * x, r;
#if defined(__x86_64__)
  __asm__("sqrtsd %1, %0" : "=x"(r) : "x"(y));
#elif defined(__aarch64__)
  __asm__("fsqrt %d0, %d1" : "=w"(r) : "w"(y));
#else
#error "an architecture with a square-root instruction"
#endif
  return r * 3.0;
}

int main(void) { return __enzyme_autodiff((void *)f, 2.0) > 0.0; }
