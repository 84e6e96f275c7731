/*
 * enzyme/fixed_point.h -- loops iterated to a fixed point, differentiated at the state
 * they converge to (Enzyme's __enzyme_fixed_point, as irgrad implements it).
 *
 *   __enzyme_fixed_point((void *)step,
 *                        enzyme_fp_state, z, bytes,          (one or more)
 *                        [enzyme_fp_reduction, r,]           (double, default 1e-12)
 *                        [enzyme_fp_max_iters, n,]           (int64_t, default 1000; 0: none)
 *                        [enzyme_fp_control, control,]
 *                        [enzyme_checkpoint_region, p, bytes,]...
 *                        args...);
 *
 * runs the loop
 *
 *   int64_t i = 0;
 *   while (step(i++, args...));
 *
 * where each call of step computes z <- phi(z, x) and returns whether to go on.
 *
 * Reverse mode does not reverse the iterations one by one. The augmented pass runs the
 * loop and keeps one snapshot of the state it ends in (the state z, the regions listed
 * with enzyme_checkpoint_region, and the globals the step writes or reads while other
 * code writes them). The reverse pass then iterates the adjoint of one step at that
 * state, w <- zbar + phi_z^T w, adding phi_x^T of each increment into the shadows of
 * the step's other arguments (Christianson's two-phase adjoint). Memory: one snapshot,
 * whatever the number of iterations. The iteration stops when the squared 2-norm of the
 * increment, summed over the enzyme_fp_state regions, falls below r times its value
 * after the first adjoint iteration, when it grows again after five iterations, or
 * after n iterations. With enzyme_fp_control, the function
 *
 *   int control(double *cumul, double *reduction);
 *
 * decides instead: it is called with *cumul = -1 before the first adjoint iteration
 * and with the squared norm after each one, and returns whether to iterate again (the
 * limit n still applies). After the reverse pass the shadow of each state is zero (the
 * fixed point does not depend on the initial guess) and the primal memory of the
 * snapshot is as the reverse pass found it.
 *
 * Forward mode runs the loop, then iterates the tangent of one step at the converged
 * state, s <- phi_z s + phi_x xdot, from s = 0, until the squared 2-norm of the change
 * of the states' tangents falls below r times its value after the first pass (with the
 * same limits and control function). A Newton iteration (phi_z = 0 at its fixed point)
 * takes two passes. The primal state afterwards is the one the loop ended in.
 *
 * The state is doubles or floats. The step's first parameter is the iteration counter
 * (int64_t, or a pointer to one as Fortran passes it); markers' values may also be
 * passed by reference.
 *
 * A loop may instead be marked from inside, as Fortran's fixed-point directive does:
 *
 *   while (...) {
 *     __enzyme_set_fixed_point(reduction, max_iters, control, z, bytes, ...);
 *     ...
 *   }
 *
 * (a negative reduction or max_iters, or a null control, for the defaults; all computed
 * before the loop). irgrad outlines one trip around the loop as the step; the loop needs
 * one latch and one exit, from its header or its latch, and the adjoint iterations run
 * its body even where its own test would stop it, as at the converged state. Values the
 * loop carries and the local variables it writes are part of the snapshot.
 */
#ifndef ENZYME_FIXED_POINT_H
#define ENZYME_FIXED_POINT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

extern int enzyme_fp_state;
extern int enzyme_fp_reduction;
extern int enzyme_fp_max_iters;
extern int enzyme_fp_control;
extern int enzyme_checkpoint_region;

void __enzyme_fixed_point(void *step, ...);
void __enzyme_set_fixed_point(double reduction, int64_t max_iters, void *control, ...);

#ifdef __cplusplus
}
#endif

#endif /* ENZYME_FIXED_POINT_H */
