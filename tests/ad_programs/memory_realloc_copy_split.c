// A signal copied into a work buffer, which is then grown with realloc to append
// ghost cells before a periodic smoothing pass reads it -- the staging many filter
// codes do. The copy loop becomes a memcpy whose bytes nothing reads with a type
// before the realloc: only the loads from the grown buffer say they are doubles, so
// the type of the copy has to be seen through realloc (it copies the old contents).
// Differentiated in split mode (__enzyme_augmentfwd, then __enzyme_reverse), in
// combined mode and in forward mode, each checked against finite differences.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_out, enzyme_const;
typedef struct { void *tape; double result; } Augmented;
Augmented __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
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

#define N 5
#define GHOST 2

// out[i] = (w[i-1] + 2 w[i] + w[i+1]) / 4 over the signal extended periodically
double smooth(const double *sig, int n, double *out) {
  double *w = (double *)malloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; i++) w[i] = sig[i];
  w = (double *)realloc(w, (size_t)(n + GHOST) * sizeof(double));
  w[n] = w[0];
  w[n + 1] = w[1];
  double energy = 0.0;
  for (int i = 0; i < n; i++) {
    double left = i == 0 ? w[n - 1] : w[i - 1];
    out[i] = 0.25 * (left + 2.0 * w[i] + w[i + 1]);
    energy += out[i] * out[i];
  }
  free(w);
  return energy;
}

// L(sig) = smooth(sig) + sum_i g_i out_i, which every mode below differentiates
static double objective(const double *sig, const double *g) {
  double out[N];
  double e = smooth(sig, N, out);
  for (int i = 0; i < N; i++) e += g[i] * out[i];
  return e;
}

int main(void) {
  const double sig0[N] = {0.3, -1.2, 0.7, 2.0, -0.4};
  const double g[N] = {0.5, -0.25, 1.0, 0.125, -2.0};
  double fd[N];
  for (int k = 0; k < N; k++) {
    double p[N], m[N];
    memcpy(p, sig0, sizeof p);
    memcpy(m, sig0, sizeof m);
    p[k] += 1e-6;
    m[k] -= 1e-6;
    fd[k] = (objective(p, g) - objective(m, g)) / 2e-6;
  }

  // split mode: the adjoint of the result is 1, the adjoints of out are g
  double sig[N], dsig[N] = {0}, out[N], dout[N];
  memcpy(sig, sig0, sizeof sig);
  memcpy(dout, g, sizeof dout);
  Augmented aug = __enzyme_augmentfwd((void *)smooth, enzyme_dup, sig, dsig, enzyme_const,
                                      N, enzyme_dup, out, dout);
  __enzyme_reverse((void *)smooth, enzyme_dup, sig, dsig, enzyme_const, N, enzyme_dup, out,
                   dout, 1.0, aug.tape);
  for (int k = 0; k < N; k++) APPROX_EQ(dsig[k], fd[k], 1e-6);

  // combined mode, twice: the second call must not see the first one's leftovers
  for (int rep = 0; rep < 2; rep++) {
    double d2[N] = {0};
    __enzyme_autodiff((void *)objective, enzyme_dup, sig, d2, enzyme_const, g);
    for (int k = 0; k < N; k++) APPROX_EQ(d2[k], fd[k], 1e-6);
  }

  // forward mode: the directional derivative along e_k
  for (int k = 0; k < N; k++) {
    double t[N] = {0}, o3[N], do3[N] = {0};
    t[k] = 1.0;
    double de = __enzyme_fwddiff((void *)smooth, enzyme_dup, sig, t, enzyme_const, N,
                                 enzyme_dup, o3, do3);
    double dl = de;
    for (int i = 0; i < N; i++) dl += g[i] * do3[i];
    APPROX_EQ(dl, fd[k], 1e-6);
  }
  printf("OK\n");
  return 0;
}
