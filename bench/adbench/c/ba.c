/* ba.c -- ADBench bundle adjustment objective, written from the definition in
   ../shared/adbench/README.md. */
#include "ba.h"

#include <math.h>

static void cross(const double *a, const double *b, double *out)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* rotate X by the angle-axis vector rot (Rodrigues' formula) */
static void rodrigues_rotate_point(const double *rot, const double *X, double *out)
{
    const double sqtheta = rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2];
    if (sqtheta != 0.0) {
        const double theta = sqrt(sqtheta);
        const double costheta = cos(theta);
        const double sintheta = sin(theta);
        const double inv = 1.0 / theta;
        const double w[3] = {rot[0] * inv, rot[1] * inv, rot[2] * inv};
        double wx[3];
        cross(w, X, wx);
        const double tmp = (w[0] * X[0] + w[1] * X[1] + w[2] * X[2]) * (1.0 - costheta);
        for (int i = 0; i < 3; i++)
            out[i] = X[i] * costheta + wx[i] * sintheta + w[i] * tmp;
    } else {
        double rx[3];
        cross(rot, X, rx);
        for (int i = 0; i < 3; i++)
            out[i] = X[i] + rx[i];
    }
}

static void project(const double *cam, const double *X, double *proj)
{
    double xo[3], xcam[3];
    for (int i = 0; i < 3; i++)
        xo[i] = X[i] - cam[3 + i];
    rodrigues_rotate_point(cam, xo, xcam);
    const double p0 = xcam[0] / xcam[2];
    const double p1 = xcam[1] / xcam[2];
    const double rsq = p0 * p0 + p1 * p1;
    const double L = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    proj[0] = p0 * L * cam[6] + cam[7];
    proj[1] = p1 * L * cam[6] + cam[8];
}

void compute_reproj_error(const double *cam, const double *X, const double *w,
                          const double *feat, double *err)
{
    double proj[2];
    project(cam, X, proj);
    err[0] = *w * (proj[0] - feat[0]);
    err[1] = *w * (proj[1] - feat[1]);
}

void compute_zach_weight_error(const double *w, double *err)
{
    *err = 1.0 - *w * *w;
}

void ba_objective(int n, int m, int p, const double *cams, const double *X,
                  const double *w, const int *obs, const double *feats,
                  double *reproj_err, double *w_err)
{
    (void)n;
    (void)m;
    for (int i = 0; i < p; i++) {
        const int cam = obs[2 * i], pt = obs[2 * i + 1];
        compute_reproj_error(&cams[BA_NCAMPARAMS * cam], &X[3 * pt], &w[i], &feats[2 * i],
                             &reproj_err[2 * i]);
    }
    for (int i = 0; i < p; i++)
        compute_zach_weight_error(&w[i], &w_err[i]);
}

void ba_csr_insert(int n, int m, int p, int i, int cam, int pt, const double *J30,
                   double dw, int *rows, int *cols, double *vals)
{
    const int nrow = BA_NCAMPARAMS + 3 + 1;
    for (int r = 0; r < 2; r++) {
        const int row = 2 * i + r;
        int k = nrow * row;
        rows[row] = k;
        for (int j = 0; j < BA_NCAMPARAMS; j++, k++) {
            cols[k] = BA_NCAMPARAMS * cam + j;
            vals[k] = J30[2 * j + r];
        }
        for (int j = 0; j < 3; j++, k++) {
            cols[k] = BA_NCAMPARAMS * n + 3 * pt + j;
            vals[k] = J30[2 * (BA_NCAMPARAMS + j) + r];
        }
        cols[k] = BA_NCAMPARAMS * n + 3 * m + i;
        vals[k] = J30[2 * (BA_NCAMPARAMS + 3) + r];
    }
    /* the weight-error rows follow all 2p reprojection rows */
    const int row = 2 * p + i;
    const int k = nrow * 2 * p + i;
    rows[row] = k;
    cols[k] = BA_NCAMPARAMS * n + 3 * m + i;
    vals[k] = dw;
    if (i == p - 1)
        rows[3 * p] = k + 1;
}
