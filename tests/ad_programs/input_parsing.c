// An objective that reads its settings and observations itself, the way small fitting
// programs do: a configuration line parsed with sscanf into locals, observations read
// with fscanf and fgets from an open file, binary weights with fread, and a parameter
// overwritten by a value parsed from text half way through. Data read from text or a
// file carries no derivative. Reverse and forward mode are checked against central
// differences.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
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

#define NP 4
static const char *CONFIG = "scale=1.5 shift=0.25 order=2";

double misfit(double *theta, FILE *obs, FILE *weights) {
  double scale = 1.0, shift = 0.0;
  int order = 1, used = 0;
  char key[16];
  double val;
  const char *p = CONFIG;
  while (sscanf(p, " %15[^=]=%lf%n", key, &val, &used) == 2) {
    if (strcmp(key, "scale") == 0) scale = val;
    else if (strcmp(key, "shift") == 0) shift = val;
    else if (strcmp(key, "order") == 0) order = (int)val;
    p += used;
  }
  rewind(obs);
  rewind(weights);
  char header[64];
  int n = 0;
  if (!fgets(header, sizeof header, obs) || sscanf(header, "# %d", &n) != 1) abort();
  double *y = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++)
    if (fscanf(obs, "%lf", &y[i]) != 1) abort();
  if (fread(w, sizeof(double), n, weights) != (size_t)n) abort();
  double r = theta[0] * theta[0];
  sscanf("0.75", "%lf", &theta[NP - 1]);  // the last parameter is fixed by the input
  for (int i = 0; i < n; i++) {
    double t = 0.1 * i + shift, m = 0.0, tk = 1.0;
    for (int k = 0; k < NP; k++) {
      m += theta[k] * tk;
      tk *= t;
    }
    r += w[i] * pow(scale * m - y[i], order);
  }
  free(y);
  free(w);
  return r;
}

int main(void) {
  FILE *obs = tmpfile(), *weights = tmpfile();
  if (!obs || !weights) return 1;
  fprintf(obs, "# 6\n");
  for (int i = 0; i < 6; i++) {
    fprintf(obs, "%.17g\n", sin(0.7 * i) + 1.0);
    double wi = 1.0 + 0.1 * i;
    fwrite(&wi, sizeof wi, 1, weights);
  }
  double th0[NP] = {0.5, -0.2, 0.1, 0.3}, th[NP], dth[NP] = {0}, tdir[NP] = {1.0, -0.5, 0.25, 2.0};
  memcpy(th, th0, sizeof th);
  __enzyme_autodiff((void *)misfit, enzyme_dup, th, dth, enzyme_const, obs, enzyme_const,
                    weights);
  double tt[NP];
  memcpy(th, th0, sizeof th);
  memcpy(tt, tdir, sizeof tt);
  double tan = __enzyme_fwddiff((void *)misfit, enzyme_dup, th, tt, enzyme_const, obs,
                                enzyme_const, weights);
  double dir = 0.0;
  for (int k = 0; k < NP; k++) {
    double h = 1e-6;
    memcpy(th, th0, sizeof th);
    th[k] += h;
    double fp = misfit(th, obs, weights);
    memcpy(th, th0, sizeof th);
    th[k] -= h;
    double fm = misfit(th, obs, weights);
    double fd = (fp - fm) / (2 * h);
    APPROX_EQ(dth[k], fd, 1e-6);
    dir += fd * tdir[k];
  }
  APPROX_EQ(dth[NP - 1], 0.0, 0.0);  // replaced by a value read from text
  APPROX_EQ(tan, dir, 1e-6);
  printf("OK\n");
  return 0;
}
