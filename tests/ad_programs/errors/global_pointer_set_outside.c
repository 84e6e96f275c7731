// EXPECT-ERROR: into the memory global @work points to
// A global pointer to a work buffer allocated outside the differentiated code: the buffer
// has no shadow, so active data copied into it would lose its derivative.
#include <stdlib.h>
#include <string.h>
double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

static double *work;

void setup(int n) { work = malloc(n * sizeof(double)); }

double sum_of_squares(const double *x, int n) {
  memcpy(work, x, n * sizeof(double));
  double s = 0.0;
  for (int i = 0; i < n; i++) s += work[i] * work[i];
  return s;
}

int main(void) {
  double x[3] = {1.0, 2.0, 3.0}, dx[3] = {0};
  setup(3);
  __enzyme_autodiff((void *)sum_of_squares, x, dx, enzyme_const, 3);
  return dx[0] > 0.0;
}
