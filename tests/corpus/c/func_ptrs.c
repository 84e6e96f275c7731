/* Function pointers: dispatch tables, qsort comparators, callbacks, integration. */
#include <math.h>
#include <stdlib.h>

typedef double (*unary_fn)(double);
typedef int (*binop)(int, int);

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }
static int maxi(int a, int b) { return a > b ? a : b; }

static const binop ops[] = {add, sub, mul, maxi};

int fold(const int *v, int n, int which, int init) {
    binop f = ops[which & 3];
    for (int i = 0; i < n; ++i)
        init = f(init, v[i]);
    return init;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void sort_doubles(double *v, size_t n) { qsort(v, n, sizeof *v, cmp_double); }

double simpson(unary_fn f, double a, double b, int n) {
    double h = (b - a) / n, s = f(a) + f(b);
    for (int i = 1; i < n; ++i)
        s += f(a + i * h) * (i % 2 ? 4.0 : 2.0);
    return s * h / 3.0;
}

static double gauss(double x) { return exp(-x * x); }

double integrate_all(double a, double b) {
    unary_fn fs[] = {sin, cos, gauss, sqrt};
    double total = 0;
    for (int i = 0; i < 4; ++i)
        total += simpson(fs[i], a, b, 64);
    return total;
}

struct handler {
    const char *name;
    void (*cb)(void *ctx, int ev);
    void *ctx;
};

void dispatch(struct handler *hs, int n, int ev) {
    for (int i = 0; i < n; ++i)
        if (hs[i].cb)
            hs[i].cb(hs[i].ctx, ev);
}
