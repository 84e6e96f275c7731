// A registry of model terms the way plugin-style C code declares it: a constant table of
// records {name, callback, weight, coefficients}, each term's callback and coefficients
// chosen by a run-time index, and a second table of whole potentials that point to their
// own coefficient tables. The table's weights and coefficients are constants of the
// program: their tangents are zero and their adjoints go nowhere, in both modes; the
// callbacks are differentiated. Reverse and forward mode against central differences.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
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

typedef double (*term_fn)(const double *x, const double *c);

static double quadratic(const double *x, const double *c) {
  return c[0] * x[0] * x[0] + c[1] * x[0] * x[1] + c[2] * x[1] * x[1];
}
static double gaussian(const double *x, const double *c) {
  double r2 = (x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]);
  return exp(-c[2] * r2);
}
static double periodic(const double *x, const double *c) {
  return sin(c[0] * x[0]) * cos(c[1] * x[1]) + c[2];
}

static const double QUAD_C[3] = {1.5, -0.5, 2.0};
static const double GAUSS_C[3] = {0.2, -0.4, 0.8};
static const double PERIODIC_C[3] = {2.0, 1.5, 0.25};

typedef struct {
  const char *name;
  term_fn fn;
  double weight;
  const double *coef;
} term_t;

static const term_t TERMS[] = {
    {"quadratic", quadratic, 1.0, QUAD_C},
    {"gaussian", gaussian, -3.0, GAUSS_C},
    {"periodic", periodic, 0.5, PERIODIC_C},
};

/* the energy of the terms the model file selected (indices at run time) */
double model_energy(const double *x, const int *selected, int nsel) {
  double e = 0.0;
  for (int k = 0; k < nsel; k++) {
    const term_t *t = &TERMS[selected[k]];
    e += t->weight * t->fn(x, t->coef);
  }
  return e;
}

/* one potential, chosen by index, whose record holds its weight inline */
double single_term(const double *x, int which) {
  const term_t *t = &TERMS[which];
  return t->weight * t->fn(x, t->coef) + t->coef[2] * x[0];
}

static double energy_at(const double *x, const int *sel, int nsel) {
  return model_energy(x, sel, nsel);
}

int main(void) {
  int sel[4] = {2, 0, 1, 2};
  double x[2] = {0.7, -0.3};
  const double h = 1e-6;
  double dx[2] = {0.0, 0.0};
  __enzyme_autodiff((void *)model_energy, enzyme_dup, x, dx, enzyme_const, sel,
                    enzyme_const, 4);
  double fd[2];
  for (int i = 0; i < 2; i++) {
    double keep = x[i];
    x[i] = keep + h;
    double up = energy_at(x, sel, 4);
    x[i] = keep - h;
    double down = energy_at(x, sel, 4);
    x[i] = keep;
    fd[i] = (up - down) / (2 * h);
    APPROX_EQ(dx[i], fd[i], 1e-6);
  }
  double tx[2] = {0.4, -1.2};
  double t = __enzyme_fwddiff((void *)model_energy, enzyme_dup, x, tx, enzyme_const, sel,
                              enzyme_const, 4);
  APPROX_EQ(t, fd[0] * tx[0] + fd[1] * tx[1], 1e-6);
  /* the table is untouched by either derivative */
  APPROX_EQ(TERMS[1].weight, -3.0, 0.0);
  APPROX_EQ(QUAD_C[0], 1.5, 0.0);

  for (int which = 0; which < 3; which++) {
    double d[2] = {0.0, 0.0};
    __enzyme_autodiff((void *)single_term, enzyme_dup, x, d, enzyme_const, which);
    double dir[2] = {1.0, 0.5};
    double tan = __enzyme_fwddiff((void *)single_term, enzyme_dup, x, dir, enzyme_const,
                                  which);
    double want = 0.0;
    for (int i = 0; i < 2; i++) {
      double keep = x[i];
      x[i] = keep + h;
      double up = single_term(x, which);
      x[i] = keep - h;
      double down = single_term(x, which);
      x[i] = keep;
      APPROX_EQ(d[i], (up - down) / (2 * h), 1e-6);
      want += dir[i] * (up - down) / (2 * h);
    }
    APPROX_EQ(tan, want, 1e-6);
  }
  printf("OK\n");
  return 0;
}
