/* ba_manual.c -- hand-written analytic Jacobian of the ADBench BA residuals (the
   "manual" column of the benchmark; no AD involved).

   With Xo = X - C, Xcam = R(r) Xo, p = Xcam[0:2] / Xcam[2], L = 1 + k1 |p|^2 + k2 |p|^4,
   proj = f L p + (u0, v0), err = w (proj - feat):
     A = d err / d Xcam = w f (L I + 2 (k1 + 2 k2 |p|^2) p p^T) dp/dXcam
     d err / d X = A R,  d err / d C = -A R,  d err / d r = A dXcam/dr
     d err / d f = w L p,  d err / d (u0, v0) = w I,  d err / d k1 = w f |p|^2 p,
     d err / d k2 = w f |p|^4 p,  d err / d w = proj - feat.
   For theta = |r| != 0 (w_ = r / theta, c = cos theta, s = sin theta):
     Xcam = c Xo + s (w_ x Xo) + (1 - c)(w_ . Xo) w_
     dXcam/dr = dXcam/dtheta w_^T + dXcam/dw_ (I - w_ w_^T) / theta,
     dXcam/dtheta = -s Xo + c (w_ x Xo) + s (w_ . Xo) w_,
     dXcam/dw_ = -s [Xo]x + (1 - c)(w_ Xo^T + (w_ . Xo) I).
   For theta = 0 (Xcam = Xo + r x Xo): R = I + [r]x, dXcam/dr = -[Xo]x. */
#include <math.h>

#include "ba.h"

/* [a]x b = a x b */
static void skew(const double *a, double S[3][3])
{
    S[0][0] = 0.0;
    S[0][1] = -a[2];
    S[0][2] = a[1];
    S[1][0] = a[2];
    S[1][1] = 0.0;
    S[1][2] = -a[0];
    S[2][0] = -a[1];
    S[2][1] = a[0];
    S[2][2] = 0.0;
}

/* Xcam, R = dXcam/dXo and D = dXcam/dr */
static void rotate_with_jacobians(const double *r, const double *xo, double *xcam,
                                  double R[3][3], double D[3][3])
{
    const double sqtheta = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    double sxo[3][3];
    skew(xo, sxo);
    if (sqtheta == 0.0) {
        double sr[3][3];
        skew(r, sr);
        for (int i = 0; i < 3; i++) {
            xcam[i] = xo[i];
            for (int j = 0; j < 3; j++) {
                xcam[i] += sr[i][j] * xo[j];
                R[i][j] = (i == j) + sr[i][j];
                D[i][j] = -sxo[i][j];
            }
        }
        return;
    }
    const double theta = sqrt(sqtheta);
    const double c = cos(theta), s = sin(theta);
    const double w[3] = {r[0] / theta, r[1] / theta, r[2] / theta};
    double sw[3][3];
    skew(w, sw);
    const double wx[3] = {w[1] * xo[2] - w[2] * xo[1], w[2] * xo[0] - w[0] * xo[2],
                          w[0] * xo[1] - w[1] * xo[0]};
    const double wdx = w[0] * xo[0] + w[1] * xo[1] + w[2] * xo[2];
    double dtheta[3], dw[3][3];
    for (int i = 0; i < 3; i++) {
        xcam[i] = c * xo[i] + s * wx[i] + (1.0 - c) * wdx * w[i];
        dtheta[i] = -s * xo[i] + c * wx[i] + s * wdx * w[i];
        for (int j = 0; j < 3; j++) {
            R[i][j] = c * (i == j) + s * sw[i][j] + (1.0 - c) * w[i] * w[j];
            dw[i][j] = -s * sxo[i][j] + (1.0 - c) * (w[i] * xo[j] + wdx * (i == j));
        }
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double acc = dtheta[i] * w[j];
            for (int q = 0; q < 3; q++)
                acc += dw[i][q] * ((q == j) - w[q] * w[j]) / theta;
            D[i][j] = acc;
        }
}

void compute_reproj_error_jacobian_manual(const double *cam, const double *X,
                                          const double *w, const double *feat,
                                          double *err, double *J)
{
    double xo[3], xcam[3], R[3][3], D[3][3];
    for (int i = 0; i < 3; i++)
        xo[i] = X[i] - cam[3 + i];
    rotate_with_jacobians(cam, xo, xcam, R, D);
    const double f = cam[6], k1 = cam[9], k2 = cam[10], wt = *w;
    const double iz = 1.0 / xcam[2];
    const double p[2] = {xcam[0] * iz, xcam[1] * iz};
    const double rsq = p[0] * p[0] + p[1] * p[1];
    const double L = 1.0 + k1 * rsq + k2 * rsq * rsq;
    const double proj[2] = {p[0] * L * f + cam[7], p[1] * L * f + cam[8]};
    err[0] = wt * (proj[0] - feat[0]);
    err[1] = wt * (proj[1] - feat[1]);

    /* dpd/dp = L I + 2 (k1 + 2 k2 rsq) p p^T; dp/dXcam = [[iz, 0, -p0 iz], [0, iz, -p1 iz]] */
    const double dl = 2.0 * (k1 + 2.0 * k2 * rsq);
    double A[2][3];
    for (int row = 0; row < 2; row++) {
        const double m0 = (row == 0 ? L : 0.0) + dl * p[row] * p[0];
        const double m1 = (row == 1 ? L : 0.0) + dl * p[row] * p[1];
        A[row][0] = wt * f * m0 * iz;
        A[row][1] = wt * f * m1 * iz;
        A[row][2] = -wt * f * (m0 * p[0] + m1 * p[1]) * iz;
    }
    for (int row = 0; row < 2; row++) {
        for (int j = 0; j < 3; j++) {
            double ar = 0.0, ad = 0.0;
            for (int q = 0; q < 3; q++) {
                ar += A[row][q] * R[q][j];
                ad += A[row][q] * D[q][j];
            }
            J[2 * j + row] = ad;                /* rotation */
            J[2 * (3 + j) + row] = -ar;         /* centre */
            J[2 * (BA_NCAMPARAMS + j) + row] = ar; /* point */
        }
        J[2 * 6 + row] = wt * L * p[row];             /* focal */
        J[2 * 7 + row] = row == 0 ? wt : 0.0;         /* u0 */
        J[2 * 8 + row] = row == 1 ? wt : 0.0;         /* v0 */
        J[2 * 9 + row] = wt * f * rsq * p[row];       /* k1 */
        J[2 * 10 + row] = wt * f * rsq * rsq * p[row]; /* k2 */
        J[2 * 14 + row] = proj[row] - feat[row];      /* weight */
    }
}

void ba_jacobian_manual(int n, int m, int p, const double *cams, const double *X,
                        const double *w, const int *obs, const double *feats,
                        double *reproj_err, double *w_err, int *rows, int *cols,
                        double *vals)
{
    double J[30];
    for (int i = 0; i < p; i++) {
        const int cam = obs[2 * i], pt = obs[2 * i + 1];
        compute_reproj_error_jacobian_manual(&cams[BA_NCAMPARAMS * cam], &X[3 * pt], &w[i],
                                             &feats[2 * i], &reproj_err[2 * i], J);
        w_err[i] = 1.0 - w[i] * w[i];
        ba_csr_insert(n, m, p, i, cam, pt, J, -2.0 * w[i], rows, cols, vals);
    }
}
