/* Censored (Tobit) regression: the likelihood of a censored observation is a normal tail
 * probability, computed stably with the scaled complementary error function of a special
 * function library that irgrad never sees (lib_erfcx, lib_logsumexp, lib_expit are
 * defined in another object file). The program registers custom derivatives for the
 * functions that call the library, in Enzyme's conventions:
 *   - log_normal_tail: gradient whose tape is a double (returned as {tape, result}) and a
 *     forward derivative returning {result, tangent};
 *   - smooth_max: gradient with a heap tape, an active pointer and an active scalar, the
 *     integer argument passed twice as Enzyme does;
 *   - sigmoid: a split forward derivative (augmented forward pass + forward derivative
 *     taking the tape) and a gradient.
 * They are called two levels below the differentiated function, inside a loop.
 * Checked against central finite differences in reverse (combined and split) and forward
 * mode, and forward against reverse. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

double lib_erfcx(double x);
double lib_logsumexp(const double *v, int n);
double lib_expit(double x);

typedef struct { double value, tangent; } Dual;

/* log P(Z > z) for a standard normal Z, without underflow in the tail */
double log_normal_tail(double z) { return log(0.5 * lib_erfcx(z * M_SQRT1_2)) - 0.5 * z * z; }

typedef struct { double erfcx; double value; } TailAug; /* {tape, result} */
TailAug log_normal_tail_aug(double z) {
  TailAug a;
  a.erfcx = lib_erfcx(z * M_SQRT1_2);
  a.value = log(0.5 * a.erfcx) - 0.5 * z * z;
  return a;
}
double log_normal_tail_rev(double z, double d_result, double erfcx) {
  return -d_result * sqrt(2.0 / M_PI) / erfcx; /* -phi(z) / Q(z) */
}
Dual log_normal_tail_fwd(double z, double dz) {
  double e = lib_erfcx(z * M_SQRT1_2);
  Dual d = {log(0.5 * e) - 0.5 * z * z, -sqrt(2.0 / M_PI) / e * dz};
  return d;
}
void *__enzyme_register_gradient_log_normal_tail[] = {
    (void *)log_normal_tail, (void *)log_normal_tail_aug, (void *)log_normal_tail_rev};
void *__enzyme_register_derivative_log_normal_tail[] = {
    (void *)log_normal_tail, (void *)log_normal_tail_fwd};

/* (1/beta) log sum exp(beta v): a smooth maximum */
double smooth_max(const double *v, int n, double beta) {
  double w[16];
  for (int i = 0; i < n; i++) w[i] = beta * v[i];
  return lib_logsumexp(w, n) / beta;
}
typedef struct { void *tape; double value; } SmaxAug;
/* Enzyme passes an integer argument twice (as its own shadow): n, n_again */
SmaxAug smooth_max_aug(const double *v, double *dv, int n, int n_again, double beta) {
  double *p = malloc(sizeof(double) * (size_t)(n + 1));
  double s = smooth_max(v, n, beta);
  for (int i = 0; i < n; i++) p[i] = exp(beta * (v[i] - s)); /* softmax weights */
  p[n] = s;
  SmaxAug a = {p, s};
  return a;
}
double smooth_max_rev(const double *v, double *dv, int n, int n_again, double beta,
                      double d_result, void *tape) {
  double *p = tape, s = p[n], pv = 0.0;
  for (int i = 0; i < n; i++) {
    dv[i] += d_result * p[i];
    pv += p[i] * v[i];
  }
  free(tape);
  return d_result * (pv - s) / beta;
}
Dual smooth_max_fwd(const double *v, const double *dv, int n, int n_again, double beta,
                    double dbeta) {
  double s = smooth_max(v, n, beta), pv = 0.0, pdv = 0.0;
  for (int i = 0; i < n; i++) {
    double p = exp(beta * (v[i] - s));
    pv += p * v[i];
    pdv += p * dv[i];
  }
  Dual d = {s, pdv + dbeta * (pv - s) / beta};
  return d;
}
void *__enzyme_register_gradient_smooth_max[] = {
    (void *)smooth_max, (void *)smooth_max_aug, (void *)smooth_max_rev};
void *__enzyme_register_derivative_smooth_max[] = {(void *)smooth_max, (void *)smooth_max_fwd};

double sigmoid(double x) { return lib_expit(x); }
typedef struct { double s; double value; } SigAug;
SigAug sigmoid_aug_fwd(double x, double dx) { SigAug a = {lib_expit(x), lib_expit(x)}; return a; }
double sigmoid_fwd(double x, double dx, double s) { return s * (1.0 - s) * dx; }
SigAug sigmoid_aug_rev(double x) { SigAug a = {lib_expit(x), lib_expit(x)}; return a; }
double sigmoid_rev(double x, double d_result, double s) { return d_result * s * (1.0 - s); }
void *__enzyme_register_splitderivative_sigmoid[] = {
    (void *)sigmoid, (void *)sigmoid_aug_fwd, (void *)sigmoid_fwd};
void *__enzyme_register_gradient_sigmoid[] = {
    (void *)sigmoid, (void *)sigmoid_aug_rev, (void *)sigmoid_rev};

/* -- the model ------------------------------------------------------------------------ */

