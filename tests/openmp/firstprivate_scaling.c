/* Scalars handed to parallel loops by copy (firstprivate, and the default for scalars in
   a task-free region with default(firstprivate)-like captures): clang passes a double
   captured by value to the outlined region as the bits of an integer. The scale alpha is
   active: its derivative sums over every iteration of every thread. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static void scale_shift(double *restrict y, const double *restrict x, int n, double alpha,
                        double beta) {
#pragma omp parallel for firstprivate(alpha, beta) schedule(static)
  for (int i = 0; i < n; i++) y[i] = alpha * tanh(x[i]) + beta * x[i] * x[i];
}

double objective(const double *x, double *y, int n, double alpha) {
  double beta = 0.5 * alpha * alpha;
  scale_shift(y, x, n, alpha, beta);
  double s = 0.0;
#pragma omp parallel for reduction(+ : s) firstprivate(alpha)
  for (int i = 0; i < n; i++) s += y[i] * y[i] / (1.0 + alpha * alpha);
  return s;
}

int main(void) {
  enum { N = 37 };
  double x[N], dx[N] = {0}, y[N], dy[N] = {0}, alpha = 0.8;
  for (int i = 0; i < N; i++) x[i] = sin(0.7 * i) + 0.2;
  double dalpha = __enzyme_autodiff((void *)objective, enzyme_dup, x, dx, enzyme_dup, y, dy,
                                    enzyme_const, N, enzyme_out, alpha);
  int bad = 0;
  double h = 1e-6;
  double fd = (objective(x, y, N, alpha + h) - objective(x, y, N, alpha - h)) / (2 * h);
  if (fabs(fd - dalpha) > 1e-6 * (1 + fabs(fd))) {
    printf("dalpha = %.12g, finite differences %.12g\n", dalpha, fd);
    bad++;
  }
  double tx[N], dir = 0.0;
  for (int i = 0; i < N; i++) {
    double save = x[i];
    x[i] = save + h;
    double fp = objective(x, y, N, alpha);
    x[i] = save - h;
    double fm = objective(x, y, N, alpha);
    x[i] = save;
    double fdi = (fp - fm) / (2 * h);
    if (fabs(fdi - dx[i]) > 1e-6 * (1 + fabs(fdi))) {
      printf("dx[%d] = %.12g, finite differences %.12g\n", i, dx[i], fdi);
      bad++;
    }
    tx[i] = cos(1.1 * i);
    dir += fdi * tx[i];
  }
  double ty[N] = {0};
  double tan = __enzyme_fwddiff((void *)objective, enzyme_dup, x, tx, enzyme_dup, y, ty,
                                enzyme_const, N, 0.8, 0.5);
  if (fabs(tan - (dir + 0.5 * fd)) > 1e-6 * (1 + fabs(tan))) {
    printf("tangent %.12g, finite differences %.12g\n", tan, dir + 0.5 * fd);
    bad++;
  }
  printf("%s (%d threads)\n", bad ? "WRONG" : "OK", omp_get_max_threads());
  return bad != 0;
}
