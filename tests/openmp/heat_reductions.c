/* A small OpenMP heat-and-energy kernel in the style of public teaching codes: parallel
   for loops with static schedules (default, chunked, collapsed), a sum and a max reduction,
   a parallel region with an orphaned omp for, single and critical sections, and per-thread
   partial sums indexed by omp_get_thread_num. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static void step(double *restrict next, const double *restrict cur, int n, double k) {
#pragma omp parallel for collapse(2) schedule(static)
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      next[i * n + j] = cur[i * n + j] + k * (cur[(i - 1) * n + j] + cur[(i + 1) * n + j] +
                                              cur[i * n + j - 1] + cur[i * n + j + 1] -
                                              4 * cur[i * n + j]);
}

static double weighted_norm(const double *u, int n) {
  double s = 0.0, m = 0.0;
#pragma omp parallel for reduction(+ : s) reduction(max : m) schedule(static, 7)
  for (int k = 0; k < n * n; k++) {
    s += u[k] * u[k] * (1.0 + 0.001 * k);
    m = fmax(m, fabs(u[k]));
  }
  return sqrt(s) + m;
}

static double partial_energy(const double *u, int n) {
  int nt = omp_get_max_threads();
  double *part = calloc(nt, sizeof(double));
  double total = 0.0;
#pragma omp parallel
  {
    int t = omp_get_thread_num();
#pragma omp for nowait
    for (int k = 0; k < n * n; k++) part[t] += sin(u[k]) * u[k];
#pragma omp critical
    total += part[t];
#pragma omp single
    total *= 1.0;
  }
  free(part);
  return total;
}

double simulate(double *u, double *work, int n, int steps, double k) {
  for (int s = 0; s < steps; s++) {
    step(work, u, n, k);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++) u[i * n + j] = work[i * n + j];
  }
  return weighted_norm(u, n) + partial_energy(u, n);
}

int main(void) {
  int n = 24, steps = 5;
  double k = 0.1;
  double *u0 = malloc(sizeof(double) * n * n), *u = malloc(sizeof(double) * n * n);
  double *du = calloc(n * n, sizeof(double)), *w = calloc(n * n, sizeof(double));
  double *dw = calloc(n * n, sizeof(double)), *tu = malloc(sizeof(double) * n * n);
  double *dir0 = malloc(sizeof(double) * n * n); /* the tangent is updated in place */
  for (int i = 0; i < n * n; i++) { u0[i] = sin(0.37 * i) + 0.1 * cos(1.3 * i); tu[i] = cos(0.11 * i); dir0[i] = tu[i]; }
  for (int i = 0; i < n * n; i++) u[i] = u0[i];
  __enzyme_autodiff((void *)simulate, enzyme_dup, u, du, enzyme_dup, w, dw, enzyme_const, n,
                    enzyme_const, steps, enzyme_const, k);
  for (int i = 0; i < n * n; i++) { u[i] = u0[i]; w[i] = 0; dw[i] = 0; }
  double tan = __enzyme_fwddiff((void *)simulate, enzyme_dup, u, tu, enzyme_dup, w, dw,
                                enzyme_const, n, enzyme_const, steps, enzyme_const, k);
  int bad = 0;
  double dir = 0.0;
  for (int c = 0; c < n * n; c++) {
    double h = 1e-6;
    for (int i = 0; i < n * n; i++) u[i] = u0[i] + (i == c ? h : 0);
    double fp = simulate(u, w, n, steps, k);
    for (int i = 0; i < n * n; i++) u[i] = u0[i] - (i == c ? h : 0);
    double fm = simulate(u, w, n, steps, k);
    double fd = (fp - fm) / (2 * h);
    dir += fd * dir0[c];
    if (fabs(fd - du[c]) > 1e-5 * (1 + fabs(fd))) {
      if (bad < 5) printf("du[%d] = %.10g, finite differences %.10g\n", c, du[c], fd);
      bad++;
    }
  }
  if (fabs(dir - tan) > 1e-5 * (1 + fabs(dir))) { printf("tangent %.10g, finite differences %.10g\n", tan, dir); bad++; }
  printf("%s (%d threads)\n", bad ? "WRONG" : "OK", omp_get_max_threads());
  return bad != 0;
}
