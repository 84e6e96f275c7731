// Dynamic arrays grown by doubling with realloc, the way C code keeps a list of records
// (a {items, len, cap} struct and a push function): the records hold a weight, a pointer
// into the input and a pointer to a heap block of their own; a second array holds plain
// pointers into the input. Growing moves the records -- pointers included -- into a new
// block, so the derivative's shadow records must move too (their shadow pointers are
// what the reverse pass writes adjoints through). After the last growth two records
// swap their heap blocks. Reverse mode (combined and split) and forward mode are
// checked against central differences.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

#define N 9

typedef struct {
  double scale;
  const double *src;  // into the input
  double *acc;        // a block of two values of its own
} Term;

typedef struct {
  Term *items;
  int len, cap;
} TermList;

static __attribute__((noinline)) void terms_push(TermList *l, double scale,
                                                 const double *src, double *acc) {
  if (l->len == l->cap) {
    int cap = l->cap ? 2 * l->cap : 1;
    Term *grown = (Term *)realloc(l->items, (size_t)cap * sizeof *grown);
    if (!grown) abort();
    l->items = grown;
    l->cap = cap;
  }
  Term *t = &l->items[l->len++];
  t->scale = scale;
  t->src = src;
  t->acc = acc;
}

double energy(const double *x, int n) {
  TermList l = {(Term *)malloc(2 * sizeof(Term)), 0, 2};  // grown from two records
  for (int i = 0; i < n; i++) {
    double *acc = (double *)malloc(2 * sizeof(double));
    acc[0] = x[i] * x[(i + 1) % n];
    acc[1] = sin(x[i]);
    terms_push(&l, 0.5 * x[i] + 1.0, &x[(i + 2) % n], acc);
  }
  double *first = l.items[0].acc;  // swap two records' blocks after the last growth
  l.items[0].acc = l.items[l.len - 1].acc;
  l.items[l.len - 1].acc = first;

  // pointers to every other input, in an array grown inline from nothing
  const double **sel = NULL;
  int ns = 0, cs = 0;
  for (int i = 0; i < n; i += 2) {
    if (ns == cs) {
      cs = cs ? 2 * cs : 1;
      sel = (const double **)realloc(sel, (size_t)cs * sizeof *sel);
      if (!sel) abort();
    }
    sel[ns++] = &x[i];
  }

  double e = 0.0;
  for (int k = 0; k < l.len; k++) {
    const Term *t = &l.items[k];
    e += t->scale * *t->src * t->acc[0] + (k + 1) * t->acc[1] * t->acc[1];
  }
  for (int k = 0; k < ns; k++) e += (k + 1) * *sel[k] * *sel[k];
  for (int k = 0; k < l.len; k++) free(l.items[k].acc);
  free(l.items);
  free(sel);
  return e;
}

int main(void) {
  double x[N], fd[N];
  for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.05 * i * i;
  for (int k = 0; k < N; k++) {
    double p[N], m[N], h = 1e-6;
    memcpy(p, x, sizeof p);
    memcpy(m, x, sizeof m);
    p[k] += h;
    m[k] -= h;
    fd[k] = (energy(p, N) - energy(m, N)) / (2 * h);
  }

  // combined reverse mode, twice (derivatives are added into dx)
  double dx[N] = {0};
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, N);
  for (int k = 0; k < N; k++) APPROX_EQ(dx[k], fd[k], 1e-6);
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, N);
  for (int k = 0; k < N; k++) APPROX_EQ(dx[k], 2 * fd[k], 1e-6);

  // split mode, with the result's adjoint 0.5
  double ds[N] = {0};
  void *tape = __enzyme_augmentfwd((void *)energy, enzyme_dup, x, ds, enzyme_const, N);
  __enzyme_reverse((void *)energy, enzyme_dup, x, ds, enzyme_const, N, 0.5, tape);
  for (int k = 0; k < N; k++) APPROX_EQ(ds[k], 0.5 * fd[k], 1e-6);

  // forward mode, along each input
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1.0;
    double d = __enzyme_fwddiff((void *)energy, enzyme_dup, x, t, enzyme_const, N);
    APPROX_EQ(d, fd[k], 1e-6);
  }
  printf("OK\n");
  return 0;
}
