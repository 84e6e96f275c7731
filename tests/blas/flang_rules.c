/* BLAS called from Fortran source (flang-22: by reference, hidden string lengths after
 * the arguments), differentiated through bind(C) kernels (LAPACK's getrf + getri with
 * its workspace query in the second): blas_check.h. */
#include "blas_check.h"

void fkernel(double *a, double *b, double *c, double *s);
void finverse(double *a, double *b, double *c, double *s);

PATTERN(double, fkernel, dup, dup, dup, dup)
PATTERN(double, fkernel, const, dup, dup, const)
PATTERN(double, fkernel, dup, const, dup, dup)
PATTERN(double, finverse, dup, dup, const, const)

int main(void) {
  CHECK(double, "flang dgemm+dsyrk+dtrmv", fkernel, dup, dup, dup, dup, NULL);
  CHECK(double, "flang ... const A, s", fkernel, const, dup, dup, const, NULL);
  CHECK(double, "flang ... const B", fkernel, dup, const, dup, dup, NULL);
  CHECK(double, "flang dgetrf+dgetri (query)", finverse, dup, dup, const, const, NULL);
  return check_done();
}
