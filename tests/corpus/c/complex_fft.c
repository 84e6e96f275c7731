/* C99 complex numbers: a recursive radix-2 FFT and polynomial roots evaluation. */
#include <complex.h>
#include <math.h>

static const double PI = 3.14159265358979323846;

void fft(double complex *buf, double complex *tmp, int n, int step) {
    if (step < n) {
        fft(tmp, buf, n, step * 2);
        fft(tmp + step, buf + step, n, step * 2);
        for (int i = 0; i < n; i += 2 * step) {
            double complex t = cexp(-I * PI * i / n) * tmp[i + step];
            buf[i / 2] = tmp[i] + t;
            buf[(i + n) / 2] = tmp[i] - t;
        }
    }
}

double complex horner_c(const double complex *c, int deg, double complex z) {
    double complex r = c[deg];
    for (int i = deg - 1; i >= 0; --i)
        r = r * z + c[i];
    return r;
}

double magnitude_sum(const double complex *v, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += cabs(v[i]);
    return s;
}

float complex rotate(float complex z, float angle) {
    return z * (cosf(angle) + I * sinf(angle));
}

double complex cdiv(double complex a, double complex b) { return a / b; }

void roots_of_unity(double complex *out, int n) {
    for (int k = 0; k < n; ++k)
        out[k] = cexp(2.0 * PI * I * k / n);
}
