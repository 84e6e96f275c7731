"""Automatic differentiation of :mod:`irgrad.ir` modules, in layers (each imports only
the ones before it):

* :mod:`irgrad.ad.core` -- what a derivative request is (modes, activities, the
  configuration), the derivative cache, diagnostics, the tape runtime;
* :mod:`irgrad.ad.rules` -- the derivative rules as data, and their emitter;
* :mod:`irgrad.ad.forward` -- forward and vector forward mode;
* :mod:`irgrad.ad.reverse` -- reverse mode: combined, augmented primal and split;
* :mod:`irgrad.ad.api` -- the lowering of the user's ``__enzyme_*`` calls.

See docs/internals/architecture.md.
"""
