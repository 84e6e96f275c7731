// A real example of Enzyme's C API: the gradient of the n-dimensional Rosenbrock
// function, checked against central finite differences. Build with
//   irgrad cc -O2 examples/rosenbrock.c -o rosenbrock -lm
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "enzyme/enzyme.h"

static double rosenbrock(const double *x, int n) {
  double f = 0.0;
  for (int i = 0; i + 1 < n; ++i) {
    double a = 1.0 - x[i];
    double b = x[i + 1] - x[i] * x[i];
    f += a * a + 100.0 * b * b;
  }
  return f;
}

int main(void) {
  enum { N = 6 };
  double x[N], dx[N] = {0};
  for (int i = 0; i < N; ++i) x[i] = 0.5 + 0.1 * i;

  __enzyme_autodiff((void *)rosenbrock, enzyme_dup, x, dx, enzyme_const, N);

  double worst = 0.0;
  printf("f(x) = %.6f\n", rosenbrock(x, N));
  for (int i = 0; i < N; ++i) {
    double h = 1e-6, xi = x[i];
    x[i] = xi + h;
    double fp = rosenbrock(x, N);
    x[i] = xi - h;
    double fm = rosenbrock(x, N);
    x[i] = xi;
    double fd = (fp - fm) / (2 * h);
    double err = fabs(fd - dx[i]) / fmax(1.0, fabs(fd));
    if (err > worst) worst = err;
    printf("df/dx[%d] = %12.6f   (finite differences %12.6f)\n", i, dx[i], fd);
  }
  printf("largest relative difference: %.2e\n", worst);
  if (worst > 1e-6) {
    fprintf(stderr, "gradient does not match finite differences\n");
    return 1;
  }
  return 0;
}
