/* One least-squares misfit, f(x) = sum_i ((A x)_i - b_i)^2, written the ways C code writes a
   matrix-vector product: row dot products, column axpys over column-major storage, pointers
   walking the rows, a reference-BLAS style dgemv/ddot pair, and an out-of-place product into
   a caller's vector summed by a second function. Each is its own differentiated function
   (gradient w.r.t. x; A and b constant); the first argument picks the variant. */
#include <string.h>
#include "bench_timing.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

/* 1. row dot products, row-major A, no product vector */
double ls_rowdot(const double *a, const double *x, const double *b, int m, int n) {
  double f = 0.0;
  for (int i = 0; i < m; i++) {
    double s = 0.0;
    for (int j = 0; j < n; j++) s += a[i * n + j] * x[j];
    f += (s - b[i]) * (s - b[i]);
  }
  return f;
}

/* 2. column axpys into a scratch residual, column-major A (Fortran order) */
double ls_colaxpy(const double *at, const double *x, const double *b, int m, int n) {
  double *r = malloc(sizeof(double) * m);
  for (int i = 0; i < m; i++) r[i] = -b[i];
  for (int j = 0; j < n; j++) {
    const double *col = at + (size_t)j * m;
    double xj = x[j];
    for (int i = 0; i < m; i++) r[i] += col[i] * xj;
  }
  double f = 0.0;
  for (int i = 0; i < m; i++) f += r[i] * r[i];
  free(r);
  return f;
}

/* 3. pointers walking the rows of A, x and b */
double ls_ptrwalk(const double *a, const double *x, const double *b, int m, int n) {
  double f = 0.0;
  const double *row = a, *end = a + (size_t)m * n, *bp = b;
  while (row < end) {
    const double *xp = x, *rend = row + n;
    double s = 0.0;
    while (row < rend) s += *row++ * *xp++;
    double r = s - *bp++;
    f += r * r;
  }
  return f;
}

/* 4. reference-BLAS style: y := alpha*op(A)*x + beta*y on column-major storage, strides */
static void dgemv(char trans, int m, int n, double alpha, const double *a, int lda,
                  const double *x, int incx, double beta, double *y, int incy) {
  int leny = (trans == 'N' || trans == 'n') ? m : n;
  int lenx = (trans == 'N' || trans == 'n') ? n : m;
  if (m == 0 || n == 0 || (alpha == 0.0 && beta == 1.0)) return;
  int kx = incx > 0 ? 0 : -(lenx - 1) * incx, ky = incy > 0 ? 0 : -(leny - 1) * incy;
  if (beta != 1.0) {
    for (int i = 0, iy = ky; i < leny; i++, iy += incy) y[iy] = beta == 0.0 ? 0.0 : beta * y[iy];
  }
  if (alpha == 0.0) return;
  if (trans == 'N' || trans == 'n') {
    for (int j = 0, jx = kx; j < n; j++, jx += incx) {
      double temp = alpha * x[jx];
      for (int i = 0, iy = ky; i < m; i++, iy += incy) y[iy] += temp * a[i + j * lda];
    }
  } else {
    for (int j = 0, jy = ky; j < n; j++, jy += incy) {
      double temp = 0.0;
      for (int i = 0, ix = kx; i < m; i++, ix += incx) temp += a[i + j * lda] * x[ix];
      y[jy] += alpha * temp;
    }
  }
}

static double ddot(int n, const double *x, int incx, const double *y, int incy) {
  double s = 0.0;
  if (incx == 1 && incy == 1) {
    int r = n % 5;
    for (int i = 0; i < r; i++) s += x[i] * y[i];
    for (int i = r; i < n; i += 5)
      s += x[i] * y[i] + x[i + 1] * y[i + 1] + x[i + 2] * y[i + 2] + x[i + 3] * y[i + 3] +
           x[i + 4] * y[i + 4];
    return s;
  }
  for (int i = 0, ix = 0, iy = 0; i < n; i++, ix += incx, iy += incy) s += x[ix] * y[iy];
  return s;
}

double ls_gemv(const double *a, const double *x, const double *b, int m, int n) {
  double *r = malloc(sizeof(double) * m);
  memcpy(r, b, sizeof(double) * m);
  /* row-major m x n is column-major n x m: op = transpose, lda = n */
  dgemv('T', n, m, 1.0, a, n, x, 1, -1.0, r, 1);
  double f = ddot(m, r, 1, r, 1);
  free(r);
  return f;
}

/* 5. out-of-place product into the caller's vector, then a second pass */
static void matvec(const double *a, const double *x, double *y, int m, int n) {
  for (int i = 0; i < m; i++) {
    y[i] = 0.0;
    for (int j = 0; j < n; j++) y[i] += a[i * n + j] * x[j];
  }
}

static double misfit(const double *y, const double *b, int m) {
  double f = 0.0;
  for (int i = 0; i < m; i++) f += (y[i] - b[i]) * (y[i] - b[i]);
  return f;
}

double ls_outvec(const double *a, const double *x, double *y, const double *b, int m, int n) {
  matvec(a, x, y, m, n);
  return misfit(y, b, m);
}

