// EXPECT-ERROR: shadow
// A duplicated pointer without its shadow: the next argument (an int) cannot be the shadow.
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

double sum(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i];
  return s;
}

int main(void) {
  double x[3] = {1.0, 2.0, 3.0};
  __enzyme_autodiff((void *)sum, enzyme_dup, x, 3);
  return 0;
}