static double observation_loglik(double mean, double sigma, double y, int censored) {
  double z = (y - mean) / sigma;
  if (censored) return log_normal_tail(z); /* the true value is above the limit y */
  return -0.5 * z * z - log(sigma) - 0.5 * log(2.0 * M_PI);
}

double tobit_nll(const double *theta, const double *t, const double *y, const int *censored,
                 int n) {
  double a = theta[0], b = theta[1], sigma = exp(theta[2]);
  double nll = 0.0;
  for (int i = 0; i < n; i++) nll -= observation_loglik(a + b * t[i], sigma, y[i], censored[i]);
  nll += 0.1 * smooth_max(theta, 3, 5.0);  /* a soft penalty on the largest parameter */
  nll -= log(sigmoid(2.0 * theta[1]));     /* a prior that favours a rising trend */
  return nll;
}

enum { N = 24 };

static void check(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1.0 + fabs(want)))) {
    fprintf(stderr, "MISMATCH %s: got %.12g, want %.12g\n", what, got, want);
    abort();
  }
}

static double fd(double (*f)(double), double x) {
  const double h = 1e-6;
  return (f(x + h) - f(x - h)) / (2 * h);
}

int main(void) {
  double t[N], y[N];
  int censored[N];
  for (int i = 0; i < N; i++) {
    t[i] = (double)i / N;
    y[i] = 0.3 + 1.2 * t[i] + 0.15 * sin(7.3 * i + 0.4);
    censored[i] = y[i] > 1.1;
    if (censored[i]) y[i] = 1.1;
  }
  double theta[3] = {0.25, 1.1, log(0.2)};

  /* the custom derivatives themselves, at the top level */
  for (double z = -1.5; z < 6.0; z += 1.25) {
    check("d log_normal_tail (reverse)", __enzyme_autodiff((void *)log_normal_tail, z),
          fd(log_normal_tail, z), 1e-6);
    check("d log_normal_tail (forward)", __enzyme_fwddiff((void *)log_normal_tail, z, 1.0),
          fd(log_normal_tail, z), 1e-6);
    check("d sigmoid (split forward)", __enzyme_fwddiff((void *)sigmoid, z, 1.0),
          fd(sigmoid, z), 1e-6);
  }

  /* split mode on a registered function itself: {tape, result} then the reverse */
  typedef struct { void *tape; double value; } TapeAndValue;
  TapeAndValue __enzyme_augmentfwd2(void *, ...);
  double __enzyme_reverse2(void *, ...);
  TapeAndValue tv = __enzyme_augmentfwd2((void *)log_normal_tail, 2.5);
  check("log_normal_tail (augmented forward pass)", tv.value, log_normal_tail(2.5), 1e-15);
  check("d log_normal_tail (split)", __enzyme_reverse2((void *)log_normal_tail, 2.5, 1.0,
                                                       tv.tape),
        fd(log_normal_tail, 2.5), 1e-6);

  /* reverse mode through the model */
  double dtheta[3] = {0};
  __enzyme_autodiff((void *)tobit_nll, enzyme_dup, theta, dtheta, enzyme_const, t,
                    enzyme_const, y, enzyme_const, censored, enzyme_const, N);
  const double h = 1e-6;
  for (int k = 0; k < 3; k++) {
    double tp[3], tm[3];
    memcpy(tp, theta, sizeof tp);
    memcpy(tm, theta, sizeof tm);
    tp[k] += h;
    tm[k] -= h;
    double want = (tobit_nll(tp, t, y, censored, N) - tobit_nll(tm, t, y, censored, N)) / (2 * h);
    check("d nll / d theta (reverse)", dtheta[k], want, 1e-6);
  }

  /* split mode */
  double dsplit[3] = {0};
  void *tape = __enzyme_augmentfwd((void *)tobit_nll, enzyme_dup, theta, dsplit, enzyme_const,
                                   t, enzyme_const, y, enzyme_const, censored, enzyme_const, N);
  __enzyme_reverse((void *)tobit_nll, enzyme_dup, theta, dsplit, enzyme_const, t,
                   enzyme_const, y, enzyme_const, censored, enzyme_const, N, 1.0, tape);
  for (int k = 0; k < 3; k++) check("d nll / d theta (split)", dsplit[k], dtheta[k], 1e-12);

  /* forward mode along a direction */
  double v[3] = {0.7, -0.4, 0.9}, tp[3], tm[3];
  for (int k = 0; k < 3; k++) {
    tp[k] = theta[k] + h * v[k];
    tm[k] = theta[k] - h * v[k];
  }
  double tangent = __enzyme_fwddiff((void *)tobit_nll, enzyme_dup, theta, v, enzyme_const, t,
                                    enzyme_const, y, enzyme_const, censored, enzyme_const, N);
  double want = (tobit_nll(tp, t, y, censored, N) - tobit_nll(tm, t, y, censored, N)) / (2 * h);
  check("directional derivative (forward)", tangent, want, 1e-6);
  check("forward vs reverse", tangent, dtheta[0] * v[0] + dtheta[1] * v[1] + dtheta[2] * v[2],
        1e-10);
  printf("OK\n");
  return 0;
}
