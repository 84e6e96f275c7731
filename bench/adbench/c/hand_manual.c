/* hand_manual.c -- hand-written analytic Jacobians of the ADBench hand residuals (the
   "manual" column of the benchmark; no AD involved).

   pos_v = R(g) s_v + t,  s_v = sum_b w_bv T_b x_v,  T_b = A_b I_b (absolute times
   inverse base absolute), A_b = A_parent(b) B_b E_b (base relative times the Euler
   rotation of the bone's pose). A finger angle a posing bone q changes E_q only:
     dA_q/da = A_parent(q) B_q dE_q/da,  dA_c/da = dA_parent(c)/da B_c E_c below q,
   so ds_v/da = sum_b w_bv dA_b/da I_b x_v over q's subtree, and dpos/da = R ds_v/da.
   dpos/dt = I and dpos/dg_k = dR/dg_k s_v (angle-axis derivative, zero in the
   identity branch |g| < 1e-4). Residuals are point - pos, so the Jacobian is -dpos.
   Bones must be ordered parents first (as in the model files). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"

#define N_ANGLES (HAND_NTHETA - 6)

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

static void mat3_mul(const double *a, const double *b, double *out)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

/* E = Rz(p[1]) Ry(p[2]) Rx(p[0]) (4x4) and, when which >= 0, its derivative with
   respect to p[which] (which is 0 or 1) instead */
static void euler_mat4(const double *p, int which, double *T)
{
    const double cx = cos(p[0]), sx = sin(p[0]);
    const double cz = cos(p[1]), sz = sin(p[1]);
    const double cy = cos(p[2]), sy = sin(p[2]);
    double rx[9] = {1, 0, 0, 0, cx, -sx, 0, sx, cx};
    double rz[9] = {cz, -sz, 0, sz, cz, 0, 0, 0, 1};
    const double ry[9] = {cy, 0, sy, 0, 1, 0, -sy, 0, cy};
    if (which == 0) {
        const double d[9] = {0, 0, 0, 0, -sx, -cx, 0, cx, -sx};
        memcpy(rx, d, sizeof d);
    } else if (which == 1) {
        const double d[9] = {-sz, -cz, 0, cz, -sz, 0, 0, 0, 0};
        memcpy(rz, d, sizeof d);
    }
    double zy[9], r[9];
    mat3_mul(rz, ry, zy);
    mat3_mul(zy, rx, r);
    memset(T, 0, sizeof(double) * 16);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            T[4 * i + j] = r[3 * i + j];
    T[15] = which >= 0 ? 0.0 : 1.0;
}

/* R (3x3 row-major) of the angle-axis vector aa and dR[k] = dR/daa_k */
static void angle_axis_with_derivative(const double *aa, double *R, double dR[3][9])
{
    const double th = sqrt(aa[0] * aa[0] + aa[1] * aa[1] + aa[2] * aa[2]);
    memset(dR, 0, sizeof(double) * 27);
    if (th < 0.0001) {
        for (int i = 0; i < 9; i++)
            R[i] = (i % 4 == 0) ? 1.0 : 0.0;
        return;
    }
    const double u[3] = {aa[0] / th, aa[1] / th, aa[2] / th};
    const double x = u[0], y = u[1], z = u[2];
    const double s = sin(th), c = cos(th), oc = 1.0 - c;
    R[0] = x * x + (1 - x * x) * c;
    R[1] = x * y * oc - z * s;
    R[2] = x * z * oc + y * s;
    R[3] = x * y * oc + z * s;
    R[4] = y * y + (1 - y * y) * c;
    R[5] = y * z * oc - x * s;
    R[6] = x * z * oc - y * s;
    R[7] = z * y * oc + x * s;
    R[8] = z * z + (1 - z * z) * c;
    /* partials of each entry with respect to x, y, z and theta */
    const double P[9][4] = {
        {2 * x * oc, 0, 0, -(1 - x * x) * s},
        {y * oc, x * oc, -s, x * y * s - z * c},
        {z * oc, s, x * oc, x * z * s + y * c},
        {y * oc, x * oc, s, x * y * s + z * c},
        {0, 2 * y * oc, 0, -(1 - y * y) * s},
        {-s, z * oc, y * oc, y * z * s - x * c},
        {z * oc, -s, x * oc, x * z * s - y * c},
        {s, z * oc, y * oc, z * y * s + x * c},
        {0, 0, 2 * z * oc, -(1 - z * z) * s},
    };
    for (int k = 0; k < 3; k++)
        for (int e = 0; e < 9; e++) {
            double acc = P[e][3] * u[k];
            for (int i = 0; i < 3; i++)
                acc += P[e][i] * ((i == k) - u[i] * u[k]) / th;
            dR[k][e] = acc;
        }
}

