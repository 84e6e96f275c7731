/* Normalizing vectors with a reciprocal square root from a prebuilt library
   (fast_rsqrt, rsqrt_stateless_custom.lib.c). Its custom gradient keeps no tape: the
   augmented forward pass has nothing to do and returns nothing (Enzyme accepts that for
   a function with a result, which then comes from the function itself), and the reverse
   pass recomputes what it needs from the argument. Checked against central
   differences, in a loop and with the result used twice. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

double fast_rsqrt(double x);

static void rsqrt_augmented(double x) { (void)x; }

static double rsqrt_reverse(double x, double d_result) {
  double r = fast_rsqrt(x);
  return -0.5 * d_result * r * r * r;
}

void *__enzyme_register_gradient_rsqrt[3] = {(void *)fast_rsqrt, (void *)rsqrt_augmented,
                                             (void *)rsqrt_reverse};

/* sum over points of w . (p / |p|), and the inverse norms' sum */
double normalized_projection(const double *pts, int n, const double *w) {
  double total = 0;
  for (int i = 0; i < n; i++) {
    const double *p = pts + 3 * i;
    double r = fast_rsqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    total += r * (w[0] * p[0] + w[1] * p[1] + w[2] * p[2]) + 0.1 * r;
  }
  return total;
}

int main(void) {
  enum { N = 4 };
  double pts[3 * N] = {1.0, 2.0, 2.0, -0.5, 0.3, 1.2, 3.0, -1.0, 0.2, 0.4, 0.4, -2.0};
  double w[3] = {0.7, -0.2, 0.5}, dpts[3 * N] = {0};
  __enzyme_autodiff((void *)normalized_projection, enzyme_dup, pts, dpts, enzyme_const, N,
                    enzyme_const, w);
  for (int k = 0; k < 3 * N; k++) {
    double h = 1e-6, save = pts[k];
    pts[k] = save + h;
    double fp = normalized_projection(pts, N, w);
    pts[k] = save - h;
    double fm = normalized_projection(pts, N, w);
    pts[k] = save;
    double fd = (fp - fm) / (2 * h);
    if (fabs(dpts[k] - fd) > 1e-7 * (1 + fabs(fd))) {
      printf("dpts[%d] = %.17g, finite differences %.17g\n", k, dpts[k], fd);
      abort();
    }
  }
  printf("OK\n");
  return 0;
}
