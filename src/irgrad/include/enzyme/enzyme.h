/*
 * enzyme/enzyme.h -- the user interface of irgrad, compatible with Enzyme's C API.
 *
 * Ask for a derivative by calling one of the __enzyme_* functions below with the
 * function to differentiate (cast to void *) followed by its arguments, each optionally
 * preceded by a marker that says how it takes part:
 *
 *   enzyme_dup x, dx        x and its shadow dx (derivatives are ADDED into *dx)
 *   enzyme_dupnoneed x, dx  like enzyme_dup, but the primal value need not be computed
 *   enzyme_out x            an active scalar: reverse mode returns its derivative
 *   enzyme_const x          not differentiated
 *   enzyme_width, N         (first) vector mode: N tangents / shadows side by side
 *   enzyme_primal_return    also return the primal result
 *   enzyme_tape, tape       (split mode) the tape from __enzyme_augmentfwd
 *   enzyme_allocated, N     (split mode) the tape size in bytes
 *   enzyme_nofree           (split mode) do not free the tape (not supported yet)
 *
 * Without a marker, pointers are duplicated, floating-point scalars are active and
 * integers are constant. The markers are never defined: irgrad removes every reference
 * to them, so a program links without defining them.
 *
 * Reverse mode returns the derivatives of the active scalar arguments in order: as a
 * double when there is one (declare the call as returning double), otherwise as a struct
 * of them (declare your own prototype with a struct return type; irgrad matches the
 * entry points by name prefix, so e.g. `Grad2 __enzyme_autodiff2(void *, ...);` works).
 *
 * Define IRGRAD_ENZYME_NO_PROTOTYPES before including this header to get only the
 * markers (when you declare the entry points with your own return types).
 */
#ifndef IRGRAD_ENZYME_ENZYME_H
#define IRGRAD_ENZYME_ENZYME_H

#ifdef __cplusplus
extern "C" {
#endif

/* argument markers: declared, never defined */
extern int enzyme_dup;
extern int enzyme_dupv;
extern int enzyme_dupnoneed;
extern int enzyme_dupnoneedv;
extern int enzyme_out;
extern int enzyme_const;
extern int enzyme_width;
extern int enzyme_vector;
extern int enzyme_buffer;
extern int enzyme_primal_return;
extern int enzyme_noret;
extern int enzyme_tape;
extern int enzyme_allocated;
extern int enzyme_nofree;
extern int enzyme_scalar;

/* Enzyme's attributes: __attribute__((enzyme_inactive)) on a function or a global (no
   derivatives), __attribute__((enzyme_function_like("log1p"))) on a function (it has the
   derivative of log1p). Clang does not know them, so they are spelled as the annotations
   irgrad reads (irgrad cc and irgrad.compile predefine the same macros). Without this
   header, write __attribute__((annotate("enzyme_inactive"))),
   __attribute__((annotate("enzyme_function_like=log1p"))) and, for enzyme_nofree (also a
   marker's name, so never a macro), __attribute__((annotate("enzyme_nofree"))). */
#ifndef enzyme_inactive
#define enzyme_inactive annotate("enzyme_inactive")
#endif
#ifndef enzyme_function_like
#define enzyme_function_like(name) annotate("enzyme_function_like=" name)
#endif

#ifndef IRGRAD_ENZYME_NO_PROTOTYPES

/* reverse mode (combined augmented forward + reverse pass) */
double __enzyme_autodiff(void *fn, ...);
void __enzyme_autodiff_void(void *fn, ...);
void *__enzyme_autodiff_ptr(void *fn, ...);
float __enzyme_autodiff_float(void *fn, ...);

/* forward mode: returns the tangent of the result */
double __enzyme_fwddiff(void *fn, ...);
void __enzyme_fwddiff_void(void *fn, ...);
void *__enzyme_fwddiff_ptr(void *fn, ...);
float __enzyme_fwddiff_float(void *fn, ...);

/* split reverse mode:
     void *tape = __enzyme_augmentfwd((void *)f, args...);
       runs f (its effects on memory happen, shadows are filled) and returns the tape;
       declare your own prototype returning struct { void *tape; T result; } (any
       __enzyme_augmentfwd* name) to also get f's result;
     double d = __enzyme_reverse((void *)f, args..., d_result, enzyme_tape, tape);
       adds the adjoints into the shadows, returns the adjoints of the active scalars
       like __enzyme_autodiff and frees the tape. d_result (the adjoint of f's
       floating-point result) follows the arguments (0 when omitted); enzyme_tape, tape
       may come anywhere after f.
   Both calls must use the same markers. The inputs may be overwritten between them.
   enzyme_allocated, N is accepted and ignored (the tape is a heap pointer). */
void *__enzyme_augmentfwd(void *fn, ...);
double __enzyme_reverse(void *fn, ...);
void __enzyme_reverse_void(void *fn, ...);

#endif /* IRGRAD_ENZYME_NO_PROTOTYPES */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IRGRAD_ENZYME_ENZYME_H */
