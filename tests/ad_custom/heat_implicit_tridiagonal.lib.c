/* An "opaque library": compiled natively and linked, never seen by irgrad as IR.
 * Thomas algorithm for the tridiagonal system
 *   lo[i] x[i-1] + diag[i] x[i] + up[i] x[i+1] = rhs[i],  i = 0..n-1
 * (lo[0] and up[n-1] are not used). */
#include <stdlib.h>

void tridiag_solve(int n, const double *lo, const double *diag, const double *up,
                   const double *rhs, double *x) {
  double *c = malloc(sizeof(double) * (size_t)n);
  double *d = malloc(sizeof(double) * (size_t)n);
  c[0] = up[0] / diag[0];
  d[0] = rhs[0] / diag[0];
  for (int i = 1; i < n; i++) {
    double m = diag[i] - lo[i] * c[i - 1];
    c[i] = i < n - 1 ? up[i] / m : 0.0;
    d[i] = (rhs[i] - lo[i] * d[i - 1]) / m;
  }
  x[n - 1] = d[n - 1];
  for (int i = n - 2; i >= 0; i--) x[i] = d[i] - c[i] * x[i + 1];
  free(c);
  free(d);
}
