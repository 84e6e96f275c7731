// Struct assignment (a memcpy of a struct with double and int fields) inside the function.
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

typedef struct {
  double pos[3];
  int id;
  double mass;
} Body;

double kinetic_copy(const Body *b) {
  Body copy = *b;  // aggregate copy (memcpy)
  Body again;
  memcpy(&again, &copy, sizeof again);
  double v2 = again.pos[0] * again.pos[0] + again.pos[1] * again.pos[1] +
              again.pos[2] * again.pos[2];
  return 0.5 * again.mass * v2 + again.id;
}

int main(void) {
  Body b = {{0.5, -1.0, 2.0}, 7, 3.0};
  Body db;
  memset(&db, 0, sizeof db);
  __enzyme_autodiff((void *)kinetic_copy, enzyme_dup, &b, &db);
  for (int k = 0; k < 3; k++) APPROX_EQ(db.pos[k], b.mass * b.pos[k], 1e-12);
  APPROX_EQ(db.mass, 0.5 * (0.25 + 1.0 + 4.0), 1e-12);
  if (db.id != 0) abort();
  printf("OK\n");
  return 0;
}
