// EXPECT-ERROR: enzyme_width (vector mode) is not supported in split mode
extern int enzyme_width;
void *__enzyme_augmentfwd(void *, ...);
void twice(const double *x, double *y) { y[0] = 2 * x[0]; }
int main(void) {
  double x = 1, dx[2], y, dy[2];
  return __enzyme_augmentfwd((void *)twice, enzyme_width, 2, &x, &dx[0], &dx[1], &y, &dy[0], &dy[1]) != 0;  // ERROR-LINE
}