typedef struct {
    double R[9], dR[3][9];
    double *T;      /* n_bones x 16: bone transforms */
    double *dT;     /* N_ANGLES x n_bones x 16: their derivatives */
    char *touched;  /* N_ANGLES x n_bones: dT nonzero */
} HandDerivs;

static void hand_derivs(int n_bones, const int *parents, const double *base_relatives,
                        const double *inverse_base_absolutes, const double *theta,
                        HandDerivs *h)
{
    double *pose = calloc((size_t)3 * n_bones, sizeof(double));
    int angle_bone[N_ANGLES], angle_comp[N_ANGLES];
    for (int finger = 0, q = 0; finger < 5; finger++) {
        const int bone = 4 * finger + 2;
        const int bones[4] = {bone, bone, bone + 1, bone + 2};
        const int comps[4] = {0, 1, 0, 0};
        for (int j = 0; j < 4; j++, q++) {
            angle_bone[q] = bones[j];
            angle_comp[q] = comps[j];
            pose[3 * bones[j] + comps[j]] = theta[6 + q];
        }
    }
    double *rel = malloc(sizeof(double) * 16 * n_bones);
    double *abs_ = malloc(sizeof(double) * 16 * n_bones);
    double *dabs = malloc(sizeof(double) * 16 * n_bones);
    double e[16], de[16], drel[16];
    h->T = malloc(sizeof(double) * 16 * n_bones);
    h->dT = malloc(sizeof(double) * 16 * n_bones * N_ANGLES);
    h->touched = calloc((size_t)N_ANGLES * n_bones, 1);
    for (int b = 0; b < n_bones; b++) {
        euler_mat4(&pose[3 * b], -1, e);
        mat4_mul(&base_relatives[16 * b], e, &rel[16 * b]);
        if (parents[b] < 0)
            memcpy(&abs_[16 * b], &rel[16 * b], sizeof(double) * 16);
        else
            mat4_mul(&abs_[16 * parents[b]], &rel[16 * b], &abs_[16 * b]);
        mat4_mul(&abs_[16 * b], &inverse_base_absolutes[16 * b], &h->T[16 * b]);
    }
    for (int q = 0; q < N_ANGLES; q++) {
        const int bq = angle_bone[q];
        char *touched = &h->touched[q * n_bones];
        for (int b = bq; b < n_bones; b++) {
            if (b == bq) {
                euler_mat4(&pose[3 * b], angle_comp[q], de);
                mat4_mul(&base_relatives[16 * b], de, drel);
                if (parents[b] < 0)
                    memcpy(&dabs[16 * b], drel, sizeof drel);
                else
                    mat4_mul(&abs_[16 * parents[b]], drel, &dabs[16 * b]);
            } else if (parents[b] >= 0 && touched[parents[b]]) {
                mat4_mul(&dabs[16 * parents[b]], &rel[16 * b], &dabs[16 * b]);
            } else {
                continue;
            }
            touched[b] = 1;
            mat4_mul(&dabs[16 * b], &inverse_base_absolutes[16 * b],
                     &h->dT[16 * ((size_t)q * n_bones + b)]);
        }
    }
    angle_axis_with_derivative(theta, h->R, h->dR);
    free(pose);
    free(rel);
    free(abs_);
    free(dabs);
}

