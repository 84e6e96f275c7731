// Two active scalars: reverse mode returns a struct of both derivatives, in order.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_out;
typedef struct {
  double dx, dy;
} Grad2;
Grad2 __enzyme_autodiff(void *, ...);

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

double f(double x, double y) { return x * x * y + sin(x * y); }

int main(void) {
  double x = 0.8, y = -1.3;
  Grad2 g = __enzyme_autodiff((void *)f, enzyme_out, x, enzyme_out, y);
  APPROX_EQ(g.dx, 2.0 * x * y + y * cos(x * y), 1e-12);
  APPROX_EQ(g.dy, x * x + x * cos(x * y), 1e-12);
  Grad2 g2 = __enzyme_autodiff((void *)f, x, y);  // unmarked doubles are active too
  APPROX_EQ(g2.dx, g.dx, 1e-15);
  APPROX_EQ(g2.dy, g.dy, 1e-15);
  printf("OK\n");
  return 0;
}
