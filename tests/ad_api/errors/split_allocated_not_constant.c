// EXPECT-ERROR: enzyme_allocated must be followed by a constant tape size in bytes
#include <math.h>
extern int enzyme_allocated, enzyme_tape;
void __enzyme_augmentfwd(void *, ...);
void f(double *x) { x[0] = sin(x[0]) * x[0]; }
void run(double *x, double *dx, char *buf, int n) {
  __enzyme_augmentfwd((void *)f, enzyme_allocated, n, enzyme_tape, buf, x, dx);  // ERROR-LINE
}
int main(void) { return 0; }
