/* hand.h -- ADBench hand-tracking residuals (simple and complicated).
   Model: n_bones bones with parents (-1 for the root), base_relatives and
   inverse_base_absolutes (16 each per bone, 4x4 row-major), n_vertices base positions
   (3 each) and dense skinning weights (n_bones x n_vertices, weights[b*n_vertices+v]);
   triangles (3 vertex indices each) for the complicated variant.
   theta (26): global rotation (angle-axis), translation, 20 finger angles. */
#ifndef ADBENCH_HAND_H
#define ADBENCH_HAND_H

#define HAND_NTHETA 26

/* err[3*i+j] = points[3*i+j] - skinned vertex correspondences[i], coordinate j */
void hand_objective(int n_bones, const int *parents, const double *base_relatives,
                    const double *inverse_base_absolutes, int n_vertices,
                    const double *base_positions, const double *weights,
                    const double *theta, int n_corr, const int *correspondences,
                    const double *points, double *err);

/* correspondences index triangles; us holds (u0, u1) per point:
   err_i = point_i - (u0 v_a + u1 v_b + (1 - u0 - u1) v_c) */
void hand_objective_complicated(int n_bones, const int *parents,
                                const double *base_relatives,
                                const double *inverse_base_absolutes, int n_vertices,
                                const double *base_positions, const double *weights,
                                const int *triangles, const double *theta,
                                const double *us, int n_corr, const int *correspondences,
                                const double *points, double *err);

/* Analytic dense Jacobians (hand_manual.c), same layout as the Enzyme ones below; also
   store the residuals in err. */
void hand_jacobian_manual(int n_bones, const int *parents, const double *base_relatives,
                          const double *inverse_base_absolutes, int n_vertices,
                          const double *base_positions, const double *weights,
                          const double *theta, int n_corr, const int *correspondences,
                          const double *points, double *err, double *J);

void hand_jacobian_complicated_manual(int n_bones, const int *parents,
                                      const double *base_relatives,
                                      const double *inverse_base_absolutes,
                                      int n_vertices, const double *base_positions,
                                      const double *weights, const int *triangles,
                                      const double *theta, const double *us, int n_corr,
                                      const int *correspondences, const double *points,
                                      double *err, double *J);

/* Enzyme-style dense Jacobians (hand_grad_enzyme.c), one reverse sweep per residual,
   column-major: J is 3N x 26 (simple) or 3N x 28 (complicated: d/du0, d/du1 of each
   point's own residuals, then theta). */
void hand_jacobian_enzyme(int n_bones, const int *parents, const double *base_relatives,
                          const double *inverse_base_absolutes, int n_vertices,
                          const double *base_positions, const double *weights,
                          const double *theta, int n_corr, const int *correspondences,
                          const double *points, double *J);

void hand_jacobian_complicated_enzyme(int n_bones, const int *parents,
                                      const double *base_relatives,
                                      const double *inverse_base_absolutes,
                                      int n_vertices, const double *base_positions,
                                      const double *weights, const int *triangles,
                                      const double *theta, const double *us, int n_corr,
                                      const int *correspondences, const double *points,
                                      double *J);

/* The same Jacobians by one vector forward sweep (hand_grad_enzyme_fwd.c,
   __enzyme_fwddiff with enzyme_width 26 / 28). */
void hand_jacobian_enzyme_fwd(int n_bones, const int *parents, const double *base_relatives,
                              const double *inverse_base_absolutes, int n_vertices,
                              const double *base_positions, const double *weights,
                              const double *theta, int n_corr, const int *correspondences,
                              const double *points, double *J);

void hand_jacobian_complicated_enzyme_fwd(int n_bones, const int *parents,
                                          const double *base_relatives,
                                          const double *inverse_base_absolutes,
                                          int n_vertices, const double *base_positions,
                                          const double *weights, const int *triangles,
                                          const double *theta, const double *us,
                                          int n_corr, const int *correspondences,
                                          const double *points, double *J);

#endif
