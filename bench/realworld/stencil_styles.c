/* A few sweeps of a 5-point Poisson smoother on an n x n grid, then a quadratic misfit to a
   target, written the ways C solvers write it: Jacobi into a second buffer with the two
   pointers swapped, Jacobi into a scratch copied back, in-place Gauss-Seidel over a
   variable-length 2-D array, red-black Gauss-Seidel, and SOR walking row pointers. Each is
   its own differentiated function (gradient w.r.t. the initial field u and the source f);
   the first argument picks the variant. */
#include <string.h>
#include "bench_timing.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double misfit(const double *u, const double *target, int n) {
  double m = 0.0;
  for (int k = 0; k < n * n; k++) m += (u[k] - target[k]) * (u[k] - target[k]);
  return m;
}

/* 1. out-of-place Jacobi, cur/next swapped after every sweep */
double jacobi_swap(double *u, const double *f, const double *target, int n, int sweeps) {
  double h2 = 1.0 / ((n - 1) * (n - 1));
  double *work = malloc(sizeof(double) * n * n);
  memcpy(work, u, sizeof(double) * n * n); /* boundary values */
  double *cur = u, *next = work;
  for (int s = 0; s < sweeps; s++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        next[i * n + j] = 0.25 * (cur[(i - 1) * n + j] + cur[(i + 1) * n + j] +
                                  cur[i * n + j - 1] + cur[i * n + j + 1] + h2 * f[i * n + j]);
    double *tmp = cur;
    cur = next;
    next = tmp;
  }
  if (cur != u) memcpy(u, cur, sizeof(double) * n * n);
  free(work);
  return misfit(u, target, n);
}

/* 2. out-of-place Jacobi into a scratch, interior copied back after every sweep */
double jacobi_copy(double *u, const double *f, const double *target, int n, int sweeps) {
  double h2 = 1.0 / ((n - 1) * (n - 1));
  double *tmp = malloc(sizeof(double) * n * n);
  for (int s = 0; s < sweeps; s++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        tmp[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] +
                                 u[i * n + j + 1] + h2 * f[i * n + j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++) u[i * n + j] = tmp[i * n + j];
  }
  free(tmp);
  return misfit(u, target, n);
}

/* 3. in-place Gauss-Seidel, the grid seen as a C99 variable-length 2-D array */
double gs_vla(double *u_, const double *f_, const double *target, int n, int sweeps) {
  double (*u)[n] = (double (*)[n])u_;
  const double (*f)[n] = (const double (*)[n])f_;
  double h2 = 1.0 / ((n - 1) * (n - 1));
  for (int s = 0; s < sweeps; s++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        u[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] + h2 * f[i][j]);
  return misfit(u_, target, n);
}

/* 4. red-black Gauss-Seidel: two half sweeps, each over one colour with stride 2 */
double gs_redblack(double *u, const double *f, const double *target, int n, int sweeps) {
  double h2 = 1.0 / ((n - 1) * (n - 1));
  for (int s = 0; s < sweeps; s++)
    for (int colour = 0; colour < 2; colour++)
      for (int i = 1; i < n - 1; i++)
        for (int j = 1 + (i + colour) % 2; j < n - 1; j += 2)
          u[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] +
                                 u[i * n + j + 1] + h2 * f[i * n + j]);
  return misfit(u, target, n);
}

/* 5. SOR walking three row pointers */
double sor_rows(double *u, const double *f, const double *target, int n, int sweeps) {
  const double omega = 1.5, h2 = 1.0 / ((n - 1) * (n - 1));
  for (int s = 0; s < sweeps; s++) {
    for (int i = 1; i < n - 1; i++) {
      double *up = u + (i - 1) * n, *row = u + i * n, *down = u + (i + 1) * n;
      const double *fr = f + i * n;
      for (int j = 1; j < n - 1; j++) {
        double gs = 0.25 * (up[j] + down[j] + row[j - 1] + row[j + 1] + h2 * fr[j]);
        row[j] += omega * (gs - row[j]);
      }
    }
  }
  return misfit(u, target, n);
}

enum { JACOBI_SWAP, JACOBI_COPY, GS_VLA, GS_REDBLACK, SOR_ROWS, NVARIANT };
static const char *NAMES[NVARIANT] = {"jacobi_swap", "jacobi_copy", "gs_vla", "gs_redblack",
                                      "sor_rows"};
typedef double (*stencil_fn)(double *, const double *, const double *, int, int);
static const stencil_fn FNS[NVARIANT] = {jacobi_swap, jacobi_copy, gs_vla, gs_redblack,
                                         sor_rows};

