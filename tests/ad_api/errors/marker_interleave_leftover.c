// EXPECT-ERROR: are not shadows of any argument
extern int enzyme_interleave;
void __enzyme_autodiff(void *, ...);
void twice(const double *x, double *y) { y[0] = 2 * x[0]; }
int main(void) {
  double x = 1, dx = 0, y = 0, dy = 1, extra = 0;
  __enzyme_autodiff((void *)twice, &x, &y, enzyme_interleave, &dx, &dy, &extra);  // ERROR-LINE
  return (int)dx;
}
