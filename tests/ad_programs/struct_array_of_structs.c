// An array of structs mixing active doubles and integer fields.
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
void __enzyme_autodiff(void *, ...);

typedef struct {
  double x, y;
  int group;
  double weight;
} Point;

double spread(const Point *pts, int n) {
  double cx = 0.0, cy = 0.0;
  for (int i = 0; i < n; i++) {
    cx += pts[i].x;
    cy += pts[i].y;
  }
  cx /= n;
  cy /= n;
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double dx = pts[i].x - cx, dy = pts[i].y - cy;
    s += pts[i].weight * (dx * dx + dy * dy) * (pts[i].group + 1);
  }
  return s;
}

int main(void) {
  enum { N = 4 };
  Point p[N] = {{0.0, 1.0, 0, 1.0}, {2.0, -1.0, 1, 0.5}, {1.0, 3.0, 0, 2.0}, {-1.0, 0.5, 2, 1.5}};
  Point dp[N];
  memset(dp, 0, sizeof dp);
  __enzyme_autodiff((void *)spread, enzyme_dup, p, dp, N);
  for (int k = 0; k < N; k++) {
    double h = 1e-6;
    Point q[N];
    double fp, fm;
    memcpy(q, p, sizeof q);
    q[k].x += h;
    fp = spread(q, N);
    q[k].x -= 2 * h;
    fm = spread(q, N);
    APPROX_EQ(dp[k].x, (fp - fm) / (2 * h), 1e-6);
    memcpy(q, p, sizeof q);
    q[k].weight += h;
    fp = spread(q, N);
    q[k].weight -= 2 * h;
    fm = spread(q, N);
    APPROX_EQ(dp[k].weight, (fp - fm) / (2 * h), 1e-6);
    if (dp[k].group != 0) abort();
  }
  printf("OK\n");
  return 0;
}
