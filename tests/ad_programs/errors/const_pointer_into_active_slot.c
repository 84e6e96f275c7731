// EXPECT-ERROR: runtime activity
// An enzyme_const pointer stored into memory that also holds an active pointer: the
// slot has a shadow, but the constant pointer has none, so whatever the callee reads
// through rows[1] would get a made-up derivative. Enzyme calls this runtime activity.
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) static double sum_rows(const double **rows, int n) {
  double s = 0.0;
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < n; i++) s += rows[r][i] * rows[r][i];
  return s;
}

double f(double *x, const double *k, int n) {
  const double *rows[2];
  rows[0] = x;
  rows[1] = k;
  return sum_rows(rows, n);
}

int main(void) {
  double x[3] = {1, 2, 3}, dx[3] = {0}, k[3] = {4, 5, 6};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, k, enzyme_const, 3);
  return dx[0] == 2.0 ? 0 : 1;
}
