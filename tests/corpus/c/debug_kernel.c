/* A numeric kernel meant to be compiled with -g: loops, locals, structs, inlining. */
#include <math.h>

struct stats {
    double mean;
    double stddev;
    double min, max;
};

static inline double sq(double x) { return x * x; }

struct stats describe(const double *x, int n) {
    struct stats s = {0, 0, INFINITY, -INFINITY};
    if (n <= 0)
        return s;
    double sum = 0;
    for (int i = 0; i < n; ++i) {
        double v = x[i];
        sum += v;
        if (v < s.min)
            s.min = v;
        if (v > s.max)
            s.max = v;
    }
    s.mean = sum / n;
    double acc = 0;
    for (int i = 0; i < n; ++i)
        acc += sq(x[i] - s.mean);
    s.stddev = sqrt(acc / n);
    return s;
}

double weighted_loss(const double *pred, const double *target, const double *w, int n) {
    double loss = 0;
    for (int i = 0; i < n; ++i) {
        double diff = pred[i] - target[i];
        double huber = fabs(diff) < 1.0 ? 0.5 * sq(diff) : fabs(diff) - 0.5;
        loss += w ? w[i] * huber : huber;
    }
    return loss / n;
}

void normalize(double *x, int n) {
    struct stats s = describe(x, n);
    double inv = s.stddev > 0 ? 1.0 / s.stddev : 1.0;
    for (int i = 0; i < n; ++i)
        x[i] = (x[i] - s.mean) * inv;
}
