/* hand_grad_enzyme_fwd.c -- dense hand Jacobians by VECTOR forward-mode AD through
   Enzyme's C API: one __enzyme_fwddiff sweep with enzyme_width 26 (simple) or 28
   (complicated) computes every column at once. Tangent j seeds theta_j (simple); for the
   complicated variant tangent 0 seeds every u0, tangent 1 every u1 (each residual depends
   only on its own point's u, so these two columns are the block-diagonal u part) and
   tangent 2 + j seeds theta_j. The shadow of err for tangent j is column j of the
   column-major Jacobian, so the sweep writes J in place. */
#include <enzyme/enzyme.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"

/* the 26 (or 28) shadows of one argument, side by side */
#define S26(p, s)                                                                        \
    (p) + 0 * (s), (p) + 1 * (s), (p) + 2 * (s), (p) + 3 * (s), (p) + 4 * (s),           \
        (p) + 5 * (s), (p) + 6 * (s), (p) + 7 * (s), (p) + 8 * (s), (p) + 9 * (s),       \
        (p) + 10 * (s), (p) + 11 * (s), (p) + 12 * (s), (p) + 13 * (s), (p) + 14 * (s),  \
        (p) + 15 * (s), (p) + 16 * (s), (p) + 17 * (s), (p) + 18 * (s), (p) + 19 * (s),  \
        (p) + 20 * (s), (p) + 21 * (s), (p) + 22 * (s), (p) + 23 * (s), (p) + 24 * (s),  \
        (p) + 25 * (s)
#define S28(p, s) S26(p, s), (p) + 26 * (s), (p) + 27 * (s)

void hand_jacobian_enzyme_fwd(int n_bones, const int *parents, const double *base_relatives,
                              const double *inverse_base_absolutes, int n_vertices,
                              const double *base_positions, const double *weights,
                              const double *theta, int n_corr, const int *correspondences,
                              const double *points, double *J)
{
    const int nrows = 3 * n_corr;
    double *err = malloc(sizeof(double) * nrows);
    double seed[HAND_NTHETA * HAND_NTHETA];
    memset(seed, 0, sizeof seed);
    for (int j = 0; j < HAND_NTHETA; j++)
        seed[j * HAND_NTHETA + j] = 1.0;
    __enzyme_fwddiff((void *)hand_objective, enzyme_width, 26,
                     enzyme_const, n_bones, enzyme_const, parents,
                     enzyme_const, base_relatives,
                     enzyme_const, inverse_base_absolutes,
                     enzyme_const, n_vertices, enzyme_const, base_positions,
                     enzyme_const, weights,
                     enzyme_dup, theta, S26(seed, HAND_NTHETA),
                     enzyme_const, n_corr, enzyme_const, correspondences,
                     enzyme_const, points,
                     enzyme_dupnoneed, err, S26(J, nrows));
    free(err);
}

void hand_jacobian_complicated_enzyme_fwd(int n_bones, const int *parents,
                                          const double *base_relatives,
                                          const double *inverse_base_absolutes,
                                          int n_vertices, const double *base_positions,
                                          const double *weights, const int *triangles,
                                          const double *theta, const double *us,
                                          int n_corr, const int *correspondences,
                                          const double *points, double *J)
{
    const int nrows = 3 * n_corr, nus = 2 * n_corr, width = HAND_NTHETA + 2;
    double *err = malloc(sizeof(double) * nrows);
    double *d_us = calloc((size_t)width * nus, sizeof(double));
    double d_theta[(HAND_NTHETA + 2) * HAND_NTHETA];
    memset(d_theta, 0, sizeof d_theta);
    for (int i = 0; i < n_corr; i++) {
        d_us[0 * nus + 2 * i] = 1.0;
        d_us[1 * nus + 2 * i + 1] = 1.0;
    }
    for (int j = 0; j < HAND_NTHETA; j++)
        d_theta[(2 + j) * HAND_NTHETA + j] = 1.0;
    __enzyme_fwddiff((void *)hand_objective_complicated, enzyme_width, 28,
                     enzyme_const, n_bones, enzyme_const, parents,
                     enzyme_const, base_relatives,
                     enzyme_const, inverse_base_absolutes,
                     enzyme_const, n_vertices, enzyme_const, base_positions,
                     enzyme_const, weights, enzyme_const, triangles,
                     enzyme_dup, theta, S28(d_theta, HAND_NTHETA),
                     enzyme_dup, us, S28(d_us, nus),
                     enzyme_const, n_corr, enzyme_const, correspondences,
                     enzyme_const, points,
                     enzyme_dupnoneed, err, S28(J, nrows));
    free(err);
    free(d_us);
}
