// EXPECT-ERROR: which needs bump not to read memory it writes
extern int enzyme_width;
void __enzyme_autodiff(void *, ...);
void bump(double *x, int n) { for (int i = 0; i < n; i++) x[i] = x[i] * x[i] + 1; }
int main(void) {
  double x[2] = {1, 2}, d0[2] = {1, 0}, d1[2] = {0, 1};
  __enzyme_autodiff((void *)bump, enzyme_width, 2, x, d0, d1, 2);  // ERROR-LINE
  return (int)d0[0];
}
