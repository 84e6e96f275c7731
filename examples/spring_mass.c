/* spring_mass.c -- a chain of n unit masses, simulated for `steps` steps of length dt.
 *
 * Mass i is tied to its rest position by a spring of stiffness k[i] and a damper c[i];
 * neighbours are coupled by springs of stiffness kc (the chain's ends are free).
 * Semi-implicit (symplectic) Euler: v += dt * F(x, v); x += dt * v.
 * traj[s * n + i] is the position of mass i after step s + 1.
 * examples/torch_spring_mass.py learns k, c and kc from trajectories with PyTorch.
 */
#include <stdlib.h>
#include <string.h>

void spring_mass(const double *k, const double *c, double kc, const double *x0,
                 const double *v0, double *traj, int n, int steps, double dt) {
  double *v = malloc(sizeof(double) * n);
  memcpy(v, v0, sizeof(double) * n);
  for (int s = 0; s < steps; s++) {
    const double *x = s == 0 ? x0 : traj + (s - 1) * n;
    double *x_next = traj + s * n;
    for (int i = 0; i < n; i++) {
      double force = -k[i] * x[i] - c[i] * v[i];
      if (i > 0) force += kc * (x[i - 1] - x[i]);
      if (i + 1 < n) force += kc * (x[i + 1] - x[i]);
      v[i] += dt * force;
    }
    for (int i = 0; i < n; i++) x_next[i] = x[i] + dt * v[i];
  }
  free(v);
}
