// EXPECT-ERROR: return type
typedef struct { double a, b, c; } Three;
Three __enzyme_fwddiff(void *, ...);
double f(double x) { return x * x; }
int main(void) {
  Three t = __enzyme_fwddiff((void *)f, 2.0, 1.0);  // ERROR-LINE
  return t.a > 0.0;
}
