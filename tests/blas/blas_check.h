/* A numeric check of one BLAS derivative rule, Enzyme style.
 *
 * A kernel `void k(T *a, T *b, T *c, T *s)` maps four buffers to themselves (in place,
 * the way BLAS works); `PATTERN(T, k, ma, mb, mc, ms)` defines the reverse and forward
 * derivatives of k with each buffer `dup` (active) or `const` (inactive), and
 * `CHECK(T, name, k, ma, mb, mc, ms, init)` runs them on random inputs, tangents t and
 * cotangents w of the active buffers, and checks the dot-product test
 *     <t, J^T w> (reverse) = <J t, w> (forward) = central finite difference of <f, w>,
 * that the value is not zero (no vacuous pass), and aborts with a message otherwise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
extern void __enzyme_autodiff(void *, ...);
extern void __enzyme_fwddiff(void *, ...);

#define NBUF 96
#define ARG_dup(p) enzyme_dup, p, d##p
#define ARG_const(p) enzyme_const, p
#define IS_dup 1
#define IS_const 0

static unsigned check_rng = 12345u;
static double check_rnd(void) {
  check_rng = check_rng * 1103515245u + 12345u;
  return (double)((check_rng >> 8) & 0xffff) / 65536.0 - 0.5;
}
static int check_failures = 0;

#define PATTERN(T, K, ma, mb, mc, ms)                                                    \
  static void K##_##ma##_##mb##_##mc##_##ms##_rev(T *a, T *da, T *b, T *db, T *c, T *dc, \
                                                  T *s, T *ds) {                         \
    (void)da; (void)db; (void)dc; (void)ds;                                              \
    __enzyme_autodiff((void *)K, ARG_##ma(a), ARG_##mb(b), ARG_##mc(c), ARG_##ms(s));    \
  }                                                                                      \
  static void K##_##ma##_##mb##_##mc##_##ms##_fwd(T *a, T *da, T *b, T *db, T *c, T *dc, \
                                                  T *s, T *ds) {                         \
    (void)da; (void)db; (void)dc; (void)ds;                                              \
    __enzyme_fwddiff((void *)K, ARG_##ma(a), ARG_##mb(b), ARG_##mc(c), ARG_##ms(s));     \
  }

#define CHECK(T, name, K, ma, mb, mc, ms, init)                                          \
  check_##T(name, K, K##_##ma##_##mb##_##mc##_##ms##_rev,                                 \
            K##_##ma##_##mb##_##mc##_##ms##_fwd,                                          \
            IS_##ma | (IS_##mb << 1) | (IS_##mc << 2) | (IS_##ms << 3), init)

#define DEFINE_CHECK(T, TOL_AD, TOL_FD, H)                                               \
  typedef void (*kern_##T)(T *, T *, T *, T *);                                          \
  typedef void (*diff_##T)(T *, T *, T *, T *, T *, T *, T *, T *);                      \
  typedef void (*init_##T)(T x[4][NBUF]);                                                \
  static __attribute__((unused)) double out_dot_##T(kern_##T k, T x0[4][NBUF], T t[4][NBUF], double h,           \
                            T w[4][NBUF], int act) {                                     \
    T x[4][NBUF];                                                                        \
    for (int j = 0; j < 4; j++)                                                          \
      for (int i = 0; i < NBUF; i++) x[j][i] = (T)(x0[j][i] + h * t[j][i]);              \
    k(x[0], x[1], x[2], x[3]);                                                           \
    double sum = 0;                                                                      \
    for (int j = 0; j < 4; j++)                                                          \
      if (act >> j & 1)                                                                  \
        for (int i = 0; i < NBUF; i++) sum += (double)w[j][i] * (double)x[j][i];         \
    return sum;                                                                          \
  }                                                                                      \
  static __attribute__((unused)) void check_##T(const char *name, kern_##T k, diff_##T rev, diff_##T fwd,        \
                        int act, init_##T init) {                                        \
    static T x0[4][NBUF], t[4][NBUF], w[4][NBUF], x[4][NBUF], d[4][NBUF];               \
    for (int j = 0; j < 4; j++)                                                          \
      for (int i = 0; i < NBUF; i++) {                                                   \
        x0[j][i] = (T)check_rnd();                                                       \
        t[j][i] = (act >> j & 1) ? (T)check_rnd() : 0;                                   \
        w[j][i] = (act >> j & 1) ? (T)check_rnd() : 0;                                   \
      }                                                                                  \
    if (init) init(x0);                                                                  \
    memcpy(x, x0, sizeof x);                                                             \
    memcpy(d, w, sizeof d);                                                              \
    rev(x[0], d[0], x[1], d[1], x[2], d[2], x[3], d[3]);                                 \
    double r = 0;                                                                        \
    for (int j = 0; j < 4; j++)                                                          \
      for (int i = 0; i < NBUF; i++) r += (double)t[j][i] * (double)d[j][i];             \
    memcpy(x, x0, sizeof x);                                                             \
    memcpy(d, t, sizeof d);                                                              \
    fwd(x[0], d[0], x[1], d[1], x[2], d[2], x[3], d[3]);                                 \
    double f = 0;                                                                        \
    for (int j = 0; j < 4; j++)                                                          \
      if (act >> j & 1)                                                                  \
        for (int i = 0; i < NBUF; i++) f += (double)w[j][i] * (double)d[j][i];           \
    double fd = (out_dot_##T(k, x0, t, H, w, act) - out_dot_##T(k, x0, t, -H, w, act)) / \
                (2 * H);                                                                 \
    int bad = fabs(r - f) > TOL_AD * (1 + fabs(f)) || fabs(fd - f) > TOL_FD * (1 + fabs(f)) \
              || fabs(f) < 1e-6;                                                         \
    printf("%-34s %-6s act=%x reverse %.12g forward %.12g fd %.12g%s\n", name, #T, act,  \
           r, f, fd, bad ? "  MISMATCH" : "");                                           \
    if (bad) check_failures++;                                                           \
  }

DEFINE_CHECK(double, 1e-9, 1e-6, 1e-5)
DEFINE_CHECK(float, 2e-3, 2e-2, 1e-2)

static int check_done(void) {
  if (check_failures) {
    printf("%d mismatches\n", check_failures);
    fflush(stdout);
    abort();
  }
  puts("OK");
  return 0;
}
