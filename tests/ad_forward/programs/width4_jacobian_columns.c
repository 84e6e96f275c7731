// Width 4 with pointers: four shadow arrays give four Jacobian-vector products at once.
#include "fd_check.h"
void __enzyme_fwddiff(void *, ...);

void f(const double *x, double *y) {
  y[0] = x[0] * x[1];
  y[1] = sin(x[2]) + x[3] * x[0];
  y[2] = exp(x[1] - x[3]);
}

int main(void) {
  double x[4] = {0.5, -1.0, 0.3, 2.0}, y[3];
  double e[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
  double J[4][3] = {{0}};
  __enzyme_fwddiff((void *)f, enzyme_width, 4, enzyme_dup, x, e[0], e[1], e[2], e[3],
                   enzyme_dupnoneed, y, J[0], J[1], J[2], J[3]);
  const double h = 1e-6;
  for (int j = 0; j < 4; j++) {
    double xp[4], xm[4], yp[3], ym[3];
    for (int i = 0; i < 4; i++) { xp[i] = x[i] + h * e[j][i]; xm[i] = x[i] - h * e[j][i]; }
    f(xp, yp); f(xm, ym);
    for (int i = 0; i < 3; i++) CHECK_CLOSE(J[j][i], (yp[i] - ym[i]) / (2 * h), FD_TOL);
  }
  printf("OK\n");
  return 0;
}
