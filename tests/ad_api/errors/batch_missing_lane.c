// EXPECT-ERROR: enzyme_vector takes one value per lane
extern int enzyme_width, enzyme_vector;
typedef struct { double v[3]; } Three;
Three __enzyme_batch(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  Three t = __enzyme_batch((void *)sq, enzyme_width, 3, enzyme_vector, 1.0, 2.0);  // ERROR-LINE
  return t.v[0] > 0;
}
