/* An "opaque library" of special functions (compiled natively; irgrad sees only the
 * declarations). */
#include <math.h>

/* the scaled complementary error function erfcx(x) = exp(x^2) erfc(x) */
double lib_erfcx(double x) { return exp(x * x) * erfc(x); }

/* log(sum_i exp(v[i])), shifted by the maximum */
double lib_logsumexp(const double *v, int n) {
  double m = v[0];
  for (int i = 1; i < n; i++) m = v[i] > m ? v[i] : m;
  double s = 0.0;
  for (int i = 0; i < n; i++) s += exp(v[i] - m);
  return m + log(s);
}

/* the logistic function 1 / (1 + exp(-x)) */
double lib_expit(double x) {
  return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}
