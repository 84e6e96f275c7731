// Split reverse mode with every way Enzyme lets the tape travel, on a function that
// updates its input in place and returns a value; the caller overwrites the inputs
// between the augmented forward pass and the reverse pass. Each way must give the
// combined mode's numbers (which are checked against central differences).
#include <string.h>

#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_tape, enzyme_allocated,
    enzyme_nofree, enzyme_noret, enzyme_not_overwritten, enzyme_nocache;
double __enzyme_autodiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
typedef struct { void *tape; double value; } TapeFirst;
typedef struct { double value; void *tape; } ValueFirst;
TapeFirst __enzyme_augmentfwd_tv(void *, ...);
ValueFirst __enzyme_augmentfwd_vt(void *, ...);
double __enzyme_augmentfwd_value(void *, ...);
int __enzyme_augmentsize(void *, ...);
double __enzyme_reverse(void *, ...);

enum { N = 5 };

// a damped relaxation in place; returns a weighted energy
static double relax(double *u, const double *w, int n, double k) {
  for (int it = 0; it < 3; it++)
    for (int i = 1; i < n - 1; i++) u[i] = u[i] + k * (u[i - 1] - 2 * u[i] + u[i + 1]);
  double e = 0;
  for (int i = 0; i < n; i++) e += w[i] * u[i] * u[i];
  return e;
}

static double run(const double *u0, const double *w, double k) {
  double u[N];
  memcpy(u, u0, sizeof u);
  return relax(u, w, N, k);
}

static void clobber(double *u) {
  for (int i = 0; i < N; i++) u[i] = 1e3 + i;
}