enum { ROWDOT, COLAXPY, PTRWALK, GEMV, OUTVEC, NVARIANT };
static const char *NAMES[NVARIANT] = {"rowdot", "colaxpy", "ptrwalk", "gemv", "outvec"};

static int V, M, N;
static double *A, *AT, *X, *dX, *B, *Y, *dY, *TX;
static volatile double sink;

static double objective(void) {
  switch (V) {
  case ROWDOT: return ls_rowdot(A, X, B, M, N);
  case COLAXPY: return ls_colaxpy(AT, X, B, M, N);
  case PTRWALK: return ls_ptrwalk(A, X, B, M, N);
  case GEMV: return ls_gemv(A, X, B, M, N);
  default: return ls_outvec(A, X, Y, B, M, N);
  }
}
static void primal(void) { sink = objective(); }

static void gradient(void) {
  for (int j = 0; j < N; j++) dX[j] = 0.0;
  switch (V) {
  case ROWDOT:
    __enzyme_autodiff((void *)ls_rowdot, enzyme_const, A, enzyme_dup, X, dX, enzyme_const, B,
                      enzyme_const, M, enzyme_const, N);
    break;
  case COLAXPY:
    __enzyme_autodiff((void *)ls_colaxpy, enzyme_const, AT, enzyme_dup, X, dX, enzyme_const, B,
                      enzyme_const, M, enzyme_const, N);
    break;
  case PTRWALK:
    __enzyme_autodiff((void *)ls_ptrwalk, enzyme_const, A, enzyme_dup, X, dX, enzyme_const, B,
                      enzyme_const, M, enzyme_const, N);
    break;
  case GEMV:
    __enzyme_autodiff((void *)ls_gemv, enzyme_const, A, enzyme_dup, X, dX, enzyme_const, B,
                      enzyme_const, M, enzyme_const, N);
    break;
  default:
    for (int i = 0; i < M; i++) dY[i] = 0.0;
    __enzyme_autodiff((void *)ls_outvec, enzyme_const, A, enzyme_dup, X, dX, enzyme_dupnoneed, Y,
                      dY, enzyme_const, B, enzyme_const, M, enzyme_const, N);
  }
}

static double tangent;
static void forward(void) {
  switch (V) {
  case ROWDOT:
    tangent = __enzyme_fwddiff((void *)ls_rowdot, enzyme_const, A, enzyme_dup, X, TX,
                               enzyme_const, B, enzyme_const, M, enzyme_const, N);
    break;
  case COLAXPY:
    tangent = __enzyme_fwddiff((void *)ls_colaxpy, enzyme_const, AT, enzyme_dup, X, TX,
                               enzyme_const, B, enzyme_const, M, enzyme_const, N);
    break;
  case PTRWALK:
    tangent = __enzyme_fwddiff((void *)ls_ptrwalk, enzyme_const, A, enzyme_dup, X, TX,
                               enzyme_const, B, enzyme_const, M, enzyme_const, N);
    break;
  case GEMV:
    tangent = __enzyme_fwddiff((void *)ls_gemv, enzyme_const, A, enzyme_dup, X, TX,
                               enzyme_const, B, enzyme_const, M, enzyme_const, N);
    break;
  default:
    tangent = __enzyme_fwddiff((void *)ls_outvec, enzyme_const, A, enzyme_dup, X, TX,
                               enzyme_dup, Y, dY, enzyme_const, B, enzyme_const, M,
                               enzyme_const, N);
  }
}

/* f is quadratic in x: large steps are exact and keep the sum's rounding small */
static void verify(void) {
  gradient();
  bench_fd_check(NAMES[V], objective, X, dX, N, 5, 1e-2);
  forward();
  bench_dir d = {X, TX, N};
  bench_fd_check_dir("tangent", objective, &d, 1, tangent, 1e-2);
}

int main(int argc, char **argv) {
  const char *name = argc > 1 ? argv[1] : "rowdot";
  for (V = 0; V < NVARIANT && strcmp(NAMES[V], name); V++) {}
  if (V == NVARIANT) {
    fprintf(stderr, "matvec_styles: unknown variant %s\n", name);
    return 2;
  }
  M = argc > 2 ? atoi(argv[2]) : 1000;
  N = argc > 3 ? atoi(argv[3]) : M;
  A = malloc(sizeof(double) * M * N);
  AT = malloc(sizeof(double) * M * N);
  X = malloc(sizeof(double) * N);
  dX = malloc(sizeof(double) * N);
  TX = malloc(sizeof(double) * N);
  B = malloc(sizeof(double) * M);
  Y = malloc(sizeof(double) * M);
  dY = malloc(sizeof(double) * M);
  unsigned s = 2024;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      A[i * N + j] = ((s = s * 1103515245u + 12345u) >> 16) % 1000 / 1000.0 - 0.5;
      AT[(size_t)j * M + i] = A[i * N + j];
    }
  for (int j = 0; j < N; j++) {
    X[j] = sin(0.1 * j);
    TX[j] = cos(0.3 * j);
  }
  for (int i = 0; i < M; i++) B[i] = 0.01 * (i % 17);

  char size[64];
  snprintf(size, sizeof size, "%s %dx%d", NAMES[V], M, N);
  bench_report("matvec_styles", size, primal, gradient, forward, verify, 11, &dX[1]);
  return 0;
}
