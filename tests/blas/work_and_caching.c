/* Input of test_blas_golden.py: which adjoint work and which tape copies the BLAS rules
 * emit, by activity and by whether an input is overwritten after the call. */
#include <cblas.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
double __enzyme_autodiff_d(void *, ...);

/* A and B are read only: nothing overwrites them after the call */
void kept(const double *A, const double *B, double *C) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 3, 3, 3, 1.0, A, 3, B, 3, 0.0, C, 3);
}
/* B is scaled after the call (A, restrict, cannot alias it) */
void overwritten(const double *restrict A, double *restrict B, double *restrict C) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 3, 3, 3, 1.0, A, 3, B, 3, 0.0, C, 3);
  cblas_dscal(9, 2.0, B, 1);
}
/* an active alpha */
void scaled(double alpha, const double *A, const double *B, double *C) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 3, 3, 3, alpha, A, 3, B, 3, 0.0, C,
              3);
}

void grad_kept_const_a(double *A, double *B, double *dB, double *C, double *dC) {
  __enzyme_autodiff((void *)kept, enzyme_const, A, enzyme_dup, B, dB, enzyme_dup, C, dC);
}
void grad_overwritten(double *A, double *dA, double *B, double *dB, double *C, double *dC) {
  __enzyme_autodiff((void *)overwritten, enzyme_dup, A, dA, enzyme_dup, B, dB, enzyme_dup, C,
                    dC);
}
double grad_scaled(double alpha, double *A, double *dA, double *B, double *dB, double *C,
                   double *dC) {
  return __enzyme_autodiff_d((void *)scaled, enzyme_out, alpha, enzyme_dup, A, dA, enzyme_dup,
                             B, dB, enzyme_dup, C, dC);
}
