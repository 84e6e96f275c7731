// EXPECT-ERROR: Insufficient tape allocation size: need
#include <math.h>
extern int enzyme_allocated, enzyme_tape;
void __enzyme_reverse(void *, ...);
void f(double *x) { x[0] = sin(x[0]) * x[0]; }
void f_rev(double *x, double *dx, void *tape) {
  __enzyme_reverse((void *)f, x, dx, enzyme_allocated, 1, enzyme_tape, tape);  // ERROR-LINE
}
int main(void) { return 0; }
