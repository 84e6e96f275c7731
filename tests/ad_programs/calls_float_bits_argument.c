/* Doubles passed to a helper as the bits of a 64-bit integer -- the well-defined type
   punning of C (memcpy into a uint64_t), as message queues and serializers do -- and
   turned back into doubles by the helper, which is not inlined. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

typedef struct {
  double value[16];
  int count;
} queue;

__attribute__((noinline)) static void push_word(queue *q, uint64_t word, uint64_t scale) {
  double v;
  memcpy(&v, &word, sizeof v);
  q->value[q->count++] = v * (double)scale;
}

static uint64_t bits_of(double x) {
  uint64_t w;
  memcpy(&w, &x, sizeof w);
  return w;
}

double weighted_queue_energy(const double *x, int n) {
  queue q = {{0}, 0};
  for (int i = 0; i < n; i++) push_word(&q, bits_of(sin(x[i]) * x[i]), (uint64_t)(i + 1));
  double e = 0.0;
  for (int i = 0; i < q.count; i++) e += q.value[i] * q.value[i];
  return e;
}

int main(void) {
  enum { N = 6 };
  double x[N], dx[N] = {0};
  for (int i = 0; i < N; i++) x[i] = 0.4 * i - 1.1;
  __enzyme_autodiff((void *)weighted_queue_energy, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    double h = 1e-6, s = x[i];
    x[i] = s + h;
    double fp = weighted_queue_energy(x, N);
    x[i] = s - h;
    double fm = weighted_queue_energy(x, N);
    x[i] = s;
    double fd = (fp - fm) / (2 * h);
    if (fabs(dx[i] - fd) > 1e-6 * (1 + fabs(fd))) {
      fprintf(stderr, "dx[%d] = %.12g, finite differences %.12g\n", i, dx[i], fd);
      abort();
    }
  }
  printf("OK\n");
  return 0;
}
