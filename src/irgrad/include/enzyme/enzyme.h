/*
 * enzyme/enzyme.h -- the user interface of irgrad, compatible with Enzyme's C API.
 *
 * Ask for a derivative by calling one of the __enzyme_* functions below with the
 * function to differentiate (cast to void *) followed by its arguments, each optionally
 * preceded by a marker that says how it takes part:
 *
 *   enzyme_dup x, dx         x and its shadow dx (derivatives are ADDED into *dx)
 *   enzyme_dupnoneed x, dx   like enzyme_dup, but the primal value need not be computed
 *   enzyme_out x             an active scalar: reverse mode returns its derivative
 *   enzyme_const x           not differentiated
 *   enzyme_dupv, stride, x, dx      (vector mode) the N shadows in one buffer, lane k at
 *   enzyme_dupnoneedv, stride, ...  dx + k * stride bytes
 *   enzyme_byref, size, &x   the argument is read from memory (size: its bytes)
 *   enzyme_not_overwritten   (split mode) the memory the next argument points to is not
 *                            changed between the augmented forward and the reverse pass
 *   enzyme_interleave        the values come first (with their markers), the shadows
 *                            after this marker, in the same order
 * and anywhere in the call:
 *   enzyme_width, N          vector mode: N shadows / tangents side by side
 *   enzyme_primal_return     also return f's result (reverse: {f(x), d/dx...}; forward:
 *                            {f(x), tangent})
 *   enzyme_const_return      f's result is not differentiated (reverse: not seeded;
 *                            forward: no tangent)
 *   enzyme_active_return     (reverse) f's result is seeded (the default for floats)
 *   enzyme_dup_return        (forward) f's tangent is returned (the default)
 *   enzyme_noret             f's result is not wanted
 *   enzyme_tape, p           (split mode) the tape is kept at p
 *   enzyme_allocated, N      (split mode) p is an N-byte buffer that holds the tape
 *   enzyme_nofree            (split mode) the reverse pass keeps the tape (run it again)
 *
 * Without a marker, pointers are duplicated, floating-point scalars are active (forward
 * mode: followed by their tangent) and integers are constant. The markers are never
 * defined: irgrad removes every reference to them, so a program links without defining
 * them. A marker irgrad does not know (a misspelt one) is an error.
 *
 * Reverse mode returns the derivatives of the active scalar arguments in order: as a
 * double when there is one (declare the call as returning double), otherwise as a struct
 * of them (declare your own prototype with a struct return type; irgrad matches the
 * entry points by name prefix, so e.g. `Grad2 __enzyme_autodiff2(void *, ...);` works).
 *
 * C++: <enzyme/enzyme> has enzyme::autodiff (functions, lambdas, functors).
 *
 * Define IRGRAD_ENZYME_NO_PROTOTYPES before including this header to get only the
 * markers (when you declare the entry points with your own return types).
 */
#ifndef IRGRAD_ENZYME_ENZYME_H
#define IRGRAD_ENZYME_ENZYME_H

/* argument markers: declared, never defined (C++: with C++ linkage, as in Enzyme's
   headers, so that <enzyme/enzyme> and a program's own `extern int enzyme_dup;` agree;
   the symbol is the same in C and C++) */
extern int enzyme_dup;
extern int enzyme_dupv;
extern int enzyme_dupnoneed;
extern int enzyme_dupnoneedv;
extern int enzyme_out;
extern int enzyme_const;
extern int enzyme_byref;
extern int enzyme_not_overwritten;
extern int enzyme_interleave;
extern int enzyme_width;
extern int enzyme_primal_return;
extern int enzyme_const_return;
extern int enzyme_active_return;
extern int enzyme_dup_return;
extern int enzyme_noret;
extern int enzyme_tape;
extern int enzyme_allocated;
extern int enzyme_nofree;
/* __enzyme_batch */
extern int enzyme_scalar;
extern int enzyme_vector;
extern int enzyme_buffer;

#ifdef __cplusplus
extern "C" {
#endif

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
/* enzyme_inactive_noblock: inactive (Enzyme's hint that the call does not stop its
   caching decisions needs nothing more in irgrad) */
#ifndef enzyme_inactive_noblock
#define enzyme_inactive_noblock annotate("enzyme_inactive_noblock")
#endif
/* enzyme_shadow(G_d) on a global G: G_d (same type) is G's shadow, the user's to seed
   with tangents and to read adjoints from; irgrad never zeroes it */
#ifndef enzyme_shadow
#define enzyme_shadow(shadow) annotate("enzyme_shadow", &(shadow))
#endif

#ifndef IRGRAD_ENZYME_NO_PROTOTYPES

/* reverse mode (combined augmented forward + reverse pass); with enzyme_width, N: N
   reverse sweeps (one per lane of shadows), the active scalars' derivatives N times */
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
       declare your own prototype returning struct { void *tape; T result; } (or
       { T result; void *tape; }) to also get f's result;
     double d = __enzyme_reverse((void *)f, args..., d_result, tape);
       adds the adjoints into the shadows, returns the adjoints of the active scalars
       like __enzyme_autodiff and frees the tape (not with enzyme_nofree). d_result (the
       adjoint of f's floating-point result, 1.0 when omitted) and the tape follow the
       arguments.
   With enzyme_tape, p in both calls the tape is kept at p (a void *); with
   enzyme_allocated, N as well, p is N bytes that hold the tape itself, and
   __enzyme_augmentsize((void *)f, markers...) (one marker per argument, no values) gives
   the bytes needed. Both calls must use the same markers. The inputs may be overwritten
   between them. */
void *__enzyme_augmentfwd(void *fn, ...);
int __enzyme_augmentsize(void *fn, ...);
double __enzyme_reverse(void *fn, ...);
void __enzyme_reverse_void(void *fn, ...);

/* Not declared here (declare them with the types you use; matched by name prefix):
     R __enzyme_batch(void *fn, enzyme_width, N, ...)  N evaluations of fn: enzyme_vector
       x1..xN, enzyme_scalar x, enzyme_buffer, stride, p (lane k gets p + k*stride bytes);
       returns the N results (a struct or array of N values)
     T __enzyme_ignore_derivatives(T x)   x, with a zero derivative
     I __enzyme_iter(I n, I k)            n in the program, n + k in a derivative of the
                                          function, n + 2k in a second derivative...
     void __enzyme_double(void *p, size), __enzyme_float, __enzyme_integer,
       __enzyme_pointer                   what the memory at p holds (type analysis) */

#endif /* IRGRAD_ENZYME_NO_PROTOTYPES */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IRGRAD_ENZYME_ENZYME_H */
