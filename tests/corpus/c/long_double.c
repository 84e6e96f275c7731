/* long double (x86_fp80) arithmetic: Kahan sums, series, conversions. */
#include <math.h>

long double kahan_sum(const double *v, int n) {
    long double s = 0.0L, c = 0.0L;
    for (int i = 0; i < n; ++i) {
        long double y = v[i] - c;
        long double t = s + y;
        c = (t - s) - y;
        s = t;
    }
    return s;
}

long double exp_series(long double x) {
    long double term = 1.0L, sum = 1.0L;
    for (int k = 1; k < 40; ++k) {
        term *= x / k;
        sum += term;
        if (fabsl(term) < 1e-30L)
            break;
    }
    return sum;
}

double harmonic(int n) {
    long double h = 0;
    for (int k = n; k >= 1; --k)
        h += 1.0L / k;
    return (double)h;
}

long double ld_hypot(long double a, long double b) { return sqrtl(a * a + b * b); }

int compare_precision(double x) {
    long double lx = x;
    return (lx * 3.0L / 3.0L) == lx;
}

long long ld_to_int(long double v) { return (long long)v; }
