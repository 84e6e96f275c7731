"""The derivative cache: one synthesized function per :class:`FnConfig`.

Every derivative request (a user's ``__enzyme_*`` call, or a call inside a function being
differentiated) goes through :meth:`DerivativeContext.get_or_create`, so each derivative is
synthesized once per module. For recursive functions the synthesizer registers its
(still empty) function with :meth:`DerivativeContext.register` before building the body;
a nested request for the same config then finds it in the cache.

A function with ``invoke`` instructions (C++) is differentiated through a private copy
without exception edges (:mod:`irgrad.ad.core.invoke`); the derivative is cached under the
original function's config, so calls of the original find it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from irgrad.ad.core.config import DerivativeMode, FnConfig
from irgrad.ad.core.invoke import has_invokes, nounwind_copy
from irgrad.ad.core.tape_runtime import without_tape_cache
from irgrad.analysis.type_analysis import TypeAnalysis, TypeResults
from irgrad.errors import DifferentiationError

if TYPE_CHECKING:
    from irgrad.ir import Function, Module

Synthesizer = Callable[["DerivativeContext", FnConfig], "Function"]


class DerivativeContext:
    """Per-module state of the AD engine: the module and the derivative cache."""

    def __init__(self, module: Module,
                 synthesizers: Mapping[DerivativeMode, Synthesizer]) -> None:
        self.module = module
        self.synthesizers = dict(synthesizers)
        self.cache: dict[FnConfig, Function] = {}
        self.in_progress: set[FnConfig] = set()
        self.originals: dict[Function, Function] = {}  # nounwind copy -> user's function
        # analyses the synthesizers memoize per module (keyed by their own keys)
        self.analyses: dict[object, object] = {}

    def types(self, fn: Function) -> TypeResults:
        """Type analysis of ``fn`` (one analysis per module, shared by every synthesis:
        what a caller's call sites said about a callee's arguments reaches the callee)."""
        ta = self.analyses.get(TypeAnalysis)
        if not isinstance(ta, TypeAnalysis):
            ta = self.analyses[TypeAnalysis] = TypeAnalysis(self.module)
        return ta.function_types(fn, like=self.originals.get(fn))

    def register(self, config: FnConfig, fn: Function) -> None:
        """Record ``fn`` as the derivative for ``config`` before its body exists."""
        self.cache[config] = fn
        orig = self.originals.get(config.function)
        if orig is not None:
            self.cache[replace(config, function=orig)] = fn

    def get_or_create(self, config: FnConfig) -> Function:
        """The derivative function for ``config``, synthesizing it on first request."""
        cached = self.cache.get(config)
        if cached is not None:
            return cached
        if config.function.is_declaration:
            raise DifferentiationError(
                f"cannot differentiate {config.function.name}: it has no definition in this "
                "module (only a declaration)"
            )
        self.in_progress.add(config)
        copy = None
        if has_invokes(config.function):
            copy = nounwind_copy(config.function)
            self.originals[copy] = config.function
        try:
            fn = self._synthesize(replace(config, function=copy) if copy else config)
        except BaseException:
            if copy is not None:
                for key in [k for k in self.cache if k.function is config.function]:
                    if self.cache[key].parent is None:  # removed by the failed synthesis
                        del self.cache[key]
            raise
        finally:
            self.in_progress.discard(config)
            if copy is not None:
                self._release(copy)
        self.cache[config] = fn
        return fn

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
        without_tape_cache(config.function)
        synthesize = self.synthesizers.get(config.mode)
        if synthesize is not None:
            return synthesize(self, config)
        raise DifferentiationError(
            f"derivative mode {config.mode.value} is not supported yet "
            f"(differentiating {config.function.name})"
        )
