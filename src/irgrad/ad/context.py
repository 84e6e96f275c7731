"""The derivative cache: one synthesized function per :class:`FnConfig`.

Every derivative request (a user's ``__enzyme_*`` call, or a call inside a function being
differentiated) goes through :meth:`DerivativeContext.get_or_create`, so each derivative is
synthesized once per module. For recursive functions the synthesizer registers its
(still empty) function with :meth:`DerivativeContext.register` before building the body;
a nested request for the same config then finds it in the cache.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgrad.ad.config import DerivativeMode, FnConfig
from irgrad.errors import DifferentiationError

if TYPE_CHECKING:
    from irgrad.ir import Function, Module


class DerivativeContext:
    """Per-module state of the AD engine: the module and the derivative cache."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.cache: dict[FnConfig, Function] = {}
        self.in_progress: set[FnConfig] = set()

    def register(self, config: FnConfig, fn: Function) -> None:
        """Record ``fn`` as the derivative for ``config`` before its body exists."""
        self.cache[config] = fn

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
        try:
            if config.mode is DerivativeMode.FORWARD:
                from irgrad.ad.forward import create_forward_diff

                fn = create_forward_diff(self, config)
            elif config.mode is DerivativeMode.REVERSE_COMBINED:
                from irgrad.ad.reverse import create_primal_and_gradient

                fn = create_primal_and_gradient(self, config)
            elif config.mode in (DerivativeMode.REVERSE_PRIMAL, DerivativeMode.REVERSE_GRADIENT):
                from irgrad.ad.augmented import create_augmented_pair

                fn = create_augmented_pair(self, config)
            else:
                raise DifferentiationError(
                    f"derivative mode {config.mode.value} is not supported yet "
                    f"(differentiating {config.function.name})"
                )
        finally:
            self.in_progress.discard(config)
        self.cache[config] = fn
        return fn
