// Fortran BLAS called the ILP64 way (64-bit integers by reference, as a code built with
// -fdefault-integer-8 or against MKL's ilp64 layer does): refused with the call's line,
// since the rules read Fortran integers as 32-bit. With INT = int the same program is the
// LP64 call and differentiates.
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
extern void dscal_(const INT *n, const double *alpha, double *x, const INT *incx);

void scale(double *x, double alpha) {
  INT n = 3, inc = 1;
  dscal_(&n, &alpha, x, &inc);  // ERROR-LINE
}

int main(void) {
  double x[3] = {1.0, 2.0, 3.0}, dx[3] = {1.0, 1.0, 1.0};
  __enzyme_autodiff((void *)scale, enzyme_dup, x, dx, enzyme_const, 2.0);
  printf("%g %g %g\n", dx[0], dx[1], dx[2]);
  return !(dx[0] == 2.0 && dx[1] == 2.0 && dx[2] == 2.0);
}
