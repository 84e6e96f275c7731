// The size of a caller-allocated tape comes from __enzyme_augmentsize, and another
// augmentfwd / reverse pair of the same function comes first in the caller (so its
// entry points are declared, and found, before __enzyme_augmentsize): the order of the
// calls must not matter. The size also reaches one pair through a cast to size_t, and a
// helper function computes it for another. Every gradient is checked against the
// closed form and central differences.
#include <stdint.h>
#include <string.h>

#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_tape, enzyme_allocated;
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
int __enzyme_augmentsize(void *, ...);

// overwrites x[0] with what it reads: the reverse needs the old value from the tape
static double cube_in_place(double *x, double s) {
  double v = x[0];
  x[0] = v * v * s;
  return x[0] * v;  // s * x0^3
}

static double value(double x0, double s) {
  double x = x0;
  return cube_in_place(&x, s);
}

// the size asked for in a helper, used by its caller
static __attribute__((noinline)) size_t tape_size(void) {
  return (size_t)__enzyme_augmentsize((void *)cube_in_place, enzyme_dup, enzyme_out);
}

int main(void) {
  const double x0 = 1.5, s = 0.7, h = 1e-6;
  const double want_dx = 3 * s * x0 * x0, want_ds = x0 * x0 * x0;
  CHECK(want_dx, (value(x0 + h, s) - value(x0 - h, s)) / (2 * h), 1e-7);
  CHECK(want_ds, (value(x0, s + h) - value(x0, s - h)) / (2 * h), 1e-7);

  // an earlier pair with the tape returned
  double x = x0, dx = 0;
  void *t = __enzyme_augmentfwd((void *)cube_in_place, enzyme_dup, &x, &dx, enzyme_out, s);
  x = -7.0;  // clobbered between the passes
  double ds = __enzyme_reverse((void *)cube_in_place, enzyme_dup, &x, &dx, enzyme_out, s, 1.0,
                               t);
  CHECK(dx, want_dx, 1e-12);
  CHECK(ds, want_ds, 1e-12);

  // then the tape in a buffer of __enzyme_augmentsize bytes (an int)
  int size = __enzyme_augmentsize((void *)cube_in_place, enzyme_dup, enzyme_out);
  if (size <= 0 || size > 4096) {
    fprintf(stderr, "tape of %d bytes\n", size);
    abort();
  }
  void *buffer = malloc((size_t)size);
  x = x0;
  dx = 0;
  __enzyme_augmentfwd((void *)cube_in_place, enzyme_allocated, size, enzyme_tape, buffer,
                      enzyme_dup, &x, &dx, enzyme_out, s);
  x = -7.0;
  ds = __enzyme_reverse((void *)cube_in_place, enzyme_allocated, size, enzyme_tape, buffer,
                        enzyme_dup, &x, &dx, enzyme_out, s, 1.0);
  CHECK(dx, want_dx, 1e-12);
  CHECK(ds, want_ds, 1e-12);

  // the size cast to size_t, and from a helper
  size_t bytes = (size_t)__enzyme_augmentsize((void *)cube_in_place, enzyme_dup, enzyme_out);
  size_t helper_bytes = tape_size();
  CHECK((double)bytes, (double)size, 0);
  CHECK((double)helper_bytes, (double)size, 0);
  x = x0;
  dx = 0;
  __enzyme_augmentfwd((void *)cube_in_place, enzyme_allocated, bytes, enzyme_tape, buffer,
                      enzyme_dup, &x, &dx, enzyme_out, s);
  x = -7.0;
  ds = __enzyme_reverse((void *)cube_in_place, enzyme_allocated, bytes, enzyme_tape, buffer,
                        enzyme_dup, &x, &dx, enzyme_out, s, 2.0);
  CHECK(dx, 2 * want_dx, 1e-12);
  CHECK(ds, 2 * want_ds, 1e-12);
  free(buffer);
  printf("OK\n");
  return 0;
}
