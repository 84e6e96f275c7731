/* 2D five-point stencil: explicit heat equation with ping-pong buffers. */
#include <stdlib.h>
#include <string.h>

static inline int idx(int i, int j, int nx) { return i * nx + j; }

void heat_step(const double *restrict u, double *restrict un, int nx, int ny, double r) {
    for (int i = 1; i < ny - 1; ++i)
        for (int j = 1; j < nx - 1; ++j) {
            double c = u[idx(i, j, nx)];
            un[idx(i, j, nx)] = c + r * (u[idx(i - 1, j, nx)] + u[idx(i + 1, j, nx)] +
                                         u[idx(i, j - 1, nx)] + u[idx(i, j + 1, nx)] - 4 * c);
        }
}

double heat_run(double *u, int nx, int ny, int steps, double r) {
    double *tmp = malloc(sizeof(double) * nx * ny);
    memcpy(tmp, u, sizeof(double) * nx * ny);
    double *a = u, *b = tmp;
    for (int s = 0; s < steps; ++s) {
        heat_step(a, b, nx, ny, r);
        double *t = a;
        a = b;
        b = t;
    }
    if (a != u)
        memcpy(u, a, sizeof(double) * nx * ny);
    double total = 0;
    for (int k = 0; k < nx * ny; ++k)
        total += u[k];
    free(tmp);
    return total;
}

void jacobi_1d(int n, int iters, float *x, const float *rhs) {
    float *y = calloc(n, sizeof(float));
    for (int it = 0; it < iters; ++it) {
        for (int i = 1; i < n - 1; ++i)
            y[i] = 0.5f * (x[i - 1] + x[i + 1] - rhs[i]);
        for (int i = 1; i < n - 1; ++i)
            x[i] = y[i];
    }
    free(y);
}
