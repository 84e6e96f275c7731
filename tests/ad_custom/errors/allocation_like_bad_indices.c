// EXPECT-ERROR: the free argument list '2' must give, for each of the 2 parameter(s) of pool_release
// The deallocator takes (pool, pointer) but the index list names one argument and no -1.
#include <stddef.h>
double __enzyme_autodiff(void *, ...);

typedef struct { char buf[4096]; size_t used; } Pool;
static Pool pool;
void *pool_take(Pool *p, size_t bytes) { void *r = p->buf + p->used; p->used += bytes; return r; }
void pool_release(Pool *p, void *ptr) {}

void *__enzyme_allocation_like[4] = {(void *)pool_take, (void *)1, (void *)"2", (void *)pool_release}; // ERROR-LINE

double f(double x) {
  double *t = pool_take(&pool, sizeof(double));
  *t = x * x;
  double r = *t;
  pool_release(&pool, t);
  return r;
}

int main(void) { return __enzyme_autodiff((void *)f, 2.0) > 0 ? 0 : 1; }
