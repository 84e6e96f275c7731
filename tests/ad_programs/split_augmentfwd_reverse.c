// Split reverse mode (Enzyme's __enzyme_augmentfwd / __enzyme_reverse): the augmented
// forward pass runs the function and returns a tape; the caller may then overwrite the
// inputs; the reverse pass uses the tape. Checked against the combined __enzyme_autodiff
// and central finite differences.
#include <enzyme/enzyme.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

typedef struct {
  void *tape;
  double result;
} Aug;
Aug __enzyme_augmentfwd_ret(void *, ...);

// reads x, overwrites x[0], returns a value depending on the overwritten memory
double update(double *x, double y) {
  double r = x[0] * x[0] * y + sin(x[1]);
  x[0] = r;
  return r * x[1] + y;
}

// void, in-place: only a tape comes back
void scale_inplace(double *v, int n, double s) {
  for (int i = 0; i < n; i++) v[i] = v[i] * v[i] * s;
}

__attribute__((noinline)) double sq(double t) { return t * t; }
// recursion inside the split pair (a call to a defined function in the augmented primal)
__attribute__((noinline)) double rpow(double *x, int n) {
  if (n == 0) return 1.0;
  double r = x[0] * rpow(x, n - 1);
  x[0] = x[0] + 0.1 * sq(r);
  return r;
}

static double run_update(const double *x0, double y) {
  double x[2] = {x0[0], x0[1]};
  return update(x, y);
}

static double run_rpow(double x0, int n) {
  double x[1] = {x0};
  return rpow(x, n);
}

int main(void) {
  // 1. value-returning function, primal result returned with the tape
  double x0[2] = {0.7, -0.4}, y = 1.3;
  double x[2] = {x0[0], x0[1]}, dx[2] = {0, 0};
  Aug a = __enzyme_augmentfwd_ret((void *)update, enzyme_dup, x, dx, enzyme_out, y);
  APPROX_EQ(a.result, run_update(x0, y), 1e-15);
  APPROX_EQ(x[0], x0[0] * x0[0] * y + sin(x0[1]), 1e-15);  // the primal effect happened
  x[0] = 123.0;  // the caller overwrites the inputs before the reverse pass
  x[1] = -7.0;
  double dy = __enzyme_reverse((void *)update, enzyme_dup, x, dx, enzyme_out, y, 1.0,
                               a.tape);  // the adjoint of the result, then the tape
  for (int k = 0; k < 2; k++) {
    double h = 1e-6, p[2] = {x0[0], x0[1]}, m[2] = {x0[0], x0[1]};
    p[k] += h;
    m[k] -= h;
    APPROX_EQ(dx[k], (run_update(p, y) - run_update(m, y)) / (2 * h), 1e-7);
  }
  APPROX_EQ(dy, (run_update(x0, y + 1e-6) - run_update(x0, y - 1e-6)) / 2e-6, 1e-7);
  // same numbers as the combined mode
  double xc[2] = {x0[0], x0[1]}, dxc[2] = {0, 0};
  double dyc = __enzyme_autodiff((void *)update, enzyme_dup, xc, dxc, enzyme_out, y);
  APPROX_EQ(dyc, dy, 1e-13);
  APPROX_EQ(dxc[0], dx[0], 1e-13);
  APPROX_EQ(dxc[1], dx[1], 1e-13);

  // 2. void function: the tape alone; the adjoint seed is in the shadow
  double v0[3] = {0.5, -1.5, 2.0}, v[3] = {0.5, -1.5, 2.0}, dv[3] = {1.0, 2.0, 3.0};
  void *t = __enzyme_augmentfwd((void *)scale_inplace, enzyme_dup, v, dv, enzyme_const, 3,
                                enzyme_out, 0.5);
  v[0] = v[1] = v[2] = 0.0;
  double ds = __enzyme_reverse((void *)scale_inplace, enzyme_dup, v, dv, enzyme_const, 3,
                               enzyme_out, 0.5, t);
  double ds_expected = 0.0;
  for (int i = 0; i < 3; i++) {
    APPROX_EQ(dv[i], (i + 1.0) * 2.0 * v0[i] * 0.5, 1e-14);
    ds_expected += (i + 1.0) * v0[i] * v0[i];
  }
  APPROX_EQ(ds, ds_expected, 1e-14);

  // 3. recursion through memory inside the split pair, tape kept across an overwrite
  for (int n = 0; n < 4; n++) {
    double r0 = 0.8, r[1] = {0.8}, dr[1] = {0.0};
    Aug b = __enzyme_augmentfwd_ret((void *)rpow, enzyme_dup, r, dr, enzyme_const, n);
    APPROX_EQ(b.result, run_rpow(r0, n), 1e-15);
    r[0] = 42.0;
    __enzyme_reverse_void((void *)rpow, enzyme_dup, r, dr, enzyme_const, n, 1.0, b.tape);
    APPROX_EQ(dr[0], (run_rpow(r0 + 1e-6, n) - run_rpow(r0 - 1e-6, n)) / 2e-6, 1e-7);
  }
  printf("OK\n");
  return 0;
}
