// Vector reverse mode: __enzyme_autodiff with enzyme_width, N computes N vector-Jacobian
// products in one call (a Jacobian's rows): each duplicated argument has N shadows (or
// one strided buffer with enzyme_dupv), each active scalar's derivative comes back N
// times. Checked against N width-1 calls and against forward mode.
#include "check.h"

extern int enzyme_dup, enzyme_dupnoneed, enzyme_out, enzyme_const, enzyme_width,
    enzyme_dupv;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double dk[3]; } Dk3;
Dk3 __enzyme_autodiff_dk(void *, ...);
typedef struct { double primal; double dk[2]; } PrimalDk2;
PrimalDk2 __enzyme_autodiff_pdk(void *, ...);
extern int enzyme_primal_return;

enum { N = 4, M = 3 };

// a small nonlinear model: y = tanh(A x) * k (M outputs from N inputs and k)
static void model(const double *x, double *y, double k) {
  static const double A[M][N] = {{1, -2, 0.5, 0}, {0.3, 1, -1, 2}, {-0.7, 0, 1.5, 1}};
  for (int i = 0; i < M; i++) {
    double s = 0;
    for (int j = 0; j < N; j++) s += A[i][j] * x[j] * x[j];
    y[i] = tanh(s) * k;
  }
}

static double energy(const double *x, double k) {
  double y[M];
  model(x, y, k);
  return y[0] * y[0] + y[1] * y[2];
}

int main(void) {
  const double x[N] = {0.4, -0.3, 0.8, 0.1};
  const double k = 1.7;
  double y[M];
  // the three rows of the Jacobian dy/dx at once: lane i seeds output i
  double dx[M][N] = {{0}};
  double dy[M][M] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  Dk3 dk = __enzyme_autodiff_dk((void *)model, enzyme_width, M, enzyme_dupv,
                                sizeof(double) * N, x, dx, enzyme_dup, y, dy[0], dy[1],
                                dy[2], enzyme_out, k);
  for (int j = 0; j < N; j++) {
    double t[N] = {0}, ty[M] = {0}, yy[M];
    t[j] = 1;
    __enzyme_fwddiff((void *)model, enzyme_dup, x, t, enzyme_dupnoneed, yy, ty,
                     enzyme_const, k);
    for (int i = 0; i < M; i++) CHECK(dx[i][j], ty[i], 1e-13);
  }
  for (int i = 0; i < M; i++) {
    double yp[M], ym[M];
    model(x, yp, k + 1e-6);
    model(x, ym, k - 1e-6);
    CHECK(dk.dk[i], (yp[i] - ym[i]) / 2e-6, 1e-7);
    for (int j = 0; j < M; j++) CHECK(dy[i][j], 0.0, 0);  // the seeds were consumed
  }
  // a scalar function with two lanes of gradient shadows; the result is seeded with 1 in
  // each lane, so both lanes hold the gradient (plus what they held before)
  double g0[N] = {0}, g1[N] = {1, 1, 1, 1};
  PrimalDk2 pd = __enzyme_autodiff_pdk((void *)energy, enzyme_width, 2,
                                       enzyme_primal_return, enzyme_dup, x, g0, g1,
                                       enzyme_out, k);
  CHECK(pd.primal, energy(x, k), 1e-15);
  for (int j = 0; j < N; j++) {
    double a[N], b[N], h = 1e-6;
    for (int q = 0; q < N; q++) a[q] = b[q] = x[q];
    a[j] += h;
    b[j] -= h;
    double g = (energy(a, k) - energy(b, k)) / (2 * h);
    CHECK(g0[j], g, 1e-6);
    CHECK(g1[j], 1 + g0[j], 1e-14);
  }
  double gk = (energy(x, k + 1e-6) - energy(x, k - 1e-6)) / 2e-6;
  CHECK(pd.dk[0], gk, 1e-6);
  CHECK(pd.dk[1], pd.dk[0], 0);
  printf("OK\n");
  return 0;
}
