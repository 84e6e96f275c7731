/* Timing for bench/realworld: median of repeated primal, gradient and (optional) forward
   runs in one process, peak resident memory after the primal and after the gradient. Each
   program defines primal(), gradient() and, when it has one, forward() (a tangent through
   __enzyme_fwddiff) over its own data and calls bench_report() (primal first: its peak memory
   is read before the gradient ever runs); check points at one derivative the runner
   compares across builds.

   After timing, verify() checks the derivatives against central finite differences of the
   program's own objective (bench_fd_check for gradient components, bench_fd_check_dir for a
   tangent): a fast wrong derivative is worthless, so the program exits with status 3 when the
   worst relative error exceeds BENCH_FD_TOL (after printing its line, which carries fd_err). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#ifndef BENCH_FD_TOL
#define BENCH_FD_TOL 1e-5
#endif

static double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* peak resident memory of this process's own address space: VmHWM, not getrusage's
   ru_maxrss, which Linux carries over from the parent across fork and exec (a program the
   Python runner starts would report the runner's ~18 MB as its floor) */
static long bench_maxrss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
  if (f) fclose(f);
  if (kb >= 0) return kb;
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

static int bench_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double bench_median(void (*fn)(void), int reps) {
  double t[64];
  if (reps > 64) reps = 64;
  for (int r = 0; r < reps; r++) {
    double t0 = bench_now();
    fn();
    t[r] = bench_now() - t0;
  }
  qsort(t, reps, sizeof t[0], bench_cmp);
  return t[reps / 2];
}

/* ---- finite-difference checks ---------------------------------------------------------- */

static double bench_fd_worst = -1.0; /* worst relative error so far; -1: no check ran */

/* one perturbed input array: x += t * v (v == NULL: x is not perturbed) */
typedef struct {
  double *x;
  const double *v;
  int n;
} bench_dir;

static double bench_fd_eval(double (*objective)(void), const bench_dir *d, int nd, double t) {
  double *saved[8];
  for (int k = 0; k < nd && k < 8; k++) {
    saved[k] = malloc(sizeof(double) * d[k].n);
    for (int i = 0; i < d[k].n; i++) {
      saved[k][i] = d[k].x[i];
      if (d[k].v) d[k].x[i] += t * d[k].v[i];
    }
  }
  double f = objective();
  for (int k = 0; k < nd && k < 8; k++) {
    for (int i = 0; i < d[k].n; i++) d[k].x[i] = saved[k][i];
    free(saved[k]);
  }
  return f;
}

/* directional derivative by central differences, Richardson-extrapolated (steps h, h/2) */
static double bench_fd_along(double (*objective)(void), const bench_dir *d, int nd, double h) {
  double d1 = (bench_fd_eval(objective, d, nd, h) - bench_fd_eval(objective, d, nd, -h)) / (2 * h);
  double d2 =
      (bench_fd_eval(objective, d, nd, h / 2) - bench_fd_eval(objective, d, nd, -h / 2)) / h;
  return (4 * d2 - d1) / 3;
}

/* relative error, measured against at least `floor` (the rounding finite differences cannot
   resolve) */
static double bench_fd_rel(double ad, double fd, double floor) {
  return fabs(ad - fd) / fmax(fmax(fabs(ad), fabs(fd)), floor);
}

/* Finite differences at two steps, h and h/10, keeping the closer: near a kink of the
   objective (a max, a cut-off, a branch on the data) the larger step straddles it, and
   against the objective's rounding the smaller one is too noisy; a wrong derivative
   disagrees at both. */
static double bench_fd_best(double (*objective)(void), const bench_dir *d, int nd, double h,
                            double ad, double floor) {
  double fd1 = bench_fd_along(objective, d, nd, h), fd2 = bench_fd_along(objective, d, nd, h / 10);
  return bench_fd_rel(ad, fd1, floor) <= bench_fd_rel(ad, fd2, floor) ? fd1 : fd2;
}

