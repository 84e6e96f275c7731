/* Weighted histogram and a smoothing pass written the way OpenMP codes balance uneven work:
   dynamic and guided schedules, a parallel region only when the data is large enough
   (an if clause), and `omp atomic` updates of shared bins. The gradient of a misfit of
   the smoothed histogram w.r.t. the weights is checked against central differences, in
   reverse and forward mode. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static void accumulate(const double *w, const int *bin, int n, double *h, int nb) {
#pragma omp parallel for schedule(dynamic, 3) if (n > 16)
  for (int i = 0; i < n; i++) {
    double v = w[i] * w[i];
#pragma omp atomic
    h[bin[i]] += v;
#pragma omp atomic update
    h[(bin[i] + 1) % nb] -= 0.5 * sin(w[i]);
  }
}

static void smooth(const double *h, double *s, int nb) {
#pragma omp parallel for schedule(guided)
  for (int k = 0; k < nb; k++) {
    double left = h[(k + nb - 1) % nb], right = h[(k + 1) % nb];
    s[k] = 0.25 * left + 0.5 * h[k] + 0.25 * right;
  }
}

double hist_misfit(const double *w, const int *bin, int n, double *h, double *s, int nb) {
  for (int k = 0; k < nb; k++) h[k] = 0.0;
  accumulate(w, bin, n, h, nb);
  smooth(h, s, nb);
  double m = 0.0;
#pragma omp parallel for reduction(+ : m) schedule(dynamic)
  for (int k = 0; k < nb; k++) m += (s[k] - 1.0) * (s[k] - 1.0) * (k + 1);
  return m;
}

int main(void) {
  enum { N = 40, NB = 6 };
  double w[N], dw[N] = {0}, tw[N], h[NB], dh[NB] = {0}, s[NB], ds[NB] = {0};
  int bin[N], bad = 0;
  for (int i = 0; i < N; i++) {
    w[i] = 0.1 + 0.05 * i;
    tw[i] = cos(0.3 * i);
    bin[i] = (i * 7) % NB;
  }
  __enzyme_autodiff((void *)hist_misfit, enzyme_dup, w, dw, enzyme_const, bin, enzyme_const, N,
                    enzyme_dup, h, dh, enzyme_dup, s, ds, enzyme_const, NB);
  for (int k = 0; k < NB; k++) dh[k] = ds[k] = 0.0;
  double tan = __enzyme_fwddiff((void *)hist_misfit, enzyme_dup, w, tw, enzyme_const, bin,
                                enzyme_const, N, enzyme_dup, h, dh, enzyme_dup, s, ds,
                                enzyme_const, NB);
  double dir = 0.0;
  for (int i = 0; i < N; i++) {
    double x = w[i], e = 1e-6;
    w[i] = x + e;
    double fp = hist_misfit(w, bin, N, h, s, NB);
    w[i] = x - e;
    double fm = hist_misfit(w, bin, N, h, s, NB);
    w[i] = x;
    double fd = (fp - fm) / (2 * e);
    dir += fd * tw[i];
    if (fabs(fd - dw[i]) > 1e-6 * (1 + fabs(fd))) {
      bad++;
      printf("dw[%d] = %.10g, finite differences %.10g\n", i, dw[i], fd);
    }
  }
  if (fabs(dir - tan) > 1e-6 * (1 + fabs(dir))) {
    bad++;
    printf("tangent %.10g, finite differences %.10g\n", tan, dir);
  }
  printf(bad ? "WRONG\n" : "OK\n");
  return bad != 0;
}
