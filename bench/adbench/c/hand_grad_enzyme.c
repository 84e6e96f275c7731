/* hand_grad_enzyme.c -- dense hand Jacobians by reverse-mode AD through Enzyme's C API:
   one reverse sweep per residual (seed e_r), which yields row r of the Jacobian.
   Future: vector forward mode (__enzyme_fwddiff with enzyme_width, 26 or 28 tangents)
   computes all columns in one sweep and is what ADBench's fastest tools do. */
#include <enzyme/enzyme.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"

void hand_jacobian_enzyme(int n_bones, const int *parents, const double *base_relatives,
                          const double *inverse_base_absolutes, int n_vertices,
                          const double *base_positions, const double *weights,
                          const double *theta, int n_corr, const int *correspondences,
                          const double *points, double *J)
{
    const int nrows = 3 * n_corr;
    double *err = malloc(sizeof(double) * nrows);
    double *d_err = malloc(sizeof(double) * nrows);
    double d_theta[HAND_NTHETA];
    for (int r = 0; r < nrows; r++) {
        memset(d_err, 0, sizeof(double) * nrows);
        memset(d_theta, 0, sizeof d_theta);
        d_err[r] = 1.0;
        __enzyme_autodiff((void *)hand_objective,
                          enzyme_const, n_bones, enzyme_const, parents,
                          enzyme_const, base_relatives,
                          enzyme_const, inverse_base_absolutes,
                          enzyme_const, n_vertices, enzyme_const, base_positions,
                          enzyme_const, weights,
                          enzyme_dup, theta, d_theta,
                          enzyme_const, n_corr, enzyme_const, correspondences,
                          enzyme_const, points,
                          enzyme_dupnoneed, err, d_err);
        for (int j = 0; j < HAND_NTHETA; j++)
            J[j * nrows + r] = d_theta[j];
    }
    free(err);
    free(d_err);
}

void hand_jacobian_complicated_enzyme(int n_bones, const int *parents,
                                      const double *base_relatives,
                                      const double *inverse_base_absolutes,
                                      int n_vertices, const double *base_positions,
                                      const double *weights, const int *triangles,
                                      const double *theta, const double *us, int n_corr,
                                      const int *correspondences, const double *points,
                                      double *J)
{
    const int nrows = 3 * n_corr;
    double *err = malloc(sizeof(double) * nrows);
    double *d_err = malloc(sizeof(double) * nrows);
    double *d_us = malloc(sizeof(double) * 2 * n_corr);
    double d_theta[HAND_NTHETA];
    for (int r = 0; r < nrows; r++) {
        memset(d_err, 0, sizeof(double) * nrows);
        memset(d_us, 0, sizeof(double) * 2 * n_corr);
        memset(d_theta, 0, sizeof d_theta);
        d_err[r] = 1.0;
        __enzyme_autodiff((void *)hand_objective_complicated,
                          enzyme_const, n_bones, enzyme_const, parents,
                          enzyme_const, base_relatives,
                          enzyme_const, inverse_base_absolutes,
                          enzyme_const, n_vertices, enzyme_const, base_positions,
                          enzyme_const, weights, enzyme_const, triangles,
                          enzyme_dup, theta, d_theta,
                          enzyme_dup, us, d_us,
                          enzyme_const, n_corr, enzyme_const, correspondences,
                          enzyme_const, points,
                          enzyme_dupnoneed, err, d_err);
        const int pt = r / 3;
        J[0 * nrows + r] = d_us[2 * pt];
        J[1 * nrows + r] = d_us[2 * pt + 1];
        for (int j = 0; j < HAND_NTHETA; j++)
            J[(2 + j) * nrows + r] = d_theta[j];
    }
    free(err);
    free(d_err);
    free(d_us);
}
