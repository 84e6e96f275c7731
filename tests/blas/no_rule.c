/* A BLAS routine without a derivative rule on an active path: irgrad says which and
 * where, in reverse mode and (with -DFORWARD) in forward mode (test_blas_errors.py). */
#include <cblas.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

void rank2k(const double *A, const double *B, double *C) {
  cblas_dsyr2k(CblasColMajor, CblasLower, CblasNoTrans, 3, 2, 1.0, A, 3, B, 3, 0.0, C, 3);
}

#ifndef FORWARD
void gradient(double *A, double *dA, double *B, double *dB, double *C, double *dC) {
  __enzyme_autodiff((void *)rank2k, enzyme_dup, A, dA, enzyme_dup, B, dB, enzyme_dup, C, dC);
}

#else
void tangent(double *A, double *dA, double *B, double *dB, double *C, double *dC) {
  __enzyme_fwddiff((void *)rank2k, enzyme_dup, A, dA, enzyme_dup, B, dB, enzyme_dup, C, dC);
}
#endif

int main(void) { return 0; }
