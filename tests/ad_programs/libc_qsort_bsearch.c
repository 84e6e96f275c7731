// The C library's qsort, qsort_r and bsearch inside differentiated code, the way
// statistics and table-lookup code calls them: a trimmed mean and a median of a sorted
// copy, records sorted by an active key (the derivative follows each record), a sort by
// distance from a centre passed through qsort_r's context, and a piecewise-linear table
// lookup whose interval bsearch finds (active key, then active table values), and a
// generic sorting helper that passes qsort its comparator and size at run time.
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

/* mean of the samples left after dropping the `trim` smallest and largest */
double trimmed_mean(const double *x, int n, int trim) {
  double *s = malloc(sizeof(double) * n);
  memcpy(s, x, sizeof(double) * n);
  qsort(s, n, sizeof(double), cmp_double);
  double sum = 0.0;
  for (int i = trim; i < n - trim; i++) sum += s[i];
  free(s);
  return sum / (n - 2 * trim);
}

double median(const double *x, int n) {
  double s[16];
  memcpy(s, x, sizeof(double) * n);
  qsort(s, n, sizeof s[0], cmp_double);
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

typedef struct {
  int id;
  double score;
  double weight;
} record;

static int by_score(const void *pa, const void *pb) {
  const record *a = pa, *b = pb;
  return a->score < b->score ? -1 : a->score > b->score;
}

/* records sorted in place by score, then weighted by rank */
double ranked_sum(record *r, int n) {
  qsort(r, n, sizeof *r, by_score);
  double s = 0.0;
  for (int i = 0; i < n; i++) s += (i + 1) * r[i].score * r[i].weight;
  return s;
}

static int by_distance(const void *pa, const void *pb, void *ctx) {
  double c = *(const double *)ctx;
  double da = fabs(*(const double *)pa - c), db = fabs(*(const double *)pb - c);
  return (da > db) - (da < db);
}

/* the k points nearest to the centre, squared */
double nearest_energy(double *x, int n, int k, double centre) {
  qsort_r(x, n, sizeof(double), by_distance, &centre);
  double e = 0.0;
  for (int i = 0; i < k; i++) e += x[i] * x[i];
  return e;
}

/* a library-style wrapper: comparator and element size known only at run time */
__attribute__((noinline)) void sort_any(void *base, size_t n, size_t size,
                                        int (*cmp)(const void *, const void *)) {
  qsort(base, n, size, cmp);
}

/* rank-weighted sum of the squares */
double rank_weighted(const double *x, int n) {
  double s[8];
  for (int i = 0; i < n; i++) s[i] = x[i] * x[i];
  sort_any(s, n, sizeof s[0], cmp_double);
  double sum = 0.0;
  for (int i = 0; i < n; i++) sum += (i + 1) * s[i];
  return sum;
}

static int in_interval(const void *key, const void *elem) {
  double t = *(const double *)key;
  const double *k = elem;
  return t < k[0] ? -1 : (t >= k[1] ? 1 : 0);
}

static const double KNOTS[6] = {0.0, 0.5, 1.0, 2.0, 3.5, 5.0};

/* piecewise-linear interpolation of `values` at t (KNOTS fixed, values active) */
double interp(double t, const double *values) {
  const double *hit = bsearch(&t, KNOTS, 5, sizeof(double), in_interval);
  if (!hit) return 0.0;
  int i = (int)(hit - KNOTS);
  double w = (t - KNOTS[i]) / (KNOTS[i + 1] - KNOTS[i]);
  return (1.0 - w) * values[i] + w * values[i + 1];
}

static double fd(double (*f)(const double *), double *x, int i) {
  double h = 1e-6, old = x[i];
  x[i] = old + h;
  double up = f(x);
  x[i] = old - h;
  double down = f(x);
  x[i] = old;
  return (up - down) / (2 * h);
}

static double trimmed7(const double *x) { return trimmed_mean(x, 7, 2); }
static double median6(const double *x) { return median(x, 6); }
static double ranked7(const double *x) { return rank_weighted(x, 7); }

int main(void) {
  double x[7] = {0.3, -1.2, 2.5, 0.9, 1.7, -0.4, 3.1};
  double dx[7] = {0};
  __enzyme_autodiff((void *)trimmed_mean, enzyme_dup, x, dx, enzyme_const, 7,
                    enzyme_const, 2);
  for (int i = 0; i < 7; i++) APPROX_EQ(dx[i], fd(trimmed7, x, i), 1e-7);
  double tx[7] = {1, 2, 3, 4, 5, 6, 7};
  double t = __enzyme_fwddiff((void *)trimmed_mean, enzyme_dup, x, tx, enzyme_const, 7,
                              enzyme_const, 2);
  double expect = 0.0;
  for (int i = 0; i < 7; i++) expect += dx[i] * tx[i];
  APPROX_EQ(t, expect, 1e-12);

  double dm[6] = {0};
  __enzyme_autodiff((void *)median, enzyme_dup, x, dm, enzyme_const, 6);
  for (int i = 0; i < 6; i++) APPROX_EQ(dm[i], fd(median6, x, i), 1e-7);

  double dw[7] = {0};
  __enzyme_autodiff((void *)rank_weighted, enzyme_dup, x, dw, enzyme_const, 7);
  for (int i = 0; i < 7; i++) APPROX_EQ(dw[i], fd(ranked7, x, i), 1e-7);
  double tw = __enzyme_fwddiff((void *)rank_weighted, enzyme_dup, x, tx, enzyme_const, 7);
  expect = 0.0;
  for (int i = 0; i < 7; i++) expect += dw[i] * tx[i];
  APPROX_EQ(tw, expect, 1e-12);

  record r[5] = {{1, 2.0, 0.5}, {2, -1.0, 1.5}, {3, 0.5, 2.0}, {4, 3.0, 0.25}, {5, 1.0, 1.0}};
  record dr[5];
  memset(dr, 0, sizeof dr);
  record keep[5];
  memcpy(keep, r, sizeof r);
  __enzyme_autodiff((void *)ranked_sum, enzyme_dup, r, dr, enzyme_const, 5);
  // r is sorted now (scores -1, 0.5, 1, 2, 3); dr holds the derivatives with respect
  // to the records as they were passed (rank of record o) * its weight, its score
  int want[5] = {2, 3, 5, 1, 4};
  for (int i = 0; i < 5; i++) {
    if (r[i].id != want[i]) {
      fprintf(stderr, "record %d has id %d, expected %d\n", i, r[i].id, want[i]);
      abort();
    }
  }
  for (int o = 0; o < 5; o++) {
    int rank = 0;
    while (want[rank] != keep[o].id) rank++;
    APPROX_EQ(dr[o].score, (rank + 1) * keep[o].weight, 1e-12);
    APPROX_EQ(dr[o].weight, (rank + 1) * keep[o].score, 1e-12);
  }

  double p[6] = {0.1, 2.2, -0.7, 1.4, 0.6, -2.0}, dp[6] = {0};
  double centre = 0.5, pc[6];
  memcpy(pc, p, sizeof p);
  __enzyme_autodiff((void *)nearest_energy, enzyme_dup, p, dp, enzyme_const, 6,
                    enzyme_const, 3, enzyme_const, centre);
  // nearest to 0.5: 0.6, 0.1, 1.4, now first; d/dx x^2 at the places they came from
  APPROX_EQ(p[0], 0.6, 0.0);
  APPROX_EQ(p[1], 0.1, 0.0);
  APPROX_EQ(p[2], 1.4, 0.0);
  for (int i = 0; i < 6; i++) {
    int near = pc[i] == 0.6 || pc[i] == 0.1 || pc[i] == 1.4;
    APPROX_EQ(dp[i], near ? 2 * pc[i] : 0.0, 1e-12);
  }

  double values[6] = {1.0, 2.0, 0.5, -1.0, 4.0, 3.0}, dv[6] = {0};
  const double ts[4] = {0.2, 0.75, 2.9, 4.4};
  for (int q = 0; q < 4; q++) {
    memset(dv, 0, sizeof dv);
    __enzyme_autodiff((void *)interp, enzyme_const, ts[q], enzyme_dup, values, dv);
    double h = 1e-6;
    for (int i = 0; i < 6; i++) {
      double old = values[i];
      values[i] = old + h;
      double up = interp(ts[q], values);
      values[i] = old - h;
      double down = interp(ts[q], values);
      values[i] = old;
      APPROX_EQ(dv[i], (up - down) / (2 * h), 1e-7);
    }
    double dt = __enzyme_fwddiff((void *)interp, ts[q], 1.0, enzyme_const, values);
    double slope = (interp(ts[q] + 1e-6, values) - interp(ts[q] - 1e-6, values)) / 2e-6;
    APPROX_EQ(dt, slope, 1e-6);
  }
  printf("OK\n");
  return 0;
}
