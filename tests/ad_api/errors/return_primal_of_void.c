// EXPECT-ERROR: enzyme_primal_return: scale returns void
extern int enzyme_primal_return;
double __enzyme_autodiff(void *, ...);
void scale(double *x) { x[0] *= 2; }
int main(void) {
  double x = 1, dx = 1;
  return __enzyme_autodiff((void *)scale, enzyme_primal_return, &x, &dx) > 0;  // ERROR-LINE
}
