/* Every BLAS rule through CBLAS (row- and column-major, every transposition), double
 * and float, forward and reverse, with active and inactive operands: blas_check.h. */
#include <cblas.h>

#include "blas_check.h"

enum { M = 3, N = 4, K = 5 };

/* ---- level 1 (x in a, y in b, results in c[0], scalars in s) ---- */
#define LEVEL1(T, p)                                                                   \
  static void p##dot(T *a, T *b, T *c, T *s) {                                         \
    (void)s;                                                                           \
    c[0] = cblas_##p##dot(N, a, 2, b, 1) + cblas_##p##nrm2(N, b, 1);                   \
  }                                                                                    \
  static void p##axpy(T *a, T *b, T *c, T *s) {                                        \
    (void)c;                                                                           \
    cblas_##p##axpy(N, s[0], a, 1, b, 2);                                              \
  }                                                                                    \
  static void p##scal(T *a, T *b, T *c, T *s) {                                        \
    (void)b; (void)c;                                                                  \
    cblas_##p##scal(N, s[0], a, 2);                                                    \
  }                                                                                    \
  static void p##copy_swap(T *a, T *b, T *c, T *s) {                                   \
    (void)s;                                                                           \
    cblas_##p##copy(N, a, 1, c, 2);                                                    \
    cblas_##p##swap(N, a, 2, b, 1);                                                    \
  }                                                                                    \
  static void p##nrm2(T *a, T *b, T *c, T *s) {                                        \
    (void)b; (void)s;                                                                  \
    c[0] = cblas_##p##nrm2(N, a, 1) * cblas_##p##nrm2(N, a, 3);                        \
  }
LEVEL1(double, d)
LEVEL1(float, s)

/* ---- level 2/3: ld padded by one, every layout and transposition ---- */
#define LD(L, rows, cols) ((L) == CblasColMajor ? (rows) + 1 : (cols) + 1)
#define GEMV(T, p, L, TR, tag)                                                         \
  static void p##gemv_##tag(T *a, T *b, T *c, T *s) {                                  \
    cblas_##p##gemv(L, TR, M, N, s[0], a, LD(L, M, N), b, 1, s[1], c, 2);              \
  }
#define GER(T, p, L, tag)                                                              \
  static void p##ger_##tag(T *a, T *b, T *c, T *s) {                                   \
    cblas_##p##ger(L, M, N, s[0], a, 2, b, 1, c, LD(L, M, N));                          \
  }
#define GEMM(T, p, L, TA, TB, tag)                                                     \
  static void p##gemm_##tag(T *a, T *b, T *c, T *s) {                                  \
    int ra = (TA) == CblasNoTrans ? M : K, ca = (TA) == CblasNoTrans ? K : M;          \
    int rb = (TB) == CblasNoTrans ? K : N, cb = (TB) == CblasNoTrans ? N : K;          \
    cblas_##p##gemm(L, TA, TB, M, N, K, s[0], a, LD(L, ra, ca), b, LD(L, rb, cb), s[1], \
                    c, LD(L, M, N));                                                   \
  }
GEMV(double, d, CblasColMajor, CblasNoTrans, cn)
GEMV(double, d, CblasColMajor, CblasTrans, ct)
GEMV(double, d, CblasRowMajor, CblasNoTrans, rn)
GEMV(double, d, CblasRowMajor, CblasTrans, rt)
GEMV(float, s, CblasRowMajor, CblasTrans, rt)
GER(double, d, CblasColMajor, c)
GER(double, d, CblasRowMajor, r)
GER(float, s, CblasColMajor, c)
GEMM(double, d, CblasColMajor, CblasNoTrans, CblasNoTrans, cnn)
GEMM(double, d, CblasColMajor, CblasTrans, CblasNoTrans, ctn)
GEMM(double, d, CblasColMajor, CblasNoTrans, CblasTrans, cnt)
GEMM(double, d, CblasColMajor, CblasTrans, CblasTrans, ctt)
GEMM(double, d, CblasRowMajor, CblasNoTrans, CblasNoTrans, rnn)
GEMM(double, d, CblasRowMajor, CblasTrans, CblasTrans, rtt)
GEMM(double, d, CblasRowMajor, CblasNoTrans, CblasTrans, rnt)
GEMM(float, s, CblasColMajor, CblasTrans, CblasNoTrans, ctn)
GEMM(float, s, CblasRowMajor, CblasNoTrans, CblasTrans, rnt)

