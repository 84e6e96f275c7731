/* BLAS derivatives in the other modes: vector forward mode (enzyme_width 2) against two
 * width-1 forward passes, and split reverse mode (__enzyme_augmentfwd, then the caller
 * overwrites the inputs, then __enzyme_reverse with the tape) against the combined
 * __enzyme_autodiff on untouched inputs; memory typed only by a BLAS call; a BLAS routine
 * as the function the entry point differentiates; getrf + getri (with its workspace query)
 * in both. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_width, enzyme_dup, enzyme_const, enzyme_out;
typedef struct { double d[2]; } Lanes;
Lanes __enzyme_fwddiff_lanes(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
void __enzyme_autodiff(void *, ...);
extern void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                   const double *alpha, const double *a, const int *lda, const double *b,
                   const int *ldb, const double *beta, double *c, const int *ldc);

extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv,
                    int *info);
extern void dgetri_(const int *n, double *a, const int *lda, const int *ipiv, double *work,
                    const int *lwork, int *info);

static int failures = 0;
static void check(const char *what, double got, double want) {
  int bad = fabs(got - want) > 1e-10 * (1 + fabs(want)) || fabs(want) < 1e-8;
  printf("%-40s %.15g %.15g%s\n", what, got, want, bad ? "  MISMATCH" : "");
  failures += bad;
}

/* y = A x (4x3, row-major), C = 0.5 A^T A (Fortran), return <y, y> * alpha + nrm2(C) */
double model(double alpha, const double *A, const double *x, double *y, double *C) {
  const int three = 3, four = 4;
  const double half = 0.5, zero = 0.0;
  cblas_dgemv(CblasRowMajor, CblasNoTrans, 4, 3, 1.0, A, 3, x, 1, 0.0, y, 1);
  dgemm_("N", "T", &three, &three, &four, &half, A, &three, A, &three, &zero, C, &three);
  return alpha * cblas_ddot(4, y, 1, y, 1) + cblas_dnrm2(9, C, 1);
}

/* in place: B := alpha A B (gemm into a scratch, copied back), returns sum */
void step(const double *A, double *B, double *out) {
  double T[6];
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 3, 2, 1.5, A, 2, B, 2, 0.0, T, 2);
  cblas_dcopy(6, T, 1, B, 1);
  out[0] = cblas_ddot(6, B, 1, B, 1);
}

/* memory copied byte by byte whose only typed use is a BLAS call: the type analysis
 * learns from the call that it holds doubles */
__attribute__((noinline)) static void copy_bytes(void *dst, const void *src, size_t n) {
  memcpy(dst, src, n);
}
double through_bytes(const double *x, int n) {
  double tmp[8];
  copy_bytes(tmp, x, n * sizeof(double));
  return cblas_ddot(n, tmp, 1, tmp, 1);
}

/* A := A^-1 in place (getrf, workspace query, getri); out = a weighted sum of A^-1 */
void invert(double *A, double *out) {
  const int n = 3;
  int ipiv[3], info, lwork = -1;
  double wkopt;
  dgetrf_(&n, &n, A, &n, ipiv, &info);
  dgetri_(&n, A, &n, ipiv, &wkopt, &lwork, &info);
  lwork = (int)wkopt;
  double *work = malloc(sizeof(double) * (size_t)lwork);
  dgetri_(&n, A, &n, ipiv, work, &lwork, &info);
  free(work);
  out[0] = 0;
  for (int i = 0; i < 9; i++) out[0] += A[i] * (1.0 + 0.25 * i);
}
double inverse_sum(double *A) {
  double out;
  invert(A, &out);
  return out;
}

static void check_getri_modes(void) {
  const double A0[9] = {2.0, 0.3, -0.4, 0.5, 1.5, 0.2, -0.1, 0.6, 1.8};
  double A[9], dA0[9], dA1[9];
  memcpy(A, A0, sizeof A);
  for (int i = 0; i < 9; i++) { dA0[i] = cos(1.0 + i); dA1[i] = 0.1 * i - 0.3; }
  Lanes r = __enzyme_fwddiff_lanes((void *)inverse_sum, enzyme_width, 2, enzyme_dup, A, dA0,
                                   dA1);
  for (int lane = 0; lane < 2; lane++) {
    double B[9], t[9];
    memcpy(B, A0, sizeof B);
    for (int i = 0; i < 9; i++) t[i] = lane ? 0.1 * i - 0.3 : cos(1.0 + i);
    double one = __enzyme_fwddiff((void *)inverse_sum, enzyme_dup, B, t);
    check(lane ? "getri width 2, lane 1" : "getri width 2, lane 0", r.d[lane], one);
    check("  tangent of A^-1[5]", (lane ? dA1 : dA0)[5], t[5]);
  }
  /* split: the caller overwrites A (which holds A^-1) between the passes */
  double A2[9], A3[9], dA2[9] = {0}, dA3[9] = {0}, out2[1], out3[1], dout2[1] = {1.0},
         dout3[1] = {1.0};
  memcpy(A2, A0, sizeof A2);
  memcpy(A3, A0, sizeof A3);
  void *tape = __enzyme_augmentfwd((void *)invert, enzyme_dup, A2, dA2, enzyme_dup, out2,
                                   dout2);
  for (int i = 0; i < 9; i++) A2[i] = 99.0;
  __enzyme_reverse((void *)invert, enzyme_dup, A2, dA2, enzyme_dup, out2, dout2, tape);
  __enzyme_autodiff((void *)invert, enzyme_dup, A3, dA3, enzyme_dup, out3, dout3);
  for (int i = 0; i < 9; i++) check("getri split: dA", dA2[i], dA3[i]);
}

