// calloc'd zeroed scratch accumulated into, inside the differentiated function.
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
double __enzyme_autodiff(void *, ...);

double histogram_energy(double x, int bins) {
  double *h = (double *)calloc(bins, sizeof(double));
  for (int i = 0; i < 3 * bins; i++) h[i % bins] += x * (i + 1);
  double s = 0.0;
  for (int b = 0; b < bins; b++) s += h[b] * h[b];
  free(h);
  return s;
}

int main(void) {
  double x = 0.3;
  int bins = 4;
  // h[b] = x * c_b with c_b = (b+1) + (b+1+bins) + (b+1+2 bins); s = x^2 sum c_b^2
  double sum_c2 = 0.0;
  for (int b = 0; b < bins; b++) {
    double c = 3.0 * (b + 1) + 3.0 * bins;
    sum_c2 += c * c;
  }
  APPROX_EQ(__enzyme_autodiff((void *)histogram_energy, x, bins), 2.0 * x * sum_c2, 1e-12);
  printf("OK\n");
  return 0;
}
