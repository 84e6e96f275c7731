/* Memory through allocator hooks, the way C libraries let a build plug in its own
   allocator (a struct of function pointers initialized to malloc and free, with a call
   counter beside them): scratch buffers come from hooks.alloc and go back through
   hooks.release inside the differentiated code, one level down in noinline helpers.
   (Were the hooks assigned anywhere in the program, the call could reach any function:
   irgrad then refuses it.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

struct allocator {
  int calls;
  void *(*alloc)(size_t);
  void (*release)(void *);
};
struct allocator hooks = {0, malloc, free};

__attribute__((noinline)) static double *new_vector(int n) {
  hooks.calls++;
  return (double *)hooks.alloc(sizeof(double) * (size_t)n);
}

__attribute__((noinline)) static void delete_vector(double *v) { hooks.release(v); }

/* softplus of a moving average, squared and summed */
double smoothed_energy(const double *x, int n) {
  double *avg = new_vector(n);
  for (int i = 0; i < n; i++) {
    double left = i > 0 ? x[i - 1] : x[i], right = i < n - 1 ? x[i + 1] : x[i];
    avg[i] = (left + 2.0 * x[i] + right) / 4.0;
  }
  double e = 0.0;
  for (int i = 0; i < n; i++) {
    double s = log1p(exp(avg[i]));
    e += s * s;
  }
  delete_vector(avg);
  return e;
}

int main(void) {
  enum { N = 9 };
  double x[N], dx[N] = {0};
  for (int i = 0; i < N; i++) x[i] = 0.3 * i - 1.0;
  __enzyme_autodiff((void *)smoothed_energy, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    double h = 1e-6, save = x[i];
    x[i] = save + h;
    double fp = smoothed_energy(x, N);
    x[i] = save - h;
    double fm = smoothed_energy(x, N);
    x[i] = save;
    double fd = (fp - fm) / (2 * h);
    if (fabs(dx[i] - fd) > 1e-6 * (1 + fabs(fd))) {
      printf("dx[%d] = %.12g, finite differences %.12g\n", i, dx[i], fd);
      abort();
    }
  }
  if (hooks.calls != 2 * N + 1) {
    printf("%d allocations\n", hooks.calls);
    abort();
  }
  printf("OK\n");
  return 0;
}
