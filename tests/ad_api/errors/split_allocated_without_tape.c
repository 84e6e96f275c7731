// EXPECT-ERROR: enzyme_allocated, N needs enzyme_tape, p
#include <math.h>
extern int enzyme_allocated;
void *__enzyme_augmentfwd(void *, ...);
void f(double *x) { x[0] = sin(x[0]) * x[0]; }
int main(void) {
  double x = 1, dx = 0;
  return __enzyme_augmentfwd((void *)f, enzyme_allocated, 64, &x, &dx) != 0;  // ERROR-LINE
}