static void bench_fd_compare(const char *what, int i, double ad, double fd, double floor) {
  double rel = bench_fd_rel(ad, fd, floor);
  if (!(rel <= bench_fd_worst)) bench_fd_worst = rel; /* also catches NaN */
  if (!(rel <= BENCH_FD_TOL))
    fprintf(stderr, "fd check: %s[%d]: derivative %.12g, finite differences %.12g (rel %.2e)\n",
            what, i, ad, fd, rel);
}

/* gradient components g[i] of objective w.r.t. x[i], for ncomp indices spread evenly inside
   (0, n) (the first and last entries, often on a boundary where the code branches, left out);
   h is the step relative to max(|x[i]|, 1). A component smaller than 1e-3 of the largest
   one in g is compared in absolute terms (the objective's rounding, amplified by 1/h,
   swamps it otherwise). */
static void bench_fd_check(const char *what, double (*objective)(void), double *x,
                           const double *g, int n, int ncomp, double h) {
  double f = objective(), gmax = 0.0;
  for (int i = 0; i < n; i++) gmax = fmax(gmax, fabs(g[i]));
  for (int c = 0; c < ncomp; c++) {
    int i = (int)((long)(c + 1) * n / (ncomp + 1));
    double one = 1.0, xi = x[i];
    bench_dir d = {&x[i], &one, 1};
    double floor = fmax(1e-3 * gmax, 1e-8 * (1.0 + fabs(f)));
    double fd = bench_fd_best(objective, &d, 1, h * fmax(fabs(xi), 1.0), g[i], floor);
    x[i] = xi;
    bench_fd_compare(what, i, g[i], fd, floor);
  }
}

/* a tangent (forward-mode) value against the directional derivative along dirs */
static void bench_fd_check_dir(const char *what, double (*objective)(void), const bench_dir *d,
                               int nd, double tangent, double h) {
  double floor = 1e-8 * (1.0 + fabs(objective()));
  bench_fd_compare(what, 0, tangent, bench_fd_best(objective, d, nd, h, tangent, floor), floor);
}

/* prints the worst error; exits with status 3 when it is too large */
static void bench_fd_verdict(const char *name) {
  fprintf(stderr, "%s: finite-difference check, max relative error %.2e\n", name,
          bench_fd_worst);
  if (!(bench_fd_worst <= BENCH_FD_TOL)) {
    fprintf(stderr, "%s: derivative check FAILED (tolerance %.0e)\n", name, BENCH_FD_TOL);
    exit(3);
  }
}

/* ---- report ---------------------------------------------------------------------------- */

/* one JSON line: what the runner (bench/realworld.py) reads. forward may be NULL (no tangent:
   the runner shows '-'); verify (may be NULL) runs the finite-difference checks after the
   timings, so that the primal's peak memory is read before any derivative ran. */
static void bench_report(const char *name, const char *size, void (*primal)(void),
                         void (*gradient)(void), void (*forward)(void), void (*verify)(void),
                         int reps, const double *check) {
  primal();
  double tp = bench_median(primal, reps);
  long rss_p = bench_maxrss_kb();
  gradient();
  double tg = bench_median(gradient, reps);
  long rss_g = bench_maxrss_kb();
  double c = *check, tf = -1.0;
  if (forward) {
    forward();
    tf = bench_median(forward, reps);
  }
  if (verify) verify();
  printf("{\"program\": \"%s\", \"size\": \"%s\", \"primal_s\": %.6g, \"gradient_s\": %.6g, "
         "\"rss_primal_kb\": %ld, \"rss_gradient_kb\": %ld, \"check\": %.17g",
         name, size, tp, tg, rss_p, rss_g, c);
  if (forward) printf(", \"forward_s\": %.6g", tf);
  if (bench_fd_worst >= 0) printf(", \"fd_err\": %.3g", bench_fd_worst);
  printf("}\n");
  fflush(stdout);
  if (verify) bench_fd_verdict(name);
}
