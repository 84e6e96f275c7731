/* libm-heavy scalar kernels: special functions, polynomials, activation functions. */
#include <math.h>

double horner(const double *c, int n, double x) {
    double r = 0;
    for (int i = n - 1; i >= 0; --i)
        r = fma(r, x, c[i]);
    return r;
}

double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
double softplus(double x) { return x > 20 ? x : log1p(exp(x)); }
float gelu(float x) { return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x))); }

double log_sum_exp(const double *x, int n) {
    double m = -INFINITY;
    for (int i = 0; i < n; ++i)
        m = fmax(m, x[i]);
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += exp(x[i] - m);
    return m + log(s);
}

double gaussian_pdf(double x, double mu, double sigma) {
    double z = (x - mu) / sigma;
    return exp(-0.5 * z * z) / (sigma * sqrt(2 * M_PI));
}

double rosenbrock(const double *x, int n) {
    double f = 0;
    for (int i = 0; i + 1 < n; ++i)
        f += 100 * pow(x[i + 1] - x[i] * x[i], 2) + pow(1 - x[i], 2);
    return f;
}

double polar_angle(double x, double y) { return atan2(y, x) * 180.0 / M_PI; }

double misc(double x) {
    return cbrt(x) + hypot(x, 2.0) + erf(x) + tgamma(fabs(x) + 1) + floor(x) + ceil(x) +
           round(x) + trunc(x) + copysign(1.0, x) + fmod(x, 3.0) + exp2(x) + log10(fabs(x) + 1);
}
