// EXPECT-ERROR: shadow
// enzyme_dup followed by a double where the pointer's shadow must be.
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

double first(const double *x, int n) { return x[0] * n; }

int main(void) {
  double x[1] = {1.0};
  __enzyme_autodiff((void *)first, enzyme_dup, x, 1.0, 1);
  return 0;
}
