/* Newton and bisection root finding in single and double precision. */
#include <math.h>

typedef struct {
    double root;
    int iterations;
    int converged;
} result;

result newton(double (*f)(double), double (*df)(double), double x0, double tol, int max_it) {
    result r = {x0, 0, 0};
    for (int i = 0; i < max_it; ++i) {
        double fx = f(r.root), d = df(r.root);
        if (d == 0)
            break;
        double step = fx / d;
        r.root -= step;
        r.iterations = i + 1;
        if (fabs(step) < tol) {
            r.converged = 1;
            break;
        }
    }
    return r;
}

float bisect_f(float (*f)(float), float lo, float hi, int iters) {
    float flo = f(lo);
    for (int i = 0; i < iters; ++i) {
        float mid = 0.5f * (lo + hi), fm = f(mid);
        if ((fm < 0) == (flo < 0)) {
            lo = mid;
            flo = fm;
        } else {
            hi = mid;
        }
    }
    return 0.5f * (lo + hi);
}

static double cubic(double x) { return x * x * x - 2 * x - 5; }
static double dcubic(double x) { return 3 * x * x - 2; }
static float cosx_minus_x(float x) { return cosf(x) - x; }

double solve_all(void) {
    result r = newton(cubic, dcubic, 2.0, 1e-12, 50);
    return r.root + bisect_f(cosx_minus_x, 0.0f, 1.0f, 30) + r.converged;
}

double nth_root(double a, int n) {
    double x = a > 1 ? a / n : 1.0;
    for (int k = 0; k < 100; ++k) {
        double xn1 = pow(x, n - 1);
        double nx = ((n - 1) * x + a / xn1) / n;
        if (fabs(nx - x) <= 1e-15 * fabs(nx))
            return nx;
        x = nx;
    }
    return x;
}
