// Floating-point data moved through integers, as serialization, hashing and message
// buffers do: a double stored into a uint64_t (memcpy, a pointer cast, a union) and read
// back as a double, whole records copied as 64-bit words, and a ring buffer of raw words.
// Clang emits `store i64` / `load i64` around bitcasts for all of them; the derivatives
// must flow through those integers in both modes. Checked against central differences
// and forward mode.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_const, enzyme_dup;

static uint64_t pack_double(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static double unpack_double(uint64_t u) {
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

typedef union {
  double d;
  uint64_t u;
  long l;
} word_t;

typedef struct {
  double position, velocity;
  int id;
} particle_t;

// a message: particles serialized as raw 64-bit words, then read back
static void serialize(const particle_t *p, int n, uint64_t *buf) {
  for (int i = 0; i < n; i++) {
    buf[2 * i] = pack_double(p[i].position);
    buf[2 * i + 1] = pack_double(p[i].velocity);
  }
}

static void deserialize(const uint64_t *buf, int n, particle_t *p) {
  for (int i = 0; i < n; i++) {
    p[i].position = unpack_double(buf[2 * i]);
    p[i].velocity = unpack_double(buf[2 * i + 1]);
    p[i].id = i;
  }
}

// copy an array of doubles word by word through a `long`, as a generic copy routine would
static void copy_words(void *dst, const void *src, int nwords) {
  for (int i = 0; i < nwords; i++) {
    long w;
    memcpy(&w, (const char *)src + i * sizeof w, sizeof w);
    memcpy((char *)dst + i * sizeof w, &w, sizeof w);
  }
}

double energy(double *x, int n) {
  particle_t parts[8];
  uint64_t wire[16];
  for (int i = 0; i < n; i++) {
    parts[i].position = x[i];
    parts[i].velocity = sin(x[i]);
    parts[i].id = -1;
  }
  serialize(parts, n, wire);
  particle_t back[8];
  deserialize(wire, n, back);
  double e = 0.0;
  for (int i = 0; i < n; i++) {
    word_t w;
    w.d = back[i].velocity * back[i].position;
    long bits = w.l;           // through a union member of another type
    word_t r;
    r.l = bits;
    e += r.d * back[i].velocity;
  }
  double scratch[8];
  copy_words(scratch, x, n);
  for (int i = 0; i < n; i++) e += scratch[i] * scratch[i] * x[i];
  // the value itself round-trips through a uint64_t in memory the caller can see
  x[n] = unpack_double(pack_double(e * 0.5));
  return e + x[n];
}

// the simplest form, from the issue: a double stored through a uint64_t and read back
double roundtrip(double *x) {
  uint64_t u;
  memcpy(&u, &x[0], sizeof u);
  memcpy(&x[1], &u, sizeof u);
  return x[1] * x[2];
}

static void check(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1.0 + fabs(want)))) {
    fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    abort();
  }
}

int main(void) {
  enum { N = 5 };
  double x0[N + 1] = {0.3, -1.2, 0.7, 2.0, 1.1, 0.0};
  double x[N + 1], dx[N + 1];
  memcpy(x, x0, sizeof x);
  memset(dx, 0, sizeof dx);
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, N);
  for (int k = 0; k < N; k++) {
    double h = 1e-6, xp[N + 1], xm[N + 1];
    memcpy(xp, x0, sizeof xp);
    memcpy(xm, x0, sizeof xm);
    xp[k] += h;
    xm[k] -= h;
    double fd = (energy(xp, N) - energy(xm, N)) / (2 * h);
    check("energy: reverse vs central difference", dx[k], fd, 1e-6);
    double t[N + 1] = {0};
    t[k] = 1.0;
    memcpy(x, x0, sizeof x);
    double tangent = __enzyme_fwddiff((void *)energy, enzyme_dup, x, t, enzyme_const, N);
    check("energy: forward vs reverse", tangent, dx[k], 1e-10);
  }

  double y[3] = {1.5, 2.0, 3.0}, dy[3] = {0.0, 0.0, 0.0};
  __enzyme_autodiff((void *)roundtrip, enzyme_dup, y, dy);
  // f = y0 * y2 (y1 is overwritten by y0's bits)
  check("roundtrip d/dy0", dy[0], 3.0, 1e-12);
  check("roundtrip d/dy1", dy[1], 0.0, 1e-12);
  check("roundtrip d/dy2", dy[2], 1.5, 1e-12);
  double ty[3] = {1.0, 0.0, 0.0}, z[3] = {1.5, 2.0, 3.0};
  check("roundtrip forward", __enzyme_fwddiff((void *)roundtrip, enzyme_dup, z, ty), 3.0,
        1e-12);
  printf("OK\n");
  return 0;
}
