/* hand.c -- ADBench hand-tracking objective, written from the definition in
   ../shared/adbench/README.md. 4x4 matrices are row-major double[16]. */
#include "hand.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void mat4_mul(const double *a, const double *b, double *out)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++)
                s += a[4 * i + k] * b[4 * k + j];
            out[4 * i + j] = s;
        }
}

/* 3x3 rotation Rz(p[1]) Ry(p[2]) Rx(p[0]) as the upper-left block of a 4x4 identity */
static void euler_to_mat4(const double *p, double *T)
{
    const double cx = cos(p[0]), sx = sin(p[0]);
    const double cz = cos(p[1]), sz = sin(p[1]);
    const double cy = cos(p[2]), sy = sin(p[2]);
    memset(T, 0, sizeof(double) * 16);
    T[0] = cz * cy;
    T[1] = cz * sy * sx - sz * cx;
    T[2] = cz * sy * cx + sz * sx;
    T[4] = sz * cy;
    T[5] = sz * sy * sx + cz * cx;
    T[6] = sz * sy * cx - cz * sx;
    T[8] = -sy;
    T[9] = cy * sx;
    T[10] = cy * cx;
    T[15] = 1.0;
}

static void angle_axis_to_mat3(const double *aa, double *R)
{
    const double norm = sqrt(aa[0] * aa[0] + aa[1] * aa[1] + aa[2] * aa[2]);
    if (norm < 0.0001) {
        for (int i = 0; i < 9; i++)
            R[i] = (i % 4 == 0) ? 1.0 : 0.0;
        return;
    }
    const double x = aa[0] / norm, y = aa[1] / norm, z = aa[2] / norm;
    const double s = sin(norm), c = cos(norm);
    R[0] = x * x + (1 - x * x) * c;
    R[1] = x * y * (1 - c) - z * s;
    R[2] = x * z * (1 - c) + y * s;
    R[3] = x * y * (1 - c) + z * s;
    R[4] = y * y + (1 - y * y) * c;
    R[5] = y * z * (1 - c) - x * s;
    R[6] = x * z * (1 - c) - y * s;
    R[7] = z * y * (1 - c) + x * s;
    R[8] = z * z + (1 - z * z) * c;
}

/* Skinned, globally transformed vertex positions (n_vertices x 3) for pose theta. */
static void hand_positions(int n_bones, const int *parents, const double *base_relatives,
                           const double *inverse_base_absolutes, int n_vertices,
                           const double *base_positions, const double *weights,
                           const double *theta, double *positions)
{
    /* per-bone Euler angles: the first 6 thetas are global; each finger (bones
       4f+1..4f+4) poses its bones 4f+2 (two angles), 4f+3 and 4f+4 (one each) */
    double *pose = calloc((size_t)3 * n_bones, sizeof(double));
    int it = 6;
    for (int finger = 0; finger < 5; finger++) {
        const int bone = 4 * finger + 2;
        pose[3 * bone] = theta[it++];
        pose[3 * bone + 1] = theta[it++];
        pose[3 * (bone + 1)] = theta[it++];
        pose[3 * (bone + 2)] = theta[it++];
    }

    double *absolutes = malloc(sizeof(double) * 16 * n_bones);
    double *transforms = malloc(sizeof(double) * 16 * n_bones);
    double rot[16], rel[16];
    for (int b = 0; b < n_bones; b++) {
        euler_to_mat4(&pose[3 * b], rot);
        mat4_mul(&base_relatives[16 * b], rot, rel);
        if (parents[b] < 0)
            memcpy(&absolutes[16 * b], rel, sizeof rel);
        else
            mat4_mul(&absolutes[16 * parents[b]], rel, &absolutes[16 * b]);
        mat4_mul(&absolutes[16 * b], &inverse_base_absolutes[16 * b], &transforms[16 * b]);
    }

    memset(positions, 0, sizeof(double) * 3 * n_vertices);
    for (int b = 0; b < n_bones; b++) {
        const double *T = &transforms[16 * b];
        for (int v = 0; v < n_vertices; v++) {
            const double wt = weights[b * n_vertices + v];
            const double *x = &base_positions[3 * v];
            for (int i = 0; i < 3; i++)
                positions[3 * v + i] +=
                    wt * (T[4 * i] * x[0] + T[4 * i + 1] * x[1] + T[4 * i + 2] * x[2] + T[4 * i + 3]);
        }
    }

    double R[9];
    angle_axis_to_mat3(theta, R);
    for (int v = 0; v < n_vertices; v++) {
        const double x0 = positions[3 * v], x1 = positions[3 * v + 1], x2 = positions[3 * v + 2];
        for (int i = 0; i < 3; i++)
            positions[3 * v + i] = R[3 * i] * x0 + R[3 * i + 1] * x1 + R[3 * i + 2] * x2 + theta[3 + i];
    }

    free(pose);
    free(absolutes);
    free(transforms);
}

void hand_objective(int n_bones, const int *parents, const double *base_relatives,
                    const double *inverse_base_absolutes, int n_vertices,
                    const double *base_positions, const double *weights,
                    const double *theta, int n_corr, const int *correspondences,
                    const double *points, double *err)
{
    double *pos = malloc(sizeof(double) * 3 * n_vertices);
    hand_positions(n_bones, parents, base_relatives, inverse_base_absolutes, n_vertices,
                   base_positions, weights, theta, pos);
    for (int i = 0; i < n_corr; i++)
        for (int j = 0; j < 3; j++)
            err[3 * i + j] = points[3 * i + j] - pos[3 * correspondences[i] + j];
    free(pos);
}

void hand_objective_complicated(int n_bones, const int *parents,
                                const double *base_relatives,
                                const double *inverse_base_absolutes, int n_vertices,
                                const double *base_positions, const double *weights,
                                const int *triangles, const double *theta,
                                const double *us, int n_corr, const int *correspondences,
                                const double *points, double *err)
{
    double *pos = malloc(sizeof(double) * 3 * n_vertices);
    hand_positions(n_bones, parents, base_relatives, inverse_base_absolutes, n_vertices,
                   base_positions, weights, theta, pos);
    for (int i = 0; i < n_corr; i++) {
        const int *tri = &triangles[3 * correspondences[i]];
        const double u0 = us[2 * i], u1 = us[2 * i + 1];
        for (int j = 0; j < 3; j++) {
            const double hp = u0 * pos[3 * tri[0] + j] + u1 * pos[3 * tri[1] + j]
                              + (1.0 - u0 - u1) * pos[3 * tri[2] + j];
            err[3 * i + j] = points[3 * i + j] - hp;
        }
    }
    free(pos);
}
