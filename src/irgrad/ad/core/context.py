"""The derivative cache: one synthesized function per :class:`FnConfig`.

Every derivative request (a user's ``__enzyme_*`` call, or a call inside a function being
differentiated) goes through :meth:`DerivativeContext.get_or_create`, so each derivative is
synthesized once per module. For recursive functions the synthesizer registers its
(still empty) function with :meth:`DerivativeContext.register` before building the body;
a nested request for the same config then finds it in the cache.

A function with ``invoke`` instructions (C++) is differentiated through a private copy
without exception edges (:mod:`irgrad.ad.core.invoke`); the derivative is cached under the
original function's config, so calls of the original find it.

The context also holds what the module declares about its own functions (Enzyme's
registrations): a function with a custom derivative is never differentiated from its
body -- its derivatives are wrappers of the user's functions
(:mod:`irgrad.ad.core.custom_wrappers`) -- and the module's entries of the table of known
functions (:class:`ModuleFunctions`) are in effect while anything is synthesized.

A declared BLAS/LAPACK routine (:mod:`irgrad.analysis.blas`) is answered like a custom
derivative, by the ``library`` hook (:mod:`irgrad.ad.api.blas_derivatives`), which
synthesizes its derivatives from the rule tables.

Two more hooks come from the API layer (:class:`ContextHooks`): ``prepare(ctx, fn)`` runs
before the first derivative of ``fn`` is synthesized (it lowers the ``__enzyme_*`` calls
inside ``fn`` and the functions it calls, so nested AD sees derivatives, not requests),
and ``finish(ctx, fn)`` runs once on each synthesized function when its body is complete.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from irgrad.ad.core.config import DerivativeMode, FnConfig
from irgrad.ad.core.custom_derivatives import CustomDerivatives
from irgrad.ad.core.custom_wrappers import synthesize_custom
from irgrad.ad.core.deferred_frees import without_deferred_frees
from irgrad.ad.core.derived_attributes import inherit_attributes
from irgrad.ad.core.private_copy import private_copy
from irgrad.ad.core.tape_runtime import without_tape_cache
from irgrad.analysis.blas import blas_function
from irgrad.analysis.fortran_runtime import fortran_routine
from irgrad.analysis.known_functions import (
    NO_MODULE_FUNCTIONS,
    ModuleFunctions,
    module_functions,
)
from irgrad.analysis.type_analysis import TypeAnalysis, TypeResults
from irgrad.errors import DifferentiationError

if TYPE_CHECKING:
    from irgrad.ir import Function, Module

Synthesizer = Callable[["DerivativeContext", FnConfig], "Function"]
Hook = Callable[["DerivativeContext", "Function"], None]


@dataclass(frozen=True)
class ContextHooks:
    """What the API layer does around a synthesis (see the module docstring)."""

    prepare: Hook | None = None
    finish: Hook | None = None
    # derivatives of known library routines (BLAS/LAPACK) from their rule tables: the
    # derivative for the config, or None when the function has no such rule
    library: Callable[[DerivativeContext, FnConfig], Function | None] | None = None


class DerivativeContext:
    """Per-module state of the AD engine: the module and the derivative cache."""

    def __init__(self, module: Module,
                 synthesizers: Mapping[DerivativeMode, Synthesizer],
                 hooks: ContextHooks | None = None, *,
                 custom: CustomDerivatives | None = None,
                 known: ModuleFunctions = NO_MODULE_FUNCTIONS) -> None:
        self.module = module
        self.synthesizers = dict(synthesizers)
        self.hooks = hooks or ContextHooks()
        self.custom = custom if custom is not None else CustomDerivatives()
        self.known = known
        self.created: list[Function] = []  # every registered derivative, in order
        self.configs: dict[Function, FnConfig] = {}  # derivative -> what it computes
        self._finished: set[Function] = set()
        self.cache: dict[FnConfig, Function] = {}
        self.in_progress: set[FnConfig] = set()
        self.stack: list[Function] = []  # the functions being differentiated, innermost last
        self.originals: dict[Function, Function] = {}  # nounwind copy -> user's function
        # analyses the synthesizers memoize per module (keyed by their own keys)
        self.analyses: dict[object, object] = {}
        # functions the API layer made for a construct of Enzyme's (a fixed-point loop):
        # their derivatives come from the synthesizer registered here, never from their
        # body, and their calls always take the augmented path (like a library rule)
        self.constructs: dict[Function, Synthesizer] = {}

    def types(self, fn: Function) -> TypeResults:
        """Type analysis of ``fn`` (one analysis per module, shared by every synthesis:
        what a caller's call sites said about a callee's arguments reaches the callee)."""
        ta = self.analyses.get(TypeAnalysis)
        if not isinstance(ta, TypeAnalysis):
            ta = self.analyses[TypeAnalysis] = TypeAnalysis(self.module)
        return ta.function_types(fn, like=self.originals.get(fn))

    def register(self, config: FnConfig, fn: Function) -> None:
        """Record ``fn`` as the derivative for ``config`` before its body exists, compiled
        the way the function it derives from is (:mod:`irgrad.ad.core.derived_attributes`)."""
        inherit_attributes(fn, config.function)
        self.cache[config] = fn
        self.created.append(fn)
        self.configs[fn] = config
        orig = self.originals.get(config.function)
        if orig is not None:
            self.cache[replace(config, function=orig)] = fn
            self.configs[fn] = replace(config, function=orig)

    def get_or_create(self, config: FnConfig) -> Function:
        """The derivative function for ``config``, synthesizing it on first request."""
        cached = self.cache.get(config)
        if cached is not None:
            return cached
        with module_functions(self.known):
            construct = self.constructs.get(config.function)
            if construct is not None:
                made = construct(self, config)
                self.cache[config] = made
                return made
            custom = self.custom.for_mode(config.function, config.mode)
            if custom is not None:
                fn = synthesize_custom(self, config, custom)
                self.cache[config] = fn
                return fn
            if self.has_library_rule(config.function) and self.hooks.library is not None:
                made = self.hooks.library(self, config)
                if made is not None:
                    self.cache[config] = made
                    return made
            return self._differentiate(config)

    def has_derivative_without_body(self, fn: Function) -> bool:
        """Can ``fn`` be differentiated without its definition (a custom derivative or a
        library rule)?"""
        return self.custom.has(fn) or self.has_library_rule(fn)

    def has_library_rule(self, fn: Function | None) -> bool:
        """Is ``fn`` a declared library routine whose derivatives come from a rule table
        (BLAS/LAPACK, :mod:`irgrad.analysis.blas`; flang's runtime,
        :mod:`irgrad.analysis.fortran_runtime`), like a custom derivative: its calls
        always take the augmented path. A construct's function (:attr:`constructs`) counts
        as one."""
        if fn is not None and fn in self.constructs:
            return True
        return (fn is not None and fn.is_declaration and not self.custom.has(fn)
                and (blas_function(fn.name) is not None
                     or fortran_routine(fn.name) is not None))


    def _differentiate(self, config: FnConfig) -> Function:
        if config.function.is_declaration:
            raise DifferentiationError(
                f"cannot differentiate {config.function.name}: it has no definition in this "
                "module (only a declaration)"
            )
        if self.hooks.prepare is not None:
            self.hooks.prepare(self, config.function)
            cached = self.cache.get(config)  # a nested request may have made it meanwhile
            if cached is not None:
                return cached
        copy = private_copy(config.function)  # (before any state: it may raise)
        if copy is not None:
            self.originals[copy] = config.function
        first_new = len(self.created)
        self.in_progress.add(config)
        self.stack.append(config.function)
        try:
            fn = self._synthesize(replace(config, function=copy) if copy else config)
        except BaseException as exc:
            if isinstance(exc, DifferentiationError) and not hasattr(exc, "synthesis_stack"):
                # which derivatives were being made when it failed (innermost last)
                exc.synthesis_stack = list(self.stack)  # type: ignore[attr-defined]
            if copy is not None:
                for key in [k for k in self.cache if k.function is config.function]:
                    if self.cache[key].parent is None:  # removed by the failed synthesis
                        del self.cache[key]
            self._discard(first_new)
            raise
        finally:
            self.stack.pop()
            self.in_progress.discard(config)
            if copy is not None:
                self._release(copy)
        self.cache[config] = fn
        self._finish(first_new)
        return fn

    def _discard(self, first_new: int) -> None:
        """After a failed synthesis: forget the derivatives registered since ``first_new``
        (half made, or made for the one that failed), so that a caller that catches the
        error and goes on -- an indirect call's dispatcher, a function-pointer table --
        never gets one from the cache, and remove them from the module unless something
        made before still calls them."""
        made = self.created[first_new:]
        if not made:
            return
        gone = set(made)
        del self.created[first_new:]
        for key in [k for k, f in self.cache.items() if f in gone]:
            del self.cache[key]
        for fn in made:
            self.configs.pop(fn, None)
            self._finished.discard(fn)

        def inside(user: object) -> bool:
            block = getattr(user, "parent", None)
            return block is not None and getattr(block, "parent", None) in gone

        if any(not inside(u.user) for fn in made for u in fn.uses):
            return
        for fn in made:  # bodies first: they may call each other
            for bb in fn.blocks:
                for inst in bb.instructions:
                    inst.drop_all_references()
        for fn in made:
            if fn.parent is not None:
                self.module.remove_function(fn)

    def _finish(self, first_new: int) -> None:
        """Run the finish hook on the derivatives this synthesis created (bodies done)."""
        if self.hooks.finish is None:
            return
        for fn in self.created[first_new:]:
            if fn not in self._finished and fn.parent is not None:
                self._finished.add(fn)
                self.hooks.finish(self, fn)

    def _release(self, copy: Function) -> None:
        """Drop a nounwind copy once its derivatives exist (keep it, renamed, if the
        derivative still calls it)."""
        del self.originals[copy]
        for key in [k for k in self.cache if k.function is copy]:
            del self.cache[key]
        if copy.uses:
            copy.name = self.module.unique_name(copy.name + ".nounwind")
        else:
            self.module.remove_function(copy)

    def augmented_pair(self, config: FnConfig) -> tuple[Function, Function]:
        """The (augmented primal, reverse) pair for ``config`` (any mode), made once."""
        aug = self.get_or_create(replace(config, mode=DerivativeMode.REVERSE_PRIMAL))
        rev = self.cache[replace(config, mode=DerivativeMode.REVERSE_GRADIENT)]
        return aug, rev

    def _synthesize(self, config: FnConfig) -> Function:
        # a derivative being differentiated again: its tape code must be differentiable
        without_tape_cache(config.function, stable=config.mode is not DerivativeMode.FORWARD)
        without_deferred_frees(config.function)
        synthesize = self.synthesizers.get(config.mode)
        if synthesize is not None:
            return synthesize(self, config)
        raise DifferentiationError(
            f"derivative mode {config.mode.value} is not supported yet "
            f"(differentiating {config.function.name})"
        )