/* position of vertex v and its 3 x 26 derivative (dpos[3*j + i] = d pos_i / d theta_j) */
static void vertex_with_derivative(const HandDerivs *h, int n_bones, int n_vertices,
                                   const double *base_positions, const double *weights,
                                   const double *theta, int v, double *pos, double *dpos)
{
    const double *x = &base_positions[3 * v];
    double s[3] = {0, 0, 0}, ds[N_ANGLES][3];
    memset(ds, 0, sizeof ds);
    for (int b = 0; b < n_bones; b++) {
        const double wt = weights[b * n_vertices + v];
        if (wt == 0.0)
            continue;
        const double *T = &h->T[16 * b];
        for (int i = 0; i < 3; i++)
            s[i] += wt * (T[4 * i] * x[0] + T[4 * i + 1] * x[1] + T[4 * i + 2] * x[2] + T[4 * i + 3]);
        for (int q = 0; q < N_ANGLES; q++) {
            if (!h->touched[q * n_bones + b])
                continue;
            const double *D = &h->dT[16 * ((size_t)q * n_bones + b)];
            for (int i = 0; i < 3; i++)
                ds[q][i] += wt * (D[4 * i] * x[0] + D[4 * i + 1] * x[1] + D[4 * i + 2] * x[2] + D[4 * i + 3]);
        }
    }
    for (int i = 0; i < 3; i++) {
        pos[i] = h->R[3 * i] * s[0] + h->R[3 * i + 1] * s[1] + h->R[3 * i + 2] * s[2] + theta[3 + i];
        for (int k = 0; k < 3; k++) {
            const double *dR = h->dR[k];
            dpos[3 * k + i] = dR[3 * i] * s[0] + dR[3 * i + 1] * s[1] + dR[3 * i + 2] * s[2];
            dpos[3 * (3 + k) + i] = i == k ? 1.0 : 0.0;
        }
        for (int q = 0; q < N_ANGLES; q++)
            dpos[3 * (6 + q) + i] =
                h->R[3 * i] * ds[q][0] + h->R[3 * i + 1] * ds[q][1] + h->R[3 * i + 2] * ds[q][2];
    }
}

static void free_derivs(HandDerivs *h)
{
    free(h->T);
    free(h->dT);
    free(h->touched);
}

void hand_jacobian_manual(int n_bones, const int *parents, const double *base_relatives,
                          const double *inverse_base_absolutes, int n_vertices,
                          const double *base_positions, const double *weights,
                          const double *theta, int n_corr, const int *correspondences,
                          const double *points, double *err, double *J)
{
    HandDerivs h;
    hand_derivs(n_bones, parents, base_relatives, inverse_base_absolutes, theta, &h);
    const int nrows = 3 * n_corr;
    double pos[3], dpos[3 * HAND_NTHETA];
    for (int p = 0; p < n_corr; p++) {
        vertex_with_derivative(&h, n_bones, n_vertices, base_positions, weights, theta,
                               correspondences[p], pos, dpos);
        for (int i = 0; i < 3; i++) {
            err[3 * p + i] = points[3 * p + i] - pos[i];
            for (int j = 0; j < HAND_NTHETA; j++)
                J[j * nrows + 3 * p + i] = -dpos[3 * j + i];
        }
    }
    free_derivs(&h);
}

void hand_jacobian_complicated_manual(int n_bones, const int *parents,
                                      const double *base_relatives,
                                      const double *inverse_base_absolutes,
                                      int n_vertices, const double *base_positions,
                                      const double *weights, const int *triangles,
                                      const double *theta, const double *us, int n_corr,
                                      const int *correspondences, const double *points,
                                      double *err, double *J)
{
    HandDerivs h;
    hand_derivs(n_bones, parents, base_relatives, inverse_base_absolutes, theta, &h);
    const int nrows = 3 * n_corr;
    double pos[3][3], dpos[3][3 * HAND_NTHETA];
    for (int p = 0; p < n_corr; p++) {
        const int *tri = &triangles[3 * correspondences[p]];
        for (int t = 0; t < 3; t++)
            vertex_with_derivative(&h, n_bones, n_vertices, base_positions, weights, theta,
                                   tri[t], pos[t], dpos[t]);
        const double u0 = us[2 * p], u1 = us[2 * p + 1], u2 = 1.0 - u0 - u1;
        for (int i = 0; i < 3; i++) {
            const int r = 3 * p + i;
            err[r] = points[r] - (u0 * pos[0][i] + u1 * pos[1][i] + u2 * pos[2][i]);
            J[0 * nrows + r] = -(pos[0][i] - pos[2][i]);
            J[1 * nrows + r] = -(pos[1][i] - pos[2][i]);
            for (int j = 0; j < HAND_NTHETA; j++)
                J[(2 + j) * nrows + r] =
                    -(u0 * dpos[0][3 * j + i] + u1 * dpos[1][3 * j + i] + u2 * dpos[2][3 * j + i]);
        }
    }
    free_derivs(&h);
}
