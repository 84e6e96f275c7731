// A struct passed by pointer: its shadow struct carries the fields' tangents.
#include "fd_check.h"
double __enzyme_fwddiff(void *, ...);

typedef struct { double a, b; int n; double w[3]; } Params;

double f(const Params *p) {
  double s = p->a * p->b;
  for (int i = 0; i < p->n; i++) s += p->w[i] * p->a;
  return s;
}

int main(void) {
  Params p = {1.5, -0.5, 3, {0.1, 0.2, 0.3}}, dp = {1.0, 2.0, 0, {0.5, 0.0, -1.0}};
  double want = dp.a * p.b + p.a * dp.b;
  for (int i = 0; i < 3; i++) want += dp.w[i] * p.a + p.w[i] * dp.a;
  CHECK_CLOSE(__enzyme_fwddiff((void *)f, &p, &dp), want, 1e-12);
  printf("OK\n");
  return 0;
}