int main(void) {
  double A[12], x[3], y[4], C[9], dA0[12], dA1[12], dx0[3], dx1[3], dy0[4], dy1[4], dC0[9],
      dC1[9];
  for (int i = 0; i < 12; i++) { A[i] = sin(1.0 + i); dA0[i] = cos(2.0 * i); dA1[i] = 0.1 * i; }
  for (int i = 0; i < 3; i++) { x[i] = 0.3 * i - 0.2; dx0[i] = 1.0; dx1[i] = -0.5 * i; }
  Lanes r = __enzyme_fwddiff_lanes((void *)model, enzyme_width, 2, 0.7, 1.0, 0.0, enzyme_dup,
                                   A, dA0, dA1, enzyme_dup, x, dx0, dx1, enzyme_dup, y, dy0,
                                   dy1, enzyme_dup, C, dC0, dC1);
  for (int lane = 0; lane < 2; lane++) {
    double t[12], tx[3], ty[4], tC[9];
    for (int i = 0; i < 12; i++) t[i] = lane ? 0.1 * i : cos(2.0 * i);
    for (int i = 0; i < 3; i++) tx[i] = lane ? -0.5 * i : 1.0;
    double one = __enzyme_fwddiff((void *)model, 0.7, lane ? 0.0 : 1.0, enzyme_dup, A, t,
                                  enzyme_dup, x, tx, enzyme_dup, y, ty, enzyme_dup, C, tC);
    check(lane ? "width 2, lane 1" : "width 2, lane 0", r.d[lane], one);
    check("  tangent of y[3]", (lane ? dy1 : dy0)[3], ty[3]);
    check("  tangent of C[4]", (lane ? dC1 : dC0)[4], tC[4]);
  }

  /* split mode: the caller overwrites A and B between the passes */
  double A2[4] = {1.0, 0.5, -0.3, 2.0}, B2[6] = {0.2, -1.0, 0.7, 0.4, 1.1, -0.6}, out[1];
  double dA2[4] = {0}, dB2[6] = {0}, dout[1] = {1.0};
  double A3[4], B3[6], dA3[4] = {0}, dB3[6] = {0}, out3[1], dout3[1] = {1.0};
  memcpy(A3, A2, sizeof A3);
  memcpy(B3, B2, sizeof B3);
  void *tape = __enzyme_augmentfwd((void *)step, enzyme_dup, A2, dA2, enzyme_dup, B2, dB2,
                                   enzyme_dup, out, dout);
  double saved_out = out[0];
  for (int i = 0; i < 4; i++) A2[i] = 99.0;
  for (int i = 0; i < 6; i++) B2[i] = -99.0;
  __enzyme_reverse((void *)step, enzyme_dup, A2, dA2, enzyme_dup, B2, dB2, enzyme_dup, out,
                   dout, tape);
  __enzyme_autodiff((void *)step, enzyme_dup, A3, dA3, enzyme_dup, B3, dB3, enzyme_dup, out3,
                    dout3);
  check("split: primal", saved_out, out3[0]);
  double xb[4] = {1, 2, 3, 4}, dxb[4] = {0};
  __enzyme_autodiff((void *)through_bytes, enzyme_dup, xb, dxb, enzyme_const, 4);
  check("ddot of bytes copied by memcpy", dxb[3], 8.0);

  /* a BLAS routine itself as the function to differentiate */
  double u[3] = {1, 2, 3}, w[3] = {4, 5, 6}, du[3] = {0}, dw[3] = {0}, tu[3] = {1, 1, 1},
         tw[3] = {0};
  __enzyme_autodiff((void *)cblas_ddot, enzyme_const, 3, enzyme_dup, u, du, enzyme_const, 1,
                    enzyme_dup, w, dw, enzyme_const, 1);
  check("__enzyme_autodiff(cblas_ddot): du[2]", du[2], 6.0);
  check("__enzyme_autodiff(cblas_ddot): dw[2]", dw[2], 3.0);
  check("__enzyme_fwddiff(cblas_ddot)",
        __enzyme_fwddiff((void *)cblas_ddot, enzyme_const, 3, enzyme_dup, u, tu, enzyme_const,
                         1, enzyme_dup, w, tw, enzyme_const, 1), 15.0);
  for (int i = 0; i < 4; i++) check("split: dA", dA2[i], dA3[i]);
  for (int i = 0; i < 6; i++) check("split: dB", dB2[i], dB3[i]);
  check_getri_modes();
  if (failures) {
    printf("%d mismatches\n", failures);
    fflush(stdout);
    abort();
  }
  puts("OK");
  return 0;
}
