/* Steady state of a nonlinear reaction-diffusion chain by Picard (Jacobi) sweeps,
   u_k <- (u_{k-1} + u_{k+1} + s_k) / (2 + r exp(-u_k)), until the update is below tol.
   The source s depends on parameters p; the loss is a weighted sum of squares of the
   steady state. The gradient through __enzyme_fixed_point (the adjoint iterated at the
   converged state, no limit on its iterations) must match the gradient through every
   sweep of the plain loop and central differences; the state's shadow is zero after it
   (the steady state does not depend on the initial guess); forward mode (the tangent
   iterated at the converged state) matches reverse mode. */
#include <enzyme/fixed_point.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N 16
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct { double r; double tol; } opts_t;

static int sweep(int64_t it, double *u, const double *s, const opts_t *o) {
  (void)it;
  double next[N], change = 0;
  for (int k = 0; k < N; k++) {
    double left = k > 0 ? u[k - 1] : 0.0, right = k < N - 1 ? u[k + 1] : 0.0;
    next[k] = (left + right + s[k]) / (2.0 + o->r * exp(-u[k]));
  }
  for (int k = 0; k < N; k++) {
    change = fmax(change, fabs(next[k] - u[k]));
    u[k] = next[k];
  }
  return change > o->tol;
}

static void sources(const double *p, double *s) {
  for (int k = 0; k < N; k++) s[k] = p[0] * sin(0.3 * k) + p[1] * cos(0.2 * k) + p[2];
}

static double loss(const double *u) {
  double l = 0;
  for (int k = 0; k < N; k++) l += (k + 1) * u[k] * u[k];
  return l / N;
}

double steady_plain(const double *p, double *u, const opts_t *o) {
  double s[N];
  sources(p, s);
  int64_t it = 0;
  while (sweep(it++, u, s, o))
    ;
  return loss(u);
}

double steady_fixed(const double *p, double *u, const opts_t *o) {
  double s[N];
  sources(p, s);
  __enzyme_fixed_point((void *)sweep, enzyme_fp_state, u, (int64_t)sizeof(double) * N,
                       enzyme_fp_reduction, 1e-28, enzyme_fp_max_iters, (int64_t)0, u, s, o);
  return loss(u);
}

int main(void) {
  opts_t o = {0.5, 1e-14};
  double p[3] = {0.8, -0.3, 0.4};
  double u0[N], u[N], du[N], dp[3] = {0}, dp_plain[3] = {0};
  for (int k = 0; k < N; k++) u0[k] = 0.0;
  memcpy(u, u0, sizeof u);
  memset(du, 0, sizeof du);
  __enzyme_autodiff((void *)steady_plain, enzyme_dup, p, dp_plain, enzyme_dup, u, du,
                    enzyme_const, &o);
  memcpy(u, u0, sizeof u);
  memset(du, 0, sizeof du);
  __enzyme_autodiff((void *)steady_fixed, enzyme_dup, p, dp, enzyme_dup, u, du,
                    enzyme_const, &o);
  int bad = 0;
  for (int j = 0; j < 3; j++) {
    double h = 1e-6, pp[3], pm[3], uu[N];
    memcpy(pp, p, sizeof p); memcpy(pm, p, sizeof p);
    pp[j] += h; pm[j] -= h;
    memcpy(uu, u0, sizeof uu); double fp = steady_plain(pp, uu, &o);
    memcpy(uu, u0, sizeof uu); double fm = steady_plain(pm, uu, &o);
    double fd = (fp - fm) / (2 * h);
    printf("dp[%d] fixed %.15g plain %.15g fd %.15g\n", j, dp[j], dp_plain[j], fd);
    if (fabs(dp[j] - dp_plain[j]) > 1e-10 * (1 + fabs(dp_plain[j])) ||
        fabs(dp[j] - fd) > 1e-6 * (1 + fabs(fd))) bad++;
  }
  for (int k = 0; k < N; k++) if (du[k] != 0.0) { printf("du[%d] = %g\n", k, du[k]); bad++; }
  /* forward mode: tangent along direction v */
  double v[3] = {0.3, 0.2, -0.1}, tu[N] = {0};
  memcpy(u, u0, sizeof u);
  double t = __enzyme_fwddiff((void *)steady_fixed, enzyme_dup, p, v, enzyme_dup, u, tu,
                              enzyme_const, &o);
  double dot = dp_plain[0] * v[0] + dp_plain[1] * v[1] + dp_plain[2] * v[2];
  printf("forward %.15g  reverse.v %.15g\n", t, dot);
  if (fabs(t - dot) > 1e-9 * (1 + fabs(dot))) bad++;
  printf(bad ? "FAIL\n" : "OK\n");
  return bad != 0;
}
