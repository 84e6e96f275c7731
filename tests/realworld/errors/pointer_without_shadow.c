// EXPECT-ERROR: no shadow for pointer `
// A row pointer read from an enzyme_const table of rows, mixed with an active row: the
// derivative would be read and written through a pointer that has no shadow. The message
// shows the IR of the pointer and the source line (not an internal object).
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double weighted(const double *row, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += row[i] * row[i];
  return s;
}
double f(double *x, double *const *rows, int pick, int n) {
  double *r = pick ? x : rows[pick + 1]; // ERROR-LINE
  return weighted(r, n);
}
int main(void) {
  double x[3] = {1, 2, 3}, dx[3] = {0}, a[3] = {4, 5, 6};
  double *rows[2] = {a, a};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, rows, enzyme_const, 1,
                    enzyme_const, 3);
  return dx[0] == 2.0 ? 0 : 1;
}
