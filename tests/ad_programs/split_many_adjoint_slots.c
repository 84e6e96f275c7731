// A rotation with many scalar temporaries in a noinline callee called in a loop (ADBench
// BA's rodrigues_rotate_point): the callee gets an augmented primal / reverse pair whose
// reverse half recreates many adjoint slots (an output that must be the same every run).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)
void __enzyme_autodiff(void *, ...);

static void cross(const double *a, const double *b, double *o) {
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}

__attribute__((noinline)) void rotate(const double *rot, const double *X, double *out) {
  const double sqtheta = rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2];
  const double theta = sqrt(sqtheta);
  const double costheta = cos(theta), sintheta = sin(theta), inv = 1.0 / theta;
  const double w[3] = {rot[0] * inv, rot[1] * inv, rot[2] * inv};
  double wx[3];
  cross(w, X, wx);
  const double tmp = (w[0] * X[0] + w[1] * X[1] + w[2] * X[2]) * (1.0 - costheta);
  for (int i = 0; i < 3; i++) out[i] = X[i] * costheta + wx[i] * sintheta + w[i] * tmp;
}

// sum over points of |R(rot) p_k|^2 weighted, p_k overwritten in place by its rotation
double energy(const double *rot, double *pts, int n) {
  double e = 0.0;
  for (int k = 0; k < n; k++) {
    double r[3];
    rotate(rot, &pts[3 * k], r);
    for (int i = 0; i < 3; i++) {
      e += (i + 1.0) * r[i] * r[i] * r[i];
      pts[3 * k + i] = r[i];
    }
  }
  return e;
}

static double run(const double *rot, const double *p0, int n) {
  double p[12];
  memcpy(p, p0, sizeof(double) * 3 * n);
  return energy(rot, p, n);
}

int main(void) {
  enum { N = 4 };
  const double rot[3] = {0.3, -0.2, 0.5};
  const double p0[3 * N] = {1, 2, 3, -1, 0.5, 2, 0.25, -2, 1, 3, 1, -0.5};
  double drot[3] = {0}, p[3 * N], dp[3 * N] = {0};
  memcpy(p, p0, sizeof p);
  __enzyme_autodiff((void *)energy, enzyme_dup, rot, drot, enzyme_dup, p, dp,
                    enzyme_const, N);
  const double h = 1e-6;
  for (int k = 0; k < 3; k++) {
    double rp[3] = {rot[0], rot[1], rot[2]}, rm[3] = {rot[0], rot[1], rot[2]};
    rp[k] += h;
    rm[k] -= h;
    APPROX_EQ(drot[k], (run(rp, p0, N) - run(rm, p0, N)) / (2 * h), 1e-6);
  }
  for (int k = 0; k < 3 * N; k++) {
    double pp[3 * N], pm[3 * N];
    memcpy(pp, p0, sizeof pp);
    memcpy(pm, p0, sizeof pm);
    pp[k] += h;
    pm[k] -= h;
    APPROX_EQ(dp[k], (run(rot, pp, N) - run(rot, pm, N)) / (2 * h), 1e-6);
  }
  printf("OK\n");
  return 0;
}
