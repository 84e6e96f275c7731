/* Runge-Kutta 4 integrator for systems of ODEs with a callback right-hand side. */
#include <math.h>
#include <stdio.h>

typedef void (*rhs_fn)(double t, const double *y, double *dy, void *params);

void rk4_step(rhs_fn f, double t, double h, double *y, int n, void *p) {
    double k1[8], k2[8], k3[8], k4[8], tmp[8];
    f(t, y, k1, p);
    for (int i = 0; i < n; ++i) tmp[i] = y[i] + 0.5 * h * k1[i];
    f(t + 0.5 * h, tmp, k2, p);
    for (int i = 0; i < n; ++i) tmp[i] = y[i] + 0.5 * h * k2[i];
    f(t + 0.5 * h, tmp, k3, p);
    for (int i = 0; i < n; ++i) tmp[i] = y[i] + h * k3[i];
    f(t + h, tmp, k4, p);
    for (int i = 0; i < n; ++i)
        y[i] += h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}

struct lv_params {
    double alpha, beta, delta, gamma;
};

static void lotka_volterra(double t, const double *y, double *dy, void *vp) {
    (void)t;
    const struct lv_params *p = vp;
    dy[0] = p->alpha * y[0] - p->beta * y[0] * y[1];
    dy[1] = p->delta * y[0] * y[1] - p->gamma * y[1];
}

static void pendulum(double t, const double *y, double *dy, void *vp) {
    double g_over_l = *(double *)vp;
    dy[0] = y[1];
    dy[1] = -g_over_l * sin(y[0]) - 0.01 * y[1] * cos(t);
}

double integrate(rhs_fn f, double *y, int n, double t1, int steps, void *p) {
    double h = t1 / steps;
    for (int s = 0; s < steps; ++s)
        rk4_step(f, s * h, h, y, n, p);
    return y[0];
}

int main(void) {
    struct lv_params lv = {1.1, 0.4, 0.1, 0.4};
    double y[2] = {10, 10};
    double gl = 9.81;
    double z[2] = {1.0, 0.0};
    printf("%f %f\n", integrate(lotka_volterra, y, 2, 10.0, 1000, &lv),
           integrate(pendulum, z, 2, 5.0, 500, &gl));
    return 0;
}