int main(void) {
  const double u0[N] = {0.3, -0.2, 0.9, 0.4, -0.6}, w[N] = {1, 2, 0.5, 1.5, 1};
  const double k = 0.21;
  // reference: combined mode, checked against central differences
  double u[N], du[N] = {0}, dk_ref, du_ref[N];
  memcpy(u, u0, sizeof u);
  dk_ref = __enzyme_autodiff((void *)relax, enzyme_dup, u, du, enzyme_const, w,
                             enzyme_const, N, enzyme_out, k);
  memcpy(du_ref, du, sizeof du);
  for (int i = 0; i < N; i++) {
    double p[N], m[N], h = 1e-6;
    memcpy(p, u0, sizeof p);
    memcpy(m, u0, sizeof m);
    p[i] += h;
    m[i] -= h;
    CHECK(du_ref[i], (run(p, w, k) - run(m, w, k)) / (2 * h), 1e-6);
  }
  CHECK(dk_ref, (run(u0, w, k + 1e-6) - run(u0, w, k - 1e-6)) / 2e-6, 1e-6);
  const double e_ref = run(u0, w, k);

  for (int how = 0; how < 8; how++) {
    memcpy(u, u0, sizeof u);
    memset(du, 0, sizeof du);
    void *tape = NULL;
    _Alignas(16) char buffer[512];
    double e = 0, dk = 0;
    int bytes = __enzyme_augmentsize((void *)relax, enzyme_dup, enzyme_const, enzyme_const,
                                     enzyme_out);
    if (bytes <= 0 || bytes > (int)sizeof buffer) {
      fprintf(stderr, "tape of %d bytes\n", bytes);
      abort();
    }
    switch (how) {
    case 0:  // void * returned, the result is not asked for
    case 7:
      tape = __enzyme_augmentfwd((void *)relax, enzyme_dup, u, du, enzyme_const, w,
                                 enzyme_const, N, enzyme_out, k);
      e = e_ref;
      break;
    case 1: {  // {tape, result}
      TapeFirst r = __enzyme_augmentfwd_tv((void *)relax, enzyme_dup, u, du, enzyme_const,
                                           w, enzyme_const, N, enzyme_out, k);
      tape = r.tape;
      e = r.value;
      break;
    }
    case 2: {  // {result, tape}
      ValueFirst r = __enzyme_augmentfwd_vt((void *)relax, enzyme_dup, u, du, enzyme_const,
                                            w, enzyme_const, N, enzyme_out, k);
      tape = r.tape;
      e = r.value;
      break;
    }
    case 3:  // the tape kept at &tape, the result returned
      e = __enzyme_augmentfwd_value((void *)relax, enzyme_tape, &tape, enzyme_dup, u, du,
                                    enzyme_const, w, enzyme_const, N, enzyme_out, k);
      break;
    case 4:  // enzyme_noret: only the tape comes back
      tape = __enzyme_augmentfwd((void *)relax, enzyme_noret, enzyme_dup, u, du,
                                 enzyme_const, w, enzyme_const, N, enzyme_out, k);
      e = e_ref;
      break;
    default:  // the tape itself in a caller buffer of __enzyme_augmentsize bytes
      e = __enzyme_augmentfwd_value((void *)relax, enzyme_allocated, sizeof buffer,
                                    enzyme_tape, buffer, enzyme_dup, u, du, enzyme_const, w,
                                    enzyme_const, N, enzyme_out, k);
      break;
    }
    CHECK(e, e_ref, 1e-14);
    clobber(u);
    switch (how) {
    case 0:  // the tape as the last argument, the result's adjoint before it
      dk = __enzyme_reverse((void *)relax, enzyme_dup, u, du, enzyme_const, w, enzyme_const,
                            N, enzyme_out, k, 1.0, tape);
      break;
    case 1:
    case 4:  // no adjoint given: 1.0, as in Enzyme
      dk = __enzyme_reverse((void *)relax, enzyme_dup, u, du, enzyme_const, w, enzyme_const,
                            N, enzyme_out, k, tape);
      break;
    case 2: {  // the adjoint scales the whole gradient
      dk = __enzyme_reverse((void *)relax, enzyme_dup, u, du, enzyme_const, w, enzyme_const,
                            N, enzyme_out, k, 2.0, tape) / 2.0;
      for (int i = 0; i < N; i++) du[i] /= 2.0;
      break;
    }
    case 3:
      dk = __enzyme_reverse((void *)relax, enzyme_tape, &tape, enzyme_dup, u, du,
                            enzyme_const, w, enzyme_const, N, enzyme_out, k, 1.0);
      break;
    case 5:
      dk = __enzyme_reverse((void *)relax, enzyme_allocated, sizeof buffer, enzyme_tape,
                            buffer, enzyme_dup, u, du, enzyme_const, w, enzyme_const, N,
                            enzyme_out, k, 1.0);
      break;
    case 7: {  // enzyme_nofree on a heap tape: reversed twice, freed by the second
      double dk1 = __enzyme_reverse((void *)relax, enzyme_dup, u, du, enzyme_const, w,
                                    enzyme_const, N, enzyme_out, k, enzyme_nofree, 1.0, tape);
      double du1[N];
      memcpy(du1, du, sizeof du1);
      memset(du, 0, sizeof du);
      dk = __enzyme_reverse((void *)relax, enzyme_dup, u, du, enzyme_const, w, enzyme_const,
                            N, enzyme_out, k, 1.0, tape);
      CHECK(dk1, dk, 1e-14);
      for (int i = 0; i < N; i++) CHECK(du1[i], du[i], 1e-14);
      break;
    }
    default: {  // enzyme_nofree: the same buffer reversed twice (the first keeps it)
      double dk1 = __enzyme_reverse((void *)relax, enzyme_nofree, enzyme_allocated,
                                    sizeof buffer, enzyme_tape, buffer, enzyme_dup, u, du,
                                    enzyme_const, w, enzyme_const, N, enzyme_out, k, 1.0);
      double du1[N];
      memcpy(du1, du, sizeof du1);
      memset(du, 0, sizeof du);  // the seeds of the outputs again
      clobber(u);
      double dk2 = __enzyme_reverse((void *)relax, enzyme_allocated, sizeof buffer,
                                    enzyme_tape, buffer, enzyme_dup, u, du, enzyme_const, w,
                                    enzyme_const, N, enzyme_out, k, 1.0);
      CHECK(dk1, dk2, 1e-14);
      for (int i = 0; i < N; i++) CHECK(du1[i], du[i], 1e-14);
      dk = dk2;
      break;
    }
    }
    CHECK(dk, dk_ref, 1e-12);
    for (int i = 0; i < N; i++) CHECK(du[i], du_ref[i], 1e-12);
  }

  // enzyme_not_overwritten: the weights are promised unchanged, so the reverse may read
  // them again instead of keeping them on the tape (the numbers do not change)
  memcpy(u, u0, sizeof u);
  memset(du, 0, sizeof du);
  void *t = __enzyme_augmentfwd((void *)relax, enzyme_dup, u, du, enzyme_not_overwritten,
                                enzyme_const, w, enzyme_const, N, enzyme_out, k);
  clobber(u);
  double dk = __enzyme_reverse((void *)relax, enzyme_dup, u, du, enzyme_not_overwritten,
                               enzyme_const, w, enzyme_const, N, enzyme_out, k, 1.0, t);
  CHECK(dk, dk_ref, 1e-12);
  for (int i = 0; i < N; i++) CHECK(du[i], du_ref[i], 1e-12);

  // enzyme_nocache: Enzyme's newer spelling of the same promise
  memcpy(u, u0, sizeof u);
  memset(du, 0, sizeof du);
  t = __enzyme_augmentfwd((void *)relax, enzyme_dup, u, du, enzyme_nocache, enzyme_const, w,
                          enzyme_const, N, enzyme_out, k);
  clobber(u);
  dk = __enzyme_reverse((void *)relax, enzyme_dup, u, du, enzyme_nocache, enzyme_const, w,
                        enzyme_const, N, enzyme_out, k, 1.0, t);
  CHECK(dk, dk_ref, 1e-12);
  for (int i = 0; i < N; i++) CHECK(du[i], du_ref[i], 1e-12);
  printf("OK\n");
  return 0;
}