/* ---- symmetric and triangular (A in a, well conditioned: boost_*) ---- */
#define BOOST(T, step)                                                                 \
  static void boost##step##_##T(T x[4][NBUF]) {                                        \
    for (int i = 0; i < 6; i++) x[0][i * (step)] += 3;                                 \
  }
BOOST(double, 5)
BOOST(double, 6)
BOOST(float, 6)
static void dasum(double *a, double *b, double *c, double *s) {
  (void)b; (void)s;
  c[0] = cblas_dasum(N, a, 2) + cblas_dasum(N, a, 1);
}
#define SYMV(T, p, L, U, tag)                                                          \
  static void p##symv_##tag(T *a, T *b, T *c, T *s) {                                  \
    cblas_##p##symv(L, U, N, s[0], a, N + 1, b, 2, s[1], c, 1);                        \
  }
#define TRMV(T, p, r, L, U, TR, D, tag)                                                \
  static void p##r##_##tag(T *a, T *b, T *c, T *s) {                                   \
    (void)c; (void)s;                                                                  \
    cblas_##p##r(L, U, TR, D, N, a, N + 1, b, 2);                                      \
  }
#define SYMM(T, p, L, SD, U, tag)                                                      \
  static void p##symm_##tag(T *a, T *b, T *c, T *s) {                                  \
    int na = (SD) == CblasLeft ? M : N;                                                \
    cblas_##p##symm(L, SD, U, M, N, s[0], a, na + 1, b, LD(L, M, N), s[1], c, LD(L, M, N)); \
  }
#define SYRK(T, p, L, U, TR, tag)                                                      \
  static void p##syrk_##tag(T *a, T *b, T *c, T *s) {                                  \
    (void)b;                                                                           \
    int ra = (TR) == CblasNoTrans ? N : K, ca = (TR) == CblasNoTrans ? K : N;          \
    cblas_##p##syrk(L, U, TR, N, K, s[0], a, LD(L, ra, ca), s[1], c, N + 1);           \
  }
#define TR3(T, p, r, L, SD, U, TR, D, tag)                                             \
  static void p##r##_##tag(T *a, T *b, T *c, T *s) {                                   \
    (void)c;                                                                           \
    int na = (SD) == CblasLeft ? M : N;                                                \
    cblas_##p##r(L, SD, U, TR, D, M, N, s[0], a, na + 1, b, LD(L, M, N));              \
  }
SYMV(double, d, CblasColMajor, CblasUpper, cu)
SYMV(double, d, CblasRowMajor, CblasLower, rl)
SYMV(float, s, CblasColMajor, CblasLower, cl)
TRMV(double, d, trmv, CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, clnu)
TRMV(double, d, trmv, CblasRowMajor, CblasUpper, CblasTrans, CblasNonUnit, rutn)
TRMV(double, d, trsv, CblasColMajor, CblasUpper, CblasTrans, CblasNonUnit, cutn)
TRMV(double, d, trsv, CblasRowMajor, CblasLower, CblasNoTrans, CblasUnit, rlnu)
TRMV(float, s, trsv, CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, clnn)
SYMM(double, d, CblasColMajor, CblasLeft, CblasUpper, clu)
SYMM(double, d, CblasRowMajor, CblasRight, CblasLower, rrl)
SYRK(double, d, CblasColMajor, CblasLower, CblasNoTrans, cln)
SYRK(double, d, CblasRowMajor, CblasUpper, CblasTrans, rut)
TR3(double, d, trmm, CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, cllnn)
TR3(double, d, trmm, CblasRowMajor, CblasRight, CblasUpper, CblasTrans, CblasUnit, rrutu)
TR3(double, d, trsm, CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, clutn)
TR3(double, d, trsm, CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasUnit, crlnu)
TR3(double, d, trsm, CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, rllnn)
TR3(float, s, trsm, CblasRowMajor, CblasRight, CblasUpper, CblasTrans, CblasNonUnit, rrutn)

/* a BLAS call two calls deep, in a loop (caching of the overwritten C) */
static void dgemm_deep(double *a, double *b, double *c, double *s) {
  for (int it = 0; it < 2; it++) dgemm_cnn(a, b, c, s);
}
__attribute__((noinline)) static void dgemm_inner(double *a, double *b, double *c,
                                                   double *s) {
  dgemm_deep(a, b, c, s);
  cblas_dscal(M * N, 0.5, c, 1);
}

