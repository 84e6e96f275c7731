/* ba_grad_enzyme.c -- BA sparse Jacobian by reverse-mode AD through Enzyme's C API: per
   observation one reverse sweep of compute_reproj_error per residual (seeds (1,0) and
   (0,1)) and one of compute_zach_weight_error, assembled into CSR by ba_csr_insert. */
#include <enzyme/enzyme.h>
#include <string.h>

#include "ba.h"

void ba_jacobian_enzyme(int n, int m, int p, const double *cams, const double *X,
                        const double *w, const int *obs, const double *feats, int *rows,
                        int *cols, double *vals)
{
    double J[30];
    for (int i = 0; i < p; i++) {
        const int cam = obs[2 * i], pt = obs[2 * i + 1];
        for (int r = 0; r < 2; r++) {
            double err[2] = {0.0, 0.0};
            double d_err[2] = {0.0, 0.0};
            double d_cam[BA_NCAMPARAMS], d_X[3], d_w = 0.0;
            memset(d_cam, 0, sizeof d_cam);
            memset(d_X, 0, sizeof d_X);
            d_err[r] = 1.0;
            __enzyme_autodiff((void *)compute_reproj_error,
                              enzyme_dup, &cams[BA_NCAMPARAMS * cam], d_cam,
                              enzyme_dup, &X[3 * pt], d_X,
                              enzyme_dup, &w[i], &d_w,
                              enzyme_const, &feats[2 * i],
                              enzyme_dupnoneed, err, d_err);
            for (int j = 0; j < BA_NCAMPARAMS; j++)
                J[2 * j + r] = d_cam[j];
            for (int j = 0; j < 3; j++)
                J[2 * (BA_NCAMPARAMS + j) + r] = d_X[j];
            J[2 * (BA_NCAMPARAMS + 3) + r] = d_w;
        }
        double werr = 0.0, d_werr = 1.0, d_w = 0.0;
        __enzyme_autodiff((void *)compute_zach_weight_error,
                          enzyme_dup, &w[i], &d_w,
                          enzyme_dupnoneed, &werr, &d_werr);
        ba_csr_insert(n, m, p, i, cam, pt, J, d_w, rows, cols, vals);
    }
}
