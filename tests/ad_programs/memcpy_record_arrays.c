// Arrays of records copied with memcpy/memmove of run-time length, the way C code keeps
// particles and links in plain structs: {int id; float w; double m} (an int, then a float
// and a double) copied into a work array and shifted by one record in place both ways
// (overlapping memmoves), and {int tag; double a, b; const double *src} (an int, doubles
// and a pointer into the input) copied into a second array, whose copies must carry the
// pointers' shadows. The derivatives with respect to every field of the particles (float
// ones too) and to the input are checked against central differences, in combined reverse
// mode twice (derivatives add up). Before, each copy was refused at run time: 'it mixes
// floating-point values of different types (double and float)'.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

#define N 6

typedef struct {
  int id;
  float w;
  double m;
} Particle;

typedef struct {
  int tag;
  double a, b;
  const double *src;  // into the input
} Link;

double energy(const Particle *ps, const double *x, int n) {
  Particle *work = (Particle *)malloc((size_t)n * sizeof *work);
  memcpy(work, ps, (size_t)n * sizeof *work);
  memmove(work, work + 1, (size_t)(n - 1) * sizeof *work);  // drop the first
  work[n - 1] = ps[0];
  memmove(work + 1, work, (size_t)(n - 1) * sizeof *work);  // and back: one record right
  Link *links = (Link *)malloc((size_t)n * sizeof *links);
  for (int i = 0; i < n; i++) {
    links[i].tag = i + 1;
    links[i].a = x[i];
    links[i].b = 0.5 * x[(i + 1) % n] + work[i].m;
    links[i].src = &x[(i + 2) % n];
  }
  Link *moved = (Link *)malloc((size_t)n * sizeof *moved);
  memcpy(moved, links, (size_t)n * sizeof *moved);
  double e = 0.0;
  for (int i = 0; i < n; i++) {
    e += work[i].w * work[i].m * work[i].m * (work[i].id + 1);
    e += moved[i].a * moved[i].b * *moved[i].src + moved[i].tag * sin(moved[i].a);
  }
  free(moved);
  free(links);
  free(work);
  return e;
}

int main(void) {
  Particle ps[N];
  double x[N];
  for (int i = 0; i < N; i++) {
    ps[i].id = i;
    ps[i].w = 0.5f + 0.25f * (float)i;  // exact in float: w +- h too
    ps[i].m = 0.3 + 0.11 * i;
    x[i] = 0.2 - 0.07 * i + 0.01 * i * i;
  }
  // central differences, along every field
  const double h = 1.0 / 1024;
  double fd_m[N], fd_w[N], fd_x[N];
  for (int k = 0; k < N; k++) {
    Particle p[N];
    double xp[N];
    memcpy(p, ps, sizeof p);
    p[k].m = ps[k].m + h;
    double up = energy(p, x, N);
    p[k].m = ps[k].m - h;
    fd_m[k] = (up - energy(p, x, N)) / (2 * h);
    p[k].m = ps[k].m;
    p[k].w = ps[k].w + (float)h;
    up = energy(p, x, N);
    p[k].w = ps[k].w - (float)h;
    fd_w[k] = (up - energy(p, x, N)) / (2 * h);
    memcpy(xp, x, sizeof xp);
    xp[k] = x[k] + 1e-6;
    up = energy(ps, xp, N);
    xp[k] = x[k] - 1e-6;
    fd_x[k] = (up - energy(ps, xp, N)) / 2e-6;
  }

  Particle dps[N];
  double dx[N] = {0};
  memset(dps, 0, sizeof dps);
  for (int round = 1; round <= 2; round++) {
    __enzyme_autodiff((void *)energy, enzyme_dup, ps, dps, enzyme_dup, x, dx, enzyme_const, N);
    for (int k = 0; k < N; k++) {
      APPROX_EQ(dps[k].m, round * fd_m[k], 1e-6);
      APPROX_EQ(dps[k].w, round * fd_w[k], 1e-5);  // (a float adjoint)
      APPROX_EQ(dx[k], round * fd_x[k], 1e-6);
      if (dps[k].id != 0) abort();  // integers carry no adjoint
    }
  }
  printf("OK\n");
  return 0;
}
