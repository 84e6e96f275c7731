// Mutable globals that carry derivatives (shadow globals, both modes): a scratch array
// filled by memcpy or a copy loop, a global written in one function and read in
// another, a struct global, a static local, a global scalar set by a helper, repeated
// derivative calls (the shadows start from zero each time), vector forward mode.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed, enzyme_width;

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double d[2]; } Tangents2;
Tangents2 __enzyme_fwddiff2(void *, ...) __asm__("__enzyme_fwddiff");
typedef struct { double d0, d1; } Grad2;
Grad2 __enzyme_autodiff2(void *, ...) __asm__("__enzyme_autodiff");

#define N 4
static double scratch[16];              // filled by memcpy
static double staged[N];                // filled by a copy loop in one function...
struct State { double position, velocity; int steps; };
static struct State state;              // a struct global
double gain;                            // a scalar set by a helper

double product_of_copy(const double *x, int n, double a) {
  memcpy(scratch, x, n * sizeof(double));
  return a * scratch[0] * scratch[1];
}

__attribute__((noinline)) void stage(const double *x, int n) {
  for (int i = 0; i < n; i++) staged[i] = x[i] * x[i];
}
__attribute__((noinline)) double energy_of_staged(int n) {  // ...and read in another
  double e = 0.0;
  for (int i = 0; i < n; i++) e += staged[i] * (i + 1);
  return e;
}
double staged_energy(const double *x, int n) {
  stage(x, n);
  return energy_of_staged(n) + sin(staged[n - 1]);
}

__attribute__((noinline)) void integrate(double dt) {
  state.velocity -= dt * state.position;
  state.position += dt * state.velocity;
  state.steps++;
}
double spring(double x0, double v0) {
  state.position = x0;
  state.velocity = v0;
  for (int k = 0; k < 3; k++) integrate(0.1);
  return state.position * state.position + 0.5 * state.velocity;
}

double running_mean(const double *x, int n) {
  static double acc;  // a static local
  acc = 0.0;
  for (int i = 0; i < n; i++) acc += x[i] / n;
  return acc * acc;
}

__attribute__((noinline)) void set_gain(double g) { gain = g; }
double gained(double x) {
  set_gain(x * x);
  return gain * 3.0 + x;
}

typedef double (*Fn)(const double *, int);
static double fd(Fn f, const double *x, int n, int i) {
  double xp[N], xm[N], h = 1e-6;
  memcpy(xp, x, sizeof xp);
  memcpy(xm, x, sizeof xm);
  xp[i] += h;
  xm[i] -= h;
  return (f(xp, n) - f(xm, n)) / (2 * h);
}

int main(void) {
  double x[N] = {2.0, 3.0, 5.0, 0.5};

  // memcpy into a global: reverse twice (the shadow starts from zero each call), forward
  for (int rep = 0; rep < 2; rep++) {
    double dx[N] = {0};
    __enzyme_autodiff((void *)product_of_copy, x, dx, enzyme_const, 3, 1.5);
    APPROX_EQ(dx[0], 4.5, 1e-12);
    APPROX_EQ(dx[1], 3.0, 1e-12);
    APPROX_EQ(dx[2], 0.0, 1e-12);
  }
  double t[N] = {1.0, 1.0, 0.0, 0.0};
  APPROX_EQ(__enzyme_fwddiff((void *)product_of_copy, enzyme_dup, x, t, enzyme_const, 3,
                             enzyme_const, 1.5), 7.5, 1e-12);
  APPROX_EQ(scratch[1], 3.0, 0.0);  // the primal side effect happened

  // a global written by one function and read by another
  double dx[N] = {0};
  __enzyme_autodiff((void *)staged_energy, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++) APPROX_EQ(dx[i], fd(staged_energy, x, N, i), 1e-6);
  double tangent = 0.0;
  for (int i = 0; i < N; i++) {
    double e[N] = {0};
    e[i] = 1.0;
    tangent = __enzyme_fwddiff((void *)staged_energy, enzyme_dup, x, e, enzyme_const, N);
    APPROX_EQ(tangent, dx[i], 1e-10);
  }
  // vector forward mode: two directions at once through the global
  double e0[N] = {1, 0, 0, 0}, e3[N] = {0, 0, 0, 1};
  Tangents2 both = __enzyme_fwddiff2((void *)staged_energy, enzyme_width, 2, enzyme_dup, x,
                                     e0, e3, enzyme_const, N);
  APPROX_EQ(both.d[0], dx[0], 1e-10);
  APPROX_EQ(both.d[1], dx[3], 1e-10);

  // a struct global stepped by a callee
  Grad2 ds = __enzyme_autodiff2((void *)spring, 0.3, -0.2);
  double h = 1e-6;
  APPROX_EQ(ds.d0, (spring(0.3 + h, -0.2) - spring(0.3 - h, -0.2)) / (2 * h), 1e-6);
  APPROX_EQ(ds.d1, (spring(0.3, -0.2 + h) - spring(0.3, -0.2 - h)) / (2 * h), 1e-6);
  APPROX_EQ(__enzyme_fwddiff((void *)spring, 0.3, 1.0, -0.2, 0.0), ds.d0, 1e-10);
  if (state.steps < 9) abort();

  // a static local
  double dm[N] = {0};
  __enzyme_autodiff((void *)running_mean, x, dm, enzyme_const, N);
  for (int i = 0; i < N; i++) APPROX_EQ(dm[i], fd(running_mean, x, N, i), 1e-6);

  // a global scalar set by a helper: d/dx (3 x^2 + x)
  APPROX_EQ(__enzyme_autodiff((void *)gained, 1.25), 6.0 * 1.25 + 1.0, 1e-12);
  APPROX_EQ(__enzyme_fwddiff((void *)gained, 1.25, 1.0), 6.0 * 1.25 + 1.0, 1e-12);
  printf("OK\n");
  return 0;
}
