// A while loop chasing pointers through a linked list; the shadow list mirrors the links.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

#define APPROX_EQ(a, b, tol)                                                        \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                             \
      fprintf(stderr, "%s:%d: %s = %.17g but %s = %.17g\n", __FILE__, __LINE__, #a, \
              a_, #b, b_);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)
void __enzyme_autodiff(void *, ...);

struct node {
  double value;
  struct node *next;
};

double list_energy(const struct node *n) {
  double s = 0.0;
  while (n) {
    s += n->value * n->value * n->value;
    n = n->next;
  }
  return s;
}

int main(void) {
  enum { N = 4 };
  struct node nodes[N], shadows[N];
  for (int i = 0; i < N; i++) {
    nodes[i].value = 0.5 + 0.25 * i;
    nodes[i].next = i + 1 < N ? &nodes[i + 1] : NULL;
    shadows[i].value = 0.0;
    shadows[i].next = i + 1 < N ? &shadows[i + 1] : NULL;
  }
  __enzyme_autodiff((void *)list_energy, enzyme_dup, &nodes[0], &shadows[0]);
  for (int i = 0; i < N; i++)
    APPROX_EQ(shadows[i].value, 3.0 * nodes[i].value * nodes[i].value, 1e-12);
  printf("OK\n");
  return 0;
}
