/* A regularized least-squares energy whose code logs, keeps a history of its terms and
 * the last energy in globals, and calls a log1p of an opaque library. The program tells
 * irgrad what Enzyme users tell Enzyme:
 *   __enzyme_inactivefn      the logging routine of the library (declared only) and a
 *                            history recorder of its own (it stores active values into a
 *                            global: inlined and differentiated, that would be an error);
 *   __enzyme_inactive_global the global that keeps the last energy (written with an
 *                            active value);
 *   __enzyme_function_like   my_log1p (which calls the library) has log1p's derivative;
 *                            the scratch allocator and its release are malloc and free.
 * Without them irgrad stops with an error. Checked in reverse and forward mode against
 * central finite differences; the primal side effects (log, history) still happen. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

void lib_log_event(const char *tag, double value);
int lib_event_count(void);
double lib_log1p(double x);

static double history[256];
static int history_len;
double last_energy;

void record_term(double t) {
  if (history_len < 256) history[history_len++] = t;
}

double my_log1p(double x) { return lib_log1p(x); }

void *__enzyme_inactivefn[] = {(void *)lib_log_event, (void *)record_term};
void *__enzyme_inactive_global[] = {(void *)&last_energy};
void *__enzyme_function_like[] = {(void *)my_log1p, "log1p"};

void *scratch_alloc(size_t bytes) { return malloc(bytes); }
void scratch_release(void *block) { free(block); }
void *__enzyme_function_like_alloc[] = {(void *)scratch_alloc, "malloc"};
void *__enzyme_function_like_free[] = {(void *)scratch_release, "free"};

/* sum_i log(1 + (x_i - x_{i-1})^2) + lambda sum_i x_i^2 (a robust smoothness prior) */
static double smoothness(const double *x, int n) {
  double *d = scratch_alloc(sizeof(double) * (size_t)n);
  for (int i = 1; i < n; i++) d[i] = x[i] - x[i - 1];
  double e = 0.0;
  for (int i = 1; i < n; i++) {
    double term = my_log1p(d[i] * d[i]);
    record_term(term);
    e += term;
  }
  scratch_release(d);
  return e;
}

double energy(const double *x, int n, double lambda) {
  double e = smoothness(x, n);
  for (int i = 0; i < n; i++) e += lambda * x[i] * x[i];
  lib_log_event("energy", e);
  last_energy = e;
  return e;
}

static void check(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1.0 + fabs(want)))) {
    fprintf(stderr, "MISMATCH %s: got %.12g, want %.12g\n", what, got, want);
    abort();
  }
}

enum { N = 9 };

int main(void) {
  double x[N], dx[N] = {0}, v[N];
  for (int i = 0; i < N; i++) {
    x[i] = sin(1.7 * i) + 0.1 * i;
    v[i] = cos(0.9 * i);
  }
  double lambda = 0.3;
  double dlambda = __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, N, lambda);
  const double h = 1e-6;
  double dot = 0.0;
  for (int i = 0; i < N; i++) {
    double xp[N], xm[N];
    memcpy(xp, x, sizeof xp);
    memcpy(xm, x, sizeof xm);
    xp[i] += h;
    xm[i] -= h;
    check("d energy / dx (reverse)", dx[i], (energy(xp, N, lambda) - energy(xm, N, lambda)) / (2 * h), 1e-6);
    dot += dx[i] * v[i];
  }
  check("d energy / dlambda (reverse)", dlambda,
        (energy(x, N, lambda + h) - energy(x, N, lambda - h)) / (2 * h), 1e-6);
  double tangent = __enzyme_fwddiff((void *)energy, enzyme_dup, x, v, enzyme_const, N, lambda, 0.0);
  check("forward vs reverse", tangent, dot, 1e-10);
  double e = energy(x, N, lambda);
  double d0 = x[1] - x[0]; /* the first term the gradient's forward pass recorded */
  if (last_energy != e || history_len < N - 1 || fabs(history[0] - log1p(d0 * d0)) > 1e-12 ||
      lib_event_count() < 3) {
    fprintf(stderr, "the primal side effects are missing\n");
    abort();
  }
  printf("OK\n");
  return 0;
}