PATTERN(double, ddot, dup, dup, dup, const)
PATTERN(double, ddot, const, dup, dup, const)
PATTERN(double, daxpy, dup, dup, const, dup)
PATTERN(double, daxpy, const, dup, const, const)
PATTERN(double, dscal, dup, const, const, dup)
PATTERN(double, dscal, dup, const, const, const)
PATTERN(double, dcopy_swap, dup, dup, dup, const)
PATTERN(double, dnrm2, dup, const, dup, const)
PATTERN(float, sdot, dup, dup, dup, const)
PATTERN(float, saxpy, dup, dup, const, dup)
PATTERN(float, sscal, dup, const, const, dup)
PATTERN(float, scopy_swap, dup, dup, dup, const)
PATTERN(float, snrm2, dup, const, dup, const)
PATTERN(double, dgemv_cn, dup, dup, dup, dup)
PATTERN(double, dgemv_ct, const, dup, dup, dup)
PATTERN(double, dgemv_rn, dup, const, dup, const)
PATTERN(double, dgemv_rt, dup, dup, dup, dup)
PATTERN(float, sgemv_rt, dup, dup, dup, dup)
PATTERN(double, dger_c, dup, dup, dup, dup)
PATTERN(double, dger_r, const, dup, dup, const)
PATTERN(float, sger_c, dup, dup, dup, dup)
PATTERN(double, dgemm_cnn, dup, dup, dup, dup)
PATTERN(double, dgemm_cnn, const, dup, dup, const)
PATTERN(double, dgemm_ctn, dup, const, dup, dup)
PATTERN(double, dgemm_cnt, dup, dup, dup, const)
PATTERN(double, dgemm_ctt, dup, dup, dup, dup)
PATTERN(double, dgemm_rnn, dup, dup, dup, dup)
PATTERN(double, dgemm_rtt, dup, const, dup, dup)
PATTERN(double, dgemm_rnt, const, dup, dup, dup)
PATTERN(float, sgemm_ctn, dup, dup, dup, dup)
PATTERN(float, sgemm_rnt, dup, dup, dup, dup)
PATTERN(double, dgemm_inner, dup, dup, dup, dup)
PATTERN(double, dasum, dup, const, dup, const)
PATTERN(double, dsymv_cu, dup, dup, dup, dup)
PATTERN(double, dsymv_rl, const, dup, dup, const)
PATTERN(float, ssymv_cl, dup, dup, dup, dup)
PATTERN(double, dtrmv_clnu, dup, dup, const, const)
PATTERN(double, dtrmv_rutn, dup, dup, const, const)
PATTERN(double, dtrsv_cutn, dup, dup, const, const)
PATTERN(double, dtrsv_rlnu, const, dup, const, const)
PATTERN(float, strsv_clnn, dup, dup, const, const)
PATTERN(double, dsymm_clu, dup, dup, dup, dup)
PATTERN(double, dsymm_rrl, dup, const, dup, const)
PATTERN(double, dsyrk_cln, dup, const, dup, dup)
PATTERN(double, dsyrk_rut, dup, const, dup, dup)
PATTERN(double, dtrmm_cllnn, dup, dup, const, dup)
PATTERN(double, dtrmm_rrutu, dup, dup, const, const)
PATTERN(double, dtrsm_clutn, dup, dup, const, dup)
PATTERN(double, dtrsm_crlnu, dup, dup, const, dup)
PATTERN(double, dtrsm_rllnn, const, dup, const, dup)
PATTERN(float, strsm_rrutn, dup, dup, const, dup)

