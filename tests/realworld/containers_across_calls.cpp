// Storage allocated by one function and released by another, the way containers work:
// a std::vector grown inside the differentiated function (its storage reallocated by
// libstdc++'s _M_default_append, which the compiler does not inline, and released by the
// caller's destructor), and a C-style growable struct with non-inlined init/resize
// functions whose blocks the caller frees. The gradients are checked against central
// differences; then the heap in use (glibc's mallinfo2) must not grow over many gradient
// calls: every shadow block is released once the reverse pass is done. (LeakSanitizer
// cannot see such a leak: the pointers stay reachable from the cached tape.)
// SANITIZE: address,undefined
#include <malloc.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" double __enzyme_autodiff(void*, ...);
extern int enzyme_dup, enzyme_const;

#define NOINLINE __attribute__((noinline))

// the gradient of the misfit of a signal padded to twice its length
double padded_energy(const double* x, long n) {
  std::vector<double> v(n);
  for (long i = 0; i < n; i++) v[i] = x[i] * x[i];
  v.resize(2 * n);
  for (long i = 0; i < n; i++) v[n + i] = std::sin(v[i]) + x[(i + 1) % n];
  double s = 0.0;
  for (long i = 0; i < 2 * n; i++) s += v[i] * v[(i + 1) % (2 * n)];
  return s;
}

struct dvec {
  double* data;
  long len;
};

NOINLINE void dvec_init(dvec* v, long n) {
  v->data = static_cast<double*>(malloc(n * sizeof(double)));
  v->len = n;
}

NOINLINE void dvec_resize(dvec* v, long n) {
  double* d = static_cast<double*>(malloc(n * sizeof(double)));
  for (long i = 0; i < n; i++) d[i] = i < v->len ? v->data[i] : 0.0;
  free(v->data);
  v->data = d;
  v->len = n;
}

double c_style_energy(const double* x, long n) {
  dvec v;
  dvec_init(&v, n);
  for (long i = 0; i < n; i++) v.data[i] = std::cos(x[i]) * x[i];
  dvec_resize(&v, n + 3);
  for (long i = n; i < n + 3; i++) v.data[i] = v.data[i - n] * v.data[n - 1 - (i - n)];
  double s = 0.0;
  for (long i = 0; i < v.len; i++) s += v.data[i] * v.data[i];
  free(v.data);
  return s;
}

static void check(const char* what, double got, double want) {
  if (!(std::fabs(got - want) <= 1e-6 * (1.0 + std::fabs(want)))) {
    fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    abort();
  }
}

#define CHECK_GRADIENT(f)                                                        \
  do {                                                                           \
    enum { N = 9 };                                                              \
    double x[N], dx[N] = {0};                                                    \
    for (int i = 0; i < N; i++) x[i] = 0.3 + 0.1 * i - 0.02 * i * i;             \
    __enzyme_autodiff((void*)f, enzyme_dup, x, dx, enzyme_const, (long)N);       \
    for (int k = 0; k < N; k++) {                                                \
      double h = 1e-6, xp[N], xm[N];                                             \
      for (int i = 0; i < N; i++) xp[i] = xm[i] = x[i];                          \
      xp[k] += h;                                                                \
      xm[k] -= h;                                                                \
      check(#f, dx[k], (f(xp, N) - f(xm, N)) / (2 * h));                         \
    }                                                                            \
    for (int r = 0; r < 3; r++) /* warm up the tape cache */                     \
      __enzyme_autodiff((void*)f, enzyme_dup, x, dx, enzyme_const, (long)N);     \
    size_t before = mallinfo2().uordblks;                                        \
    for (int r = 0; r < 500; r++)                                                \
      __enzyme_autodiff((void*)f, enzyme_dup, x, dx, enzyme_const, (long)N);     \
    size_t after = mallinfo2().uordblks;                                         \
    if (after > before + 4096) {                                                 \
      fprintf(stderr, #f ": %zu bytes more in use after 500 gradients\n",        \
              after - before);                                                   \
      abort();                                                                   \
    }                                                                            \
  } while (0)

int main() {
  CHECK_GRADIENT(padded_energy);
  CHECK_GRADIENT(c_style_energy);
  printf("OK\n");
  return 0;
}