static int V, N, SWEEPS;
static double *U0, *U, *dU, *F, *dF, *TGT, *V0, *TU, *TF, tangent;
static volatile double sink;

static double objective(void) {
  memcpy(U, U0, sizeof(double) * N * N);
  return FNS[V](U, F, TGT, N, SWEEPS);
}
static void primal(void) { sink = objective(); }

#define GRAD(fn)                                                                               \
  __enzyme_autodiff((void *)fn, enzyme_dup, U, dU, enzyme_dup, F, dF, enzyme_const, TGT,     \
                    enzyme_const, N, enzyme_const, SWEEPS)
#define TANGENT(fn)                                                                            \
  __enzyme_fwddiff((void *)fn, enzyme_dup, U, TU, enzyme_dup, F, TF, enzyme_const, TGT,      \
                   enzyme_const, N, enzyme_const, SWEEPS)

/* one gradient and one tangent function per variant, dispatched through tables: calls to
   __enzyme_autodiff in the cases of one switch are merged by the pre-AD SimplifyCFG into one
   call through a select of the functions, which irgrad rejects (REPORT-bugs.md) */
#define VARIANT(fn)                                                                            \
  static void grad_##fn(void) { GRAD(fn); }                                                    \
  static double tan_##fn(void) { return TANGENT(fn); }
VARIANT(jacobi_swap)
VARIANT(jacobi_copy)
VARIANT(gs_vla)
VARIANT(gs_redblack)
VARIANT(sor_rows)
static void (*const GRADS[NVARIANT])(void) = {grad_jacobi_swap, grad_jacobi_copy, grad_gs_vla,
                                              grad_gs_redblack, grad_sor_rows};
static double (*const TANS[NVARIANT])(void) = {tan_jacobi_swap, tan_jacobi_copy, tan_gs_vla,
                                               tan_gs_redblack, tan_sor_rows};

static void gradient(void) {
  memcpy(U, U0, sizeof(double) * N * N);
  memset(dU, 0, sizeof(double) * N * N);
  memset(dF, 0, sizeof(double) * N * N);
  GRADS[V]();
}

static void forward(void) {
  memcpy(U, U0, sizeof(double) * N * N);
  memcpy(TU, V0, sizeof(double) * N * N);
  tangent = TANS[V]();
}

/* the misfit is quadratic in (u0, f): central differences are exact at any step, and large
   steps keep the rounding of the misfit's sum (262,144 terms at n=512) small against the
   derivatives w.r.t. f, which carry a factor h^2 = 1/(n-1)^2 */
static void verify(void) {
  gradient();
  bench_fd_check("du0", objective, U0, dU, N * N, 7, 1.0);
  bench_fd_check("df", objective, F, dF, N * N, 7, 100.0);
  forward();
  bench_dir d[2] = {{U0, V0, N * N}, {F, TF, N * N}};
  bench_fd_check_dir("tangent", objective, d, 2, tangent, 1.0);
}

int main(int argc, char **argv) {
  const char *name = argc > 1 ? argv[1] : "jacobi_swap";
  for (V = 0; V < NVARIANT && strcmp(NAMES[V], name); V++) {}
  if (V == NVARIANT) {
    fprintf(stderr, "stencil_styles: unknown variant %s\n", name);
    return 2;
  }
  N = argc > 2 ? atoi(argv[2]) : 512;
  SWEEPS = argc > 3 ? atoi(argv[3]) : 20;
  size_t bytes = sizeof(double) * N * N;
  U0 = malloc(bytes), U = malloc(bytes), dU = malloc(bytes), F = malloc(bytes);
  dF = malloc(bytes), TGT = malloc(bytes), V0 = malloc(bytes), TU = malloc(bytes);
  TF = malloc(bytes);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      int k = i * N + j;
      U0[k] = sin(0.05 * i) * cos(0.03 * j) + (k * 7919 % 1000) / 5000.0;
      double di = i - N / 3, dj = j - N / 2;
      F[k] = 10.0 * exp(-(di * di + dj * dj) / (0.01 * N * N));
      TGT[k] = 0.1;
      V0[k] = cos(0.07 * k);
      TF[k] = sin(0.02 * k);
    }
  char size[64];
  snprintf(size, sizeof size, "%s %dx%d sweeps=%d", NAMES[V], N, N, SWEEPS);
  bench_report("stencil_styles", size, primal, gradient, forward, verify, 11,
               &dU[N * N / 2 + N / 2]);
  return 0;
}
