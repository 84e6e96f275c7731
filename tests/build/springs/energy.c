/* The differentiated function: springs between neighbours plus a gravity term. */
#include <math.h>

#include "springs.h"

double chain_energy(const double *x, int n) {
  double e = 0;
  for (int i = 0; i + 1 < n; i++) e += spring(x[i + 1] - x[i] - rest_length(), stiffness(i));
  for (int i = 0; i < n; i++) e += 0.5 * sin(x[i]);
  return e;
}

double chain_energy_gradient_exact(const double *x, int n, int i) {
  double g = 0.5 * cos(x[i]);
  if (i + 1 < n) g -= spring_derivative(x[i + 1] - x[i] - rest_length(), stiffness(i));
  if (i > 0) g += spring_derivative(x[i] - x[i - 1] - rest_length(), stiffness(i - 1));
  return g;
}
