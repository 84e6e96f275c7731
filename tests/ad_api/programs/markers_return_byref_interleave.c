// Enzyme's markers around the arguments and the result, in reverse and forward mode:
// enzyme_primal_return ({f(x), df/dx...} in reverse mode), enzyme_const_return,
// enzyme_active_return, enzyme_dup_return, enzyme_noret, enzyme_byref (an argument read
// from memory), enzyme_interleave (values first, shadows after), enzyme_dupv /
// enzyme_dupnoneedv (the shadows of N lanes in one strided buffer).
#include "check.h"

extern int enzyme_dup, enzyme_dupnoneed, enzyme_out, enzyme_const, enzyme_width,
    enzyme_primal_return, enzyme_const_return, enzyme_active_return, enzyme_dup_return,
    enzyme_noret, enzyme_byref, enzyme_interleave, enzyme_dupv, enzyme_dupnoneedv;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff_void(void *, ...);
void __enzyme_fwddiff_void(void *, ...);
typedef struct { double primal, dx, dy; } PrimalGrad;
PrimalGrad __enzyme_autodiff_pg(void *, ...);
typedef struct { double primal, tangent; } PrimalTangent;
PrimalTangent __enzyme_fwddiff_pt(void *, ...);
typedef struct { double t[3]; } Tangents3;
Tangents3 __enzyme_fwddiff3(void *, ...);
typedef struct { double primal; } JustPrimal;
JustPrimal __enzyme_fwddiff_p(void *, ...);

// f(x, y) = x^2 y + exp(x y);  df/dx = 2xy + y e^{xy},  df/dy = x^2 + x e^{xy}
static double f(double x, double y) { return x * x * y + exp(x * y); }

// a residual written into r, and the squared norm returned
static double residual(const double *p, double *r, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    r[i] = p[i] * p[i] - (i + 1.0) * p[(i + 1) % n];
    s += r[i] * r[i];
  }
  return s;
}

int main(void) {
  const double x = 0.7, y = -1.2;
  const double fx = 2 * x * y + y * exp(x * y), fy = x * x + x * exp(x * y);

  // enzyme_primal_return in reverse mode: the primal comes first
  PrimalGrad pg = __enzyme_autodiff_pg((void *)f, enzyme_primal_return, x, y);
  CHECK(pg.primal, f(x, y), 1e-15);
  CHECK(pg.dx, fx, 1e-13);
  CHECK(pg.dy, fy, 1e-13);
  // enzyme_active_return is the default; enzyme_const_return leaves the result unseeded
  CHECK(__enzyme_autodiff((void *)f, enzyme_active_return, enzyme_out, x, enzyme_const, y),
        fx, 1e-13);
  CHECK(__enzyme_autodiff((void *)f, enzyme_const_return, enzyme_out, x, enzyme_const, y),
        0.0, 0);
  // forward: dup_return (tangent), primal_return, const_return (primal only), noret
  CHECK(__enzyme_fwddiff((void *)f, enzyme_dup_return, x, 1.0, enzyme_const, y), fx, 1e-13);
  PrimalTangent pt = __enzyme_fwddiff_pt((void *)f, enzyme_primal_return, x, 0.5, y, 2.0);
  CHECK(pt.primal, f(x, y), 1e-15);
  CHECK(pt.tangent, 0.5 * fx + 2.0 * fy, 1e-13);
  JustPrimal jp = __enzyme_fwddiff_p((void *)f, enzyme_const_return, enzyme_primal_return,
                                     x, 1.0, y, 0.0);
  CHECK(jp.primal, f(x, y), 1e-15);
  CHECK(__enzyme_fwddiff((void *)f, enzyme_noret, x, 1.0, y, 0.0), fx, 1e-13);

  // enzyme_byref: the argument is read from memory (8 bytes), in both modes
  double xb = x, yb = y;
  CHECK(__enzyme_fwddiff((void *)f, enzyme_byref, 8, &xb, 1.0, enzyme_byref, 8,
                         enzyme_const, &yb), fx, 1e-13);
  PrimalGrad pb = __enzyme_autodiff_pg((void *)f, enzyme_primal_return, enzyme_byref, 8, &xb,
                                       enzyme_byref, 8, enzyme_out, &yb);
  CHECK(pb.primal, f(x, y), 1e-15);
  CHECK(pb.dx, fx, 1e-13);
  CHECK(pb.dy, fy, 1e-13);

  // enzyme_interleave: the values (with their markers), then the shadows in order
  enum { N = 4 };
  double p[N] = {0.5, -0.3, 1.1, 0.8}, r[N], dp[N] = {0}, dr[N] = {0};
  double dp_ref[N] = {0}, dr_ref[N] = {0};
  __enzyme_autodiff_void((void *)residual, enzyme_dup, p, dp_ref, enzyme_dup, r, dr_ref,
                         enzyme_const, N);
  __enzyme_autodiff_void((void *)residual, p, r, enzyme_const, N, enzyme_interleave, dp, dr);
  for (int i = 0; i < N; i++) CHECK(dp[i], dp_ref[i], 1e-14);
  double tp[N] = {1, 0, 0, 0}, tr[N] = {0}, tr_ref[N] = {0};
  double dsum_ref = __enzyme_fwddiff((void *)residual, enzyme_dup, p, tp, enzyme_dupnoneed,
                                     r, tr_ref, enzyme_const, N);
  double dsum = __enzyme_fwddiff((void *)residual, enzyme_dup, p, enzyme_dupnoneed, r,
                                 enzyme_const, N, enzyme_interleave, tp, tr);
  CHECK(dsum, dsum_ref, 1e-14);
  for (int i = 0; i < N; i++) CHECK(tr[i], tr_ref[i], 1e-14);
  // check the reverse gradient against central differences once
  for (int i = 0; i < N; i++) {
    double a[N], b[N], ra[N], h = 1e-6;
    for (int k = 0; k < N; k++) a[k] = b[k] = p[k];
    a[i] += h;
    b[i] -= h;
    CHECK(dp_ref[i], (residual(a, ra, N) - residual(b, ra, N)) / (2 * h), 1e-6);
  }

  // enzyme_dupv / enzyme_dupnoneedv: three lanes of tangents, each lane N doubles apart
  double tangents[3][N] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 1}};
  double rtan[3][N] = {{0}};
  Tangents3 ds = __enzyme_fwddiff3((void *)residual, enzyme_width, 3, enzyme_dupv,
                                   sizeof(double) * N, p, tangents, enzyme_dupnoneedv,
                                   sizeof(double) * N, r, rtan, enzyme_const, N);
  int lanes[3] = {0, 1, 3};
  for (int lane = 0; lane < 3; lane++) {
    CHECK(ds.t[lane], dp_ref[lanes[lane]], 1e-13);  // d sum / d p_lane
    double a[N], b[N], ra[N], rb[N], h = 1e-6;
    for (int k = 0; k < N; k++) a[k] = b[k] = p[k];
    a[lanes[lane]] += h;
    b[lanes[lane]] -= h;
    residual(a, ra, N);
    residual(b, rb, N);
    for (int k = 0; k < N; k++) CHECK(rtan[lane][k], (ra[k] - rb[k]) / (2 * h), 1e-6);
  }
  printf("OK\n");
  return 0;
}
