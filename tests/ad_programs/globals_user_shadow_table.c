// Shadows the user declares for globals (Enzyme's convention): a table pairs each global
// with its shadow. Reverse mode adds the global's adjoint into the user's shadow; forward
// mode reads the global's tangent from it. irgrad never zeroes a user's shadow.
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
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double stiffness = 2.0;           // a model parameter kept in a global
double offsets[3] = {0.5, -1.0, 0.25};
double d_stiffness = 0.0;         // ... and the shadows the user owns
double d_offsets[3];
void *__enzyme_shadow_globals[][2] = {{&stiffness, &d_stiffness}, {offsets, d_offsets}};

double energy(double x) {
  double e = 0.0;
  for (int i = 0; i < 3; i++) {
    double u = x - offsets[i];
    e += 0.5 * stiffness * u * u;
  }
  return e;
}

int main(void) {
  double x = 1.5;
  double dx = __enzyme_autodiff((void *)energy, x);
  double want_dx = 0.0, want_dk = 0.0;
  for (int i = 0; i < 3; i++) {
    want_dx += stiffness * (x - offsets[i]);
    want_dk += 0.5 * (x - offsets[i]) * (x - offsets[i]);
    APPROX_EQ(d_offsets[i], -stiffness * (x - offsets[i]), 1e-12);
  }
  APPROX_EQ(dx, want_dx, 1e-12);
  APPROX_EQ(d_stiffness, want_dk, 1e-12);
  __enzyme_autodiff((void *)energy, x);  // adjoints accumulate (+=), as in Enzyme
  APPROX_EQ(d_stiffness, 2.0 * want_dk, 1e-12);

  // forward mode: the tangent of the global comes from its shadow
  memset(d_offsets, 0, sizeof d_offsets);
  d_stiffness = 1.0;
  APPROX_EQ(__enzyme_fwddiff((void *)energy, x, 0.0), want_dk, 1e-12);
  d_stiffness = 0.0;
  d_offsets[1] = 1.0;
  APPROX_EQ(__enzyme_fwddiff((void *)energy, x, 0.0), -stiffness * (x - offsets[1]), 1e-12);
  printf("OK\n");
  return 0;
}
