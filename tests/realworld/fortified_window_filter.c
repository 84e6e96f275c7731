// FLAGS: -D_FORTIFY_SOURCE=2
// A streaming FIR filter over a sliding history window kept in a fixed-size struct,
// built the way distributions build C (-D_FORTIFY_SOURCE=2 -O2): glibc's headers turn
// memcpy/memmove/memset into the checked __memcpy_chk/__memmove_chk/__memset_chk when
// the destination's size is known and the length is not, and snprintf into
// __snprintf_chk. The derivatives must go through the checked copies (and the checks
// must stay: an overflowing push still stops the program).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define CAP 24
typedef struct {
  double hist[CAP];
  int len;
  char label[40];
} Window;

// append m samples, dropping the oldest ones when the window is full
static void window_push(Window *w, const double *xs, int m) {
  if (w->len + m > CAP) {
    int drop = w->len + m - CAP;
    memmove(w->hist, w->hist + drop, (size_t)(w->len - drop) * sizeof(double));
    w->len -= drop;
  }
  memcpy(w->hist + w->len, xs, (size_t)m * sizeof(double));
  w->len += m;
}

static void window_reset(Window *w, int keep) {
  memset(w->hist + keep, 0, (size_t)(CAP - keep) * sizeof(double));
  w->len = keep;
}

// sum over chunks of the squared filter output at the newest sample
double filter_energy(const double *samples, int n, int chunk, const double *coef, int k) {
  Window w;
  w.len = 0;
  window_reset(&w, 0);
  snprintf(w.label, sizeof w.label, "fir k=%d chunk=%d n=%d", k, chunk, n);
  double energy = 0.0;
  for (int start = 0; start + chunk <= n; start += chunk) {
    window_push(&w, samples + start, chunk);
    double y = 0.0;
    for (int j = 0; j < k && j < w.len; j++) y += coef[j] * w.hist[w.len - 1 - j];
    energy += y * y + 0.1 * sin(y);
    if (w.len == CAP && start % (4 * chunk) == 0) window_reset(&w, CAP / 2);
  }
  if (w.label[0] != 'f') abort();
  return energy;
}

#define N 60
#define CHUNK 5
#define K 7

static int close_to(double a, double b) { return fabs(a - b) <= 1e-6 * (1.0 + fabs(b)); }

int main(void) {
  double s[N], c[K];
  for (int i = 0; i < N; i++) s[i] = sin(0.37 * i) + 0.1 * cos(1.3 * i);
  for (int j = 0; j < K; j++) c[j] = 0.5 / (1.0 + j) - 0.05 * j;

  double ds[N] = {0}, dc[K] = {0};
  __enzyme_autodiff((void *)filter_energy, enzyme_dup, s, ds, enzyme_const, N,
                    enzyme_const, CHUNK, enzyme_dup, c, dc, enzyme_const, K);

  const double h = 1e-6;
  for (int i = 0; i < N; i++) {
    double keep = s[i];
    s[i] = keep + h;
    double up = filter_energy(s, N, CHUNK, c, K);
    s[i] = keep - h;
    double down = filter_energy(s, N, CHUNK, c, K);
    s[i] = keep;
    double fd = (up - down) / (2 * h);
    if (!close_to(ds[i], fd)) {
      fprintf(stderr, "d/ds[%d]: reverse %.12g, central differences %.12g\n", i, ds[i], fd);
      return 1;
    }
    double ts[N] = {0}, tc[K] = {0};
    ts[i] = 1.0;
    double fwd = __enzyme_fwddiff((void *)filter_energy, enzyme_dup, s, ts, enzyme_const, N,
                                  enzyme_const, CHUNK, enzyme_dup, c, tc, enzyme_const, K);
    if (!close_to(fwd, fd)) {
      fprintf(stderr, "d/ds[%d]: forward %.12g, central differences %.12g\n", i, fwd, fd);
      return 1;
    }
  }
  for (int j = 0; j < K; j++) {
    double keep = c[j];
    c[j] = keep + h;
    double up = filter_energy(s, N, CHUNK, c, K);
    c[j] = keep - h;
    double down = filter_energy(s, N, CHUNK, c, K);
    c[j] = keep;
    double fd = (up - down) / (2 * h);
    if (!close_to(dc[j], fd)) {
      fprintf(stderr, "d/dc[%d]: reverse %.12g, central differences %.12g\n", j, dc[j], fd);
      return 1;
    }
  }
  printf("OK\n");
  return 0;
}
