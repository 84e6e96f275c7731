/* Fixed-point loops marked from inside with __enzyme_set_fixed_point (the form Fortran's
   fixed-point directive takes): a damped Jacobi solve of a small nonlinear system,
   written as a while loop tested before each sweep (with a tolerance that tightens and
   a sweep counter carried by the loop) and as a do-while loop tested after it. Each is
   differentiated at its converged state; the gradient must equal that through every
   sweep of the unmarked loop and central differences, and the loop must still run the
   same number of sweeps. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "check.h"

#define K 5
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_set_fixed_point(double reduction, int64_t max_iters, void *control, ...);

static int sweeps;

/* one damped Jacobi sweep of x = 0.2 tanh(A x) + b; the largest change */
__attribute__((noinline)) static double sweep(double *x, const double *b) {
  double next[K], change = 0;
  for (int i = 0; i < K; i++) {
    double ax = 0;
    for (int j = 0; j < K; j++) ax += (i == j ? 0.5 : 0.1 * (i - j)) * x[j];
    next[i] = 0.2 * tanh(ax) + b[i];
  }
  for (int i = 0; i < K; i++) {
    change = fmax(change, fabs(next[i] - x[i]));
    x[i] = next[i];
  }
  return change;
}

static double objective(const double *x, const double *p) {
  double s = 0;
  for (int i = 0; i < K; i++) s += (i + 1) * x[i] * x[i] + p[i] * x[i];
  return s;
}

#define SOLVE_WHILE(name, mark)                                                           \
  double name(const double *p) {                                                          \
    double x[K], b[K];                                                                    \
    for (int i = 0; i < K; i++) { x[i] = 0.0; b[i] = p[i] * p[i]; }                       \
    double change = 1.0, tol = 1e-6;                                                      \
    int n = 0;                                                                            \
    while (change > tol) {                                                                \
      mark;                                                                               \
      change = sweep(x, b);                                                               \
      tol = fmax(0.1 * tol, 1e-15);                                                       \
      n++;                                                                                \
    }                                                                                     \
    sweeps = n;                                                                           \
    return objective(x, p);                                                               \
  }

#define SOLVE_DO(name, mark)                                                              \
  double name(const double *p) {                                                          \
    double x[K], b[K], change;                                                            \
    for (int i = 0; i < K; i++) { x[i] = 0.0; b[i] = p[i] * p[i]; }                       \
    do {                                                                                  \
      mark;                                                                               \
      change = sweep(x, b);                                                               \
    } while (change > 1e-15);                                                             \
    return objective(x, p);                                                               \
  }

#define MARK __enzyme_set_fixed_point(1e-30, (int64_t)0, (void *)0, x, (int64_t)sizeof x)

SOLVE_WHILE(while_plain, (void)0)
SOLVE_WHILE(while_marked, MARK)
SOLVE_DO(do_plain, (void)0)
SOLVE_DO(do_marked, MARK)

typedef double (*solver)(const double *);

/* the gradients of both versions (the entry point needs the functions themselves) */
#define GRADIENTS(plain, marked, d0, d, n0)                                               \
  do {                                                                                    \
    __enzyme_autodiff((void *)plain, enzyme_dup, P, d0);                                  \
    n0 = sweeps;                                                                          \
    __enzyme_autodiff((void *)marked, enzyme_dup, P, d);                                  \
  } while (0)

static const double P[K] = {0.3, -0.2, 0.5, 0.1, 0.4};

static void check_against(solver plain, const double *d0, const double *d, int n0) {
  CHECK(sweeps, n0, 0.0);
  for (int i = 0; i < K; i++) {
    CHECK(d[i], d0[i], 1e-10);
    double h = 1e-6, q[K];
    memcpy(q, P, sizeof q);
    q[i] += h;
    double fp = plain(q);
    q[i] -= 2 * h;
    double fm = plain(q);
    CHECK(d[i], (fp - fm) / (2 * h), 1e-6);
  }
}

int main(void) {
  double d0[K] = {0}, d[K] = {0}, e0[K] = {0}, e[K] = {0};
  int n0 = 0, m0 = 0;
  GRADIENTS(while_plain, while_marked, d0, d, n0);
  check_against(while_plain, d0, d, n0);
  GRADIENTS(do_plain, do_marked, e0, e, m0);
  sweeps = m0; /* (the do-while versions do not count) */
  check_against(do_plain, e0, e, m0);
  printf("OK\n");
  return 0;
}
