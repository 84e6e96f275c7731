// EXPECT-ERROR: No derivative found for
// An external function with no body that may write active memory through a pointer.
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
void mystery_update(double *data, int n);

double f(double *x, int n) {
  mystery_update(x, n);
  return x[0] * x[1];
}

int main(void) {
  double x[2] = {1.0, 2.0}, dx[2] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, 2);
  return 0;
}
