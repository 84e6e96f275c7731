/* ba.h -- ADBench bundle adjustment residuals and their Jacobians.
   Camera (11): rotation r (3, angle-axis), centre C (3), focal f, u0, v0, k1, k2. */
#ifndef ADBENCH_BA_H
#define ADBENCH_BA_H

#define BA_NCAMPARAMS 11

/* One observation: err[0..1] = w * (projection of X by cam - feat). */
void compute_reproj_error(const double *cam, const double *X, const double *w,
                          const double *feat, double *err);

/* err = 1 - w^2 */
void compute_zach_weight_error(const double *w, double *err);

/* All residuals: obs[2*i] = camera index, obs[2*i+1] = point index.
   reproj_err (2p), w_err (p). */
void ba_objective(int n, int m, int p, const double *cams, const double *X,
                  const double *w, const int *obs, const double *feats,
                  double *reproj_err, double *w_err);

/* Analytic 2x15 block of one observation, column-major like ADBench (J[2*col + row]):
   columns 0..10 camera, 11..13 point, 14 weight. Also stores the residual in err. */
void compute_reproj_error_jacobian_manual(const double *cam, const double *X,
                                          const double *w, const double *feat,
                                          double *err, double *J);

/* The sparse Jacobian (2p + p) x (11n + 3m + p) in CSR: rows (3p + 1), cols and vals
   (31p each), ordered like ADBench's BASparseMat. Also stores the residuals. */
void ba_jacobian_manual(int n, int m, int p, const double *cams, const double *X,
                        const double *w, const int *obs, const double *feats,
                        double *reproj_err, double *w_err, int *rows, int *cols,
                        double *vals);

/* Same layout, each block by reverse-mode AD through Enzyme's C API (ba_grad_enzyme.c):
   two reverse sweeps of compute_reproj_error and one of compute_zach_weight_error per
   observation. Does not store the residuals. */
void ba_jacobian_enzyme(int n, int m, int p, const double *cams, const double *X,
                        const double *w, const int *obs, const double *feats, int *rows,
                        int *cols, double *vals);

/* CSR assembly shared by both Jacobians: J30 is the observation's 2x15 block
   (column-major), dw its weight-error derivative. */
void ba_csr_insert(int n, int m, int p, int i, int cam, int pt, const double *J30,
                   double dw, int *rows, int *cols, double *vals);

#endif
