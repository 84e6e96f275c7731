// EXPECT-ERROR: unknown marker enzyme_dupnoned
extern int enzyme_dupnoned;
double __enzyme_autodiff(void *, ...);
double sum(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i]; return s; }
int main(void) {
  double x[2] = {1, 2}, dx[2] = {0};
  __enzyme_autodiff((void *)sum, enzyme_dupnoned, x, dx, 2);  // ERROR-LINE
  return (int)dx[0];
}
