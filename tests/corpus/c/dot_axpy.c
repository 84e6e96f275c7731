/* BLAS-1 style numeric kernels: dot product, axpy, scaled norms. */
#include <math.h>
#include <stddef.h>

double dot(const double *x, const double *y, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i)
        s += x[i] * y[i];
    return s;
}

void axpy(double a, const double *x, double *y, size_t n) {
    for (size_t i = 0; i < n; ++i)
        y[i] += a * x[i];
}

double nrm2(const double *x, size_t n) {
    double scale = 0.0, ssq = 1.0;
    for (size_t i = 0; i < n; ++i) {
        if (x[i] != 0.0) {
            double a = fabs(x[i]);
            if (scale < a) {
                ssq = 1.0 + ssq * (scale / a) * (scale / a);
                scale = a;
            } else {
                ssq += (a / scale) * (a / scale);
            }
        }
    }
    return scale * sqrt(ssq);
}

float sdot_strided(const float *x, int incx, const float *y, int incy, int n) {
    float acc = 0.0f;
    int ix = incx < 0 ? (1 - n) * incx : 0;
    int iy = incy < 0 ? (1 - n) * incy : 0;
    for (int i = 0; i < n; ++i, ix += incx, iy += incy)
        acc += x[ix] * y[iy];
    return acc;
}

size_t iamax(const double *x, size_t n) {
    size_t best = 0;
    double bv = -1.0;
    for (size_t i = 0; i < n; ++i) {
        double v = fabs(x[i]);
        if (v > bv) {
            bv = v;
            best = i;
        }
    }
    return best;
}
