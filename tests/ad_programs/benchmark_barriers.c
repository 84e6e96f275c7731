// A kernel instrumented the way micro-benchmark code is: Google Benchmark's DoNotOptimize
// (`asm volatile("" : "+r,m"(v) : : "memory")` on a value, `"+m"` on memory, `"g"` on a
// pointer), ClobberMemory (`asm volatile("" : : : "memory")`) and a register barrier with
// a comment (`"# keep %0" : "+x"`). The barriers compute nothing, so the derivative is
// the kernel's. Reverse and forward mode are checked against central differences.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

#define N 8

static inline void do_not_optimize_value(double *v) { __asm__ volatile("" : "+r,m"(*v) : : "memory"); }
static inline void do_not_optimize_memory(double *v) { __asm__ volatile("" : "+m"(*v) : : "memory"); }
static inline void do_not_optimize_pointer(const void *p) { __asm__ volatile("" : : "g"(p) : "memory"); }
static inline void clobber_memory(void) { __asm__ volatile("" : : : "memory"); }
static inline double keep_in_register(double v) {
  __asm__ volatile("# keep %0" : "+x"(v));
  return v;
}

double kernel(double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double t = sin(x[i]) * x[i];
    do_not_optimize_value(&t);
    x[i] = keep_in_register(t + 0.5 * x[i]);
    do_not_optimize_memory(&x[i]);
    do_not_optimize_pointer(x);
    clobber_memory();
    s += x[i] * x[i];
  }
  do_not_optimize_value(&s);
  return s;
}

int main(void) {
  double x0[N], x[N], dx[N], tx[N];
  for (int i = 0; i < N; i++) {
    x0[i] = 0.3 + 0.2 * i;
    tx[i] = cos(1.1 * i);
  }
  for (int i = 0; i < N; i++) { x[i] = x0[i]; dx[i] = 0.0; }
  __enzyme_autodiff((void *)kernel, enzyme_dup, x, dx, enzyme_const, N);
  double dirs[N];
  for (int i = 0; i < N; i++) { x[i] = x0[i]; dirs[i] = tx[i]; }
  double tan = __enzyme_fwddiff((void *)kernel, enzyme_dup, x, dirs, enzyme_const, N);
  double dir = 0.0;
  for (int i = 0; i < N; i++) {
    double h = 1e-6;
    for (int k = 0; k < N; k++) x[k] = x0[k];
    x[i] += h;
    double fp = kernel(x, N);
    for (int k = 0; k < N; k++) x[k] = x0[k];
    x[i] -= h;
    double fm = kernel(x, N);
    double fd = (fp - fm) / (2 * h);
    APPROX_EQ(dx[i], fd, 1e-6);
    dir += fd * tx[i];
  }
  APPROX_EQ(tan, dir, 1e-6);
  printf("OK\n");
  return 0;
}
