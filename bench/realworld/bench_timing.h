/* Timing for bench/realworld: median of repeated primal and gradient runs in one process,
   peak resident memory after each phase. Each program defines primal() and gradient()
   over its own data and calls bench_report() (primal first: its peak memory is read
   before the gradient ever runs); check points at one derivative the runner compares
   across builds. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static long bench_maxrss_kb(void) {
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

/* one JSON line: what the runner (bench/realworld.py) reads */
static void bench_report(const char *name, const char *size, void (*primal)(void),
                         void (*gradient)(void), int reps, const double *check) {
  primal();
  double tp = bench_median(primal, reps);
  long rss_p = bench_maxrss_kb();
  gradient();
  double tg = bench_median(gradient, reps);
  long rss_g = bench_maxrss_kb();
  printf("{\"program\": \"%s\", \"size\": \"%s\", \"primal_s\": %.6g, \"gradient_s\": %.6g, "
         "\"rss_primal_kb\": %ld, \"rss_gradient_kb\": %ld, \"check\": %.17g}\n",
         name, size, tp, tg, rss_p, rss_g, *check);
}
