/* gmm_grad_enzyme.c -- GMM gradient by reverse-mode AD of gmm_objective through
   Enzyme's C API (compile with `irgrad cc`, or clang + the Enzyme plugin). One reverse
   sweep seeded with d_err = 1 ADDS dE/d(alphas, means, icf) into the shadows. */
#include <enzyme/enzyme.h>

#include "gmm.h"

void gmm_objective_grad_enzyme(int d, int k, int n, const double *alphas,
                               const double *means, const double *icf, const double *x,
                               double wishart_gamma, int wishart_m, double *d_alphas,
                               double *d_means, double *d_icf)
{
    double err = 0.0;
    double d_err = 1.0;
    __enzyme_autodiff((void *)gmm_objective,
                      enzyme_const, d, enzyme_const, k, enzyme_const, n,
                      enzyme_dup, alphas, d_alphas,
                      enzyme_dup, means, d_means,
                      enzyme_dup, icf, d_icf,
                      enzyme_const, x,
                      enzyme_const, wishart_gamma,
                      enzyme_const, wishart_m,
                      enzyme_dupnoneed, &err, &d_err);
}
