/* LU decomposition with partial pivoting and the matching solve. */
#include <math.h>

int lu_factor(int n, double *a, int *piv) {
    for (int k = 0; k < n; ++k) {
        int p = k;
        double big = fabs(a[k * n + k]);
        for (int i = k + 1; i < n; ++i) {
            double v = fabs(a[i * n + k]);
            if (v > big) {
                big = v;
                p = i;
            }
        }
        piv[k] = p;
        if (big == 0.0)
            return -(k + 1);
        if (p != k)
            for (int j = 0; j < n; ++j) {
                double t = a[k * n + j];
                a[k * n + j] = a[p * n + j];
                a[p * n + j] = t;
            }
        for (int i = k + 1; i < n; ++i) {
            double l = a[i * n + k] / a[k * n + k];
            a[i * n + k] = l;
            for (int j = k + 1; j < n; ++j)
                a[i * n + j] -= l * a[k * n + j];
        }
    }
    return 0;
}

void lu_solve(int n, const double *lu, const int *piv, double *b) {
    for (int k = 0; k < n; ++k) {
        int p = piv[k];
        if (p != k) {
            double t = b[k];
            b[k] = b[p];
            b[p] = t;
        }
    }
    for (int i = 1; i < n; ++i)
        for (int j = 0; j < i; ++j)
            b[i] -= lu[i * n + j] * b[j];
    for (int i = n - 1; i >= 0; --i) {
        for (int j = i + 1; j < n; ++j)
            b[i] -= lu[i * n + j] * b[j];
        b[i] /= lu[i * n + i];
    }
}

double determinant(int n, const double *lu, const int *piv) {
    double d = 1.0;
    for (int i = 0; i < n; ++i) {
        d *= lu[i * n + i];
        if (piv[i] != i)
            d = -d;
    }
    return d;
}
