// EXPECT-ERROR: enzyme_dup is not a marker of __enzyme_batch
extern int enzyme_width, enzyme_dup;
typedef struct { double v[2]; } Two;
Two __enzyme_batch(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  Two t = __enzyme_batch((void *)sq, enzyme_width, 2, enzyme_dup, 1.0, 2.0);  // ERROR-LINE
  return t.v[0] > 0;
}
