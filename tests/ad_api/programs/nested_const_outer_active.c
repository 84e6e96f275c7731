// Nested AD whose inner call passes a pointer enzyme_const although the data behind it
// depends on the outer variable (gradbench's particle has this shape): the inner markers
// are the inner derivative's activities only, so the outer derivative must still flow
// through the "constant" data. The inner function reads a field struct (coefficients
// behind a pointer in the struct) and the gradient is taken at points that also depend
// on the outer variable, inside a time-stepping loop. Outer reverse / forward / split
// reverse over inner reverse / forward, all checked against central differences.
//
// Enzyme's reverse mode consumes the seed of a duplicated output: after the call the
// shadow of the output is zero (its adjoint has been propagated), so every reverse call
// below starts from a freshly set seed; the first check states that rule.
#include "check.h"

extern int enzyme_dup, enzyme_dupnoneed, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff_d(void *, ...);
double __enzyme_fwddiff_d(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

typedef struct {
  const double *coef;  // strengths of the sources
  const double *pos;   // their positions
  int n;
} Field;

// potential at x: sum_i coef_i * log(1 + (x - pos_i)^2)
static void potential(const Field *f, const double *x, double *out) {
  double s = 0;
  for (int i = 0; i < f->n; i++) {
    double d = *x - f->pos[i];
    s += f->coef[i] * log(1.0 + d * d);
  }
  *out = s;
}

// dV/dx by reverse mode, the field enzyme_const
static double slope_r(const Field *f, double x) {
  double g = 0, v, seed = 1;
  __enzyme_autodiff((void *)potential, enzyme_const, f, enzyme_dup, &x, &g,
                    enzyme_dupnoneed, &v, &seed);
  return g;
}
// ... and by forward mode
static double slope_f(const Field *f, double x) {
  double g = 0, v, one = 1;
  __enzyme_fwddiff((void *)potential, enzyme_const, f, enzyme_dup, &x, &one,
                   enzyme_dupnoneed, &v, &g);
  return g;
}

typedef double (*slope_fn)(const Field *, double);

// a particle sliding down the potential; the sources move with w
static double trajectory(double w, slope_fn slope) {
  double coef[3] = {1.0 + w * w, 0.5 * w, -0.3}, pos[3] = {w, 1.0 - w, 2.0 * w + 0.5};
  Field f = {coef, pos, 3};
  double x = 0.2 * w, v = 0;
  for (int step = 0; step < 25; step++) {
    v -= 0.05 * slope(&f, x);
    x += 0.05 * v;
  }
  return x * x + v;
}

void objective_r(const double *w, double *out) { *out = trajectory(*w, slope_r); }
void objective_f(const double *w, double *out) { *out = trajectory(*w, slope_f); }

// a reverse derivative stored through memory: the inner call writes its gradient into
// the caller's array, one entry per source, then the outer function reduces it
static void gradients(const Field *f, const double *xs, double *gs, int m) {
  for (int j = 0; j < m; j++) {
    double v, seed = 1;
    gs[j] = 0;
    __enzyme_autodiff((void *)potential, enzyme_const, f, enzyme_dup, &xs[j], &gs[j],
                      enzyme_dupnoneed, &v, &seed);
  }
}
void stored(const double *w, double *out) {
  double coef[2] = {w[0], w[0] * w[1]}, pos[2] = {w[1], -w[0]};
  Field f = {coef, pos, 2};
  double xs[3] = {0.1, w[1], 0.7}, gs[3];
  gradients(&f, xs, gs, 3);
  *out = gs[0] * gs[0] + gs[1] + 2.0 * gs[2];
}

// central difference of fn (of n <= 2 variables) along variable k
// a scalar passed enzyme_const: the mixed second derivative of
// f = x^2 y + sin(xy), f_x = 2xy + y cos(xy), f_xy = 2x + cos(xy) - xy sin(xy)
static double f(double x, double y) { return x * x * y + sin(x * y); }
static double f_x_r(double x, double y) {
  return __enzyme_autodiff_d((void *)f, enzyme_out, x, enzyme_const, y);
}
static double f_x_f(double x, double y) {
  return __enzyme_fwddiff_d((void *)f, enzyme_dup, x, 1.0, enzyme_const, y);
}

static double central(void (*fn)(const double *, double *), const double *w, int n, int k) {
  double p[2], m[2], a, b, h = 1e-6;
  for (int i = 0; i < n; i++) p[i] = m[i] = w[i];
  p[k] += h;
  m[k] -= h;
  fn(p, &a);
  fn(m, &b);
  return (a - b) / (2 * h);
}

int main(void) {
  const double w = 0.4;
  double out, seed, one = 1;

  // the seed of a reverse call is consumed
  double dw = 0;
  seed = 1;
  __enzyme_autodiff((void *)objective_f, enzyme_dup, &w, &dw, enzyme_dupnoneed, &out, &seed);
  CHECK(seed, 0.0, 0.0);

  const double fd = central(objective_f, &w, 1, 0);
  double rr = 0, rf = 0, fr = 0, ff = 0;
  seed = 1;
  __enzyme_autodiff((void *)objective_r, enzyme_dup, &w, &rr, enzyme_dupnoneed, &out, &seed);
  seed = 1;
  __enzyme_autodiff((void *)objective_f, enzyme_dup, &w, &rf, enzyme_dupnoneed, &out, &seed);
  __enzyme_fwddiff((void *)objective_r, enzyme_dup, &w, &one, enzyme_dupnoneed, &out, &fr);
  __enzyme_fwddiff((void *)objective_f, enzyme_dup, &w, &one, enzyme_dupnoneed, &out, &ff);
  CHECK(rr, fd, 1e-6);
  CHECK(rf, fd, 1e-6);
  CHECK(fr, fd, 1e-6);
  CHECK(ff, fd, 1e-6);
  CHECK(rr, ff, 1e-10);
  CHECK(rf, ff, 1e-10);
  CHECK(fr, ff, 1e-10);

  // split reverse mode over the inner reverse derivative
  double ds = 0;
  seed = 1;
  void *tape = __enzyme_augmentfwd((void *)objective_r, enzyme_dup, &w, &ds,
                                   enzyme_dupnoneed, &out, &seed);
  __enzyme_reverse((void *)objective_r, enzyme_dup, &w, &ds, enzyme_dupnoneed, &out, &seed,
                   tape);
  CHECK(ds, ff, 1e-10);

  // the inner gradients stored through memory, two outer variables
  const double w2[2] = {0.8, -0.3};
  double g2[2] = {0, 0}, t2[2];
  seed = 1;
  __enzyme_autodiff((void *)stored, enzyme_dup, w2, g2, enzyme_dupnoneed, &out, &seed);
  for (int k = 0; k < 2; k++) {
    double e[2] = {k == 0, k == 1};
    __enzyme_fwddiff((void *)stored, enzyme_dup, w2, e, enzyme_dupnoneed, &out, &t2[k]);
    CHECK(g2[k], central(stored, w2, 2, k), 1e-6);
    CHECK(g2[k], t2[k], 1e-10);
  }
  const double x = 0.7, y = 1.3, fxy = 2 * x + cos(x * y) - x * y * sin(x * y);
  CHECK(__enzyme_autodiff_d((void *)f_x_r, enzyme_const, x, enzyme_out, y), fxy, 1e-12);
  CHECK(__enzyme_autodiff_d((void *)f_x_f, enzyme_const, x, enzyme_out, y), fxy, 1e-12);
  CHECK(__enzyme_fwddiff_d((void *)f_x_r, enzyme_const, x, enzyme_dup, y, 1.0), fxy, 1e-12);
  CHECK(__enzyme_fwddiff_d((void *)f_x_f, enzyme_const, x, enzyme_dup, y, 1.0), fxy, 1e-12);
  printf("OK\n");
  return 0;
}
