/* gmm.h -- ADBench Gaussian mixture model objective and its hand-written gradient. */
#ifndef ADBENCH_GMM_H
#define ADBENCH_GMM_H

/* E(alphas, means, icf) for n points x (n*d), K components (see README.md). */
void gmm_objective(int d, int k, int n, const double *alphas, const double *means,
                   const double *icf, const double *x, double wishart_gamma, int wishart_m,
                   double *err);

/* Analytic gradient: adds nothing, OVERWRITES d_alphas (k), d_means (k*d), d_icf
   (k*d(d+1)/2); also stores the objective in *err. */
void gmm_objective_grad_manual(int d, int k, int n, const double *alphas,
                               const double *means, const double *icf, const double *x,
                               double wishart_gamma, int wishart_m, double *err,
                               double *d_alphas, double *d_means, double *d_icf);

/* Enzyme-style gradient (gmm_grad_enzyme.c; needs the irgrad compiler): ADDS the
   gradient into d_alphas, d_means, d_icf. */
void gmm_objective_grad_enzyme(int d, int k, int n, const double *alphas,
                               const double *means, const double *icf, const double *x,
                               double wishart_gamma, int wishart_m, double *d_alphas,
                               double *d_means, double *d_icf);

#endif