int main(void) {
  CHECK(double, "cblas_ddot+dnrm2", ddot, dup, dup, dup, const, NULL);
  CHECK(double, "cblas_ddot const x", ddot, const, dup, dup, const, NULL);
  CHECK(double, "cblas_daxpy", daxpy, dup, dup, const, dup, NULL);
  CHECK(double, "cblas_daxpy const x, alpha", daxpy, const, dup, const, const, NULL);
  CHECK(double, "cblas_dscal", dscal, dup, const, const, dup, NULL);
  CHECK(double, "cblas_dscal const alpha", dscal, dup, const, const, const, NULL);
  CHECK(double, "cblas_dcopy+dswap", dcopy_swap, dup, dup, dup, const, NULL);
  CHECK(double, "cblas_dnrm2", dnrm2, dup, const, dup, const, NULL);
  CHECK(float, "cblas_sdot+snrm2", sdot, dup, dup, dup, const, NULL);
  CHECK(float, "cblas_saxpy", saxpy, dup, dup, const, dup, NULL);
  CHECK(float, "cblas_sscal", sscal, dup, const, const, dup, NULL);
  CHECK(float, "cblas_scopy+sswap", scopy_swap, dup, dup, dup, const, NULL);
  CHECK(float, "cblas_snrm2", snrm2, dup, const, dup, const, NULL);
  CHECK(double, "cblas_dgemv col N", dgemv_cn, dup, dup, dup, dup, NULL);
  CHECK(double, "cblas_dgemv col T const A", dgemv_ct, const, dup, dup, dup, NULL);
  CHECK(double, "cblas_dgemv row N const x,s", dgemv_rn, dup, const, dup, const, NULL);
  CHECK(double, "cblas_dgemv row T", dgemv_rt, dup, dup, dup, dup, NULL);
  CHECK(float, "cblas_sgemv row T", sgemv_rt, dup, dup, dup, dup, NULL);
  CHECK(double, "cblas_dger col", dger_c, dup, dup, dup, dup, NULL);
  CHECK(double, "cblas_dger row const x,alpha", dger_r, const, dup, dup, const, NULL);
  CHECK(float, "cblas_sger col", sger_c, dup, dup, dup, dup, NULL);
  CHECK(double, "cblas_dgemm col NN", dgemm_cnn, dup, dup, dup, dup, NULL);
  CHECK(double, "cblas_dgemm col NN const A,s", dgemm_cnn, const, dup, dup, const, NULL);
  CHECK(double, "cblas_dgemm col TN const B", dgemm_ctn, dup, const, dup, dup, NULL);
  CHECK(double, "cblas_dgemm col NT const s", dgemm_cnt, dup, dup, dup, const, NULL);
  CHECK(double, "cblas_dgemm col TT", dgemm_ctt, dup, dup, dup, dup, NULL);
  CHECK(double, "cblas_dgemm row NN", dgemm_rnn, dup, dup, dup, dup, NULL);
  CHECK(double, "cblas_dgemm row TT const B", dgemm_rtt, dup, const, dup, dup, NULL);
  CHECK(double, "cblas_dgemm row NT const A", dgemm_rnt, const, dup, dup, dup, NULL);
  CHECK(float, "cblas_sgemm col TN", sgemm_ctn, dup, dup, dup, dup, NULL);
  CHECK(float, "cblas_sgemm row NT", sgemm_rnt, dup, dup, dup, dup, NULL);
  CHECK(double, "cblas_dgemm in a loop, a call deeper", dgemm_inner, dup, dup, dup, dup,
        NULL);
  CHECK(double, "cblas_dasum", dasum, dup, const, dup, const, NULL);
  CHECK(double, "cblas_dsymv col U", dsymv_cu, dup, dup, dup, dup, NULL);
  CHECK(double, "cblas_dsymv row L const A,s", dsymv_rl, const, dup, dup, const, NULL);
  CHECK(float, "cblas_ssymv col L", ssymv_cl, dup, dup, dup, dup, NULL);
  CHECK(double, "cblas_dtrmv col L N unit", dtrmv_clnu, dup, dup, const, const, NULL);
  CHECK(double, "cblas_dtrmv row U T", dtrmv_rutn, dup, dup, const, const, NULL);
  CHECK(double, "cblas_dtrsv col U T", dtrsv_cutn, dup, dup, const, const, boost6_double);
  CHECK(double, "cblas_dtrsv row L N unit const A", dtrsv_rlnu, const, dup, const, const,
        boost6_double);
  CHECK(float, "cblas_strsv col L N", strsv_clnn, dup, dup, const, const, boost6_float);
  CHECK(double, "cblas_dsymm col left U", dsymm_clu, dup, dup, dup, dup, NULL);
  CHECK(double, "cblas_dsymm row right L const B,s", dsymm_rrl, dup, const, dup, const, NULL);
  CHECK(double, "cblas_dsyrk col L N", dsyrk_cln, dup, const, dup, dup, NULL);
  CHECK(double, "cblas_dsyrk row U T", dsyrk_rut, dup, const, dup, dup, NULL);
  CHECK(double, "cblas_dtrmm col left L N", dtrmm_cllnn, dup, dup, const, dup, NULL);
  CHECK(double, "cblas_dtrmm row right U T unit", dtrmm_rrutu, dup, dup, const, const, NULL);
  CHECK(double, "cblas_dtrsm col left U T", dtrsm_clutn, dup, dup, const, dup, boost5_double);
  CHECK(double, "cblas_dtrsm col right L N unit", dtrsm_crlnu, dup, dup, const, dup,
        boost6_double);
  CHECK(double, "cblas_dtrsm row left L N const A", dtrsm_rllnn, const, dup, const, dup,
        boost5_double);
  CHECK(float, "cblas_strsm row right U T", strsm_rrutn, dup, dup, const, dup, boost6_float);
  return check_done();
}
