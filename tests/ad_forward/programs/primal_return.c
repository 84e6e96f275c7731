// enzyme_primal_return: the call returns {primal, tangent}.
#include "fd_check.h"
typedef struct { double primal, tangent; } Dual;
Dual __enzyme_fwddiff(void *, ...);

double f(double x) { return x * exp(x); }

int main(void) {
  double x = 0.7;
  Dual d = __enzyme_fwddiff((void *)f, enzyme_primal_return, x, 1.0);
  CHECK_CLOSE(d.primal, f(x), 1e-14);
  CHECK_CLOSE(d.tangent, fd1(f, x), FD_TOL);
  Dual e = __enzyme_fwddiff((void *)f, x, 2.0);  /* the struct return asks for both */
  CHECK_CLOSE(e.primal, f(x), 1e-14);
  CHECK_CLOSE(e.tangent, 2.0 * fd1(f, x), FD_TOL);
  printf("OK\n");
  return 0;
}
