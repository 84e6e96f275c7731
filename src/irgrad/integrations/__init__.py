"""Compiled C functions inside ML frameworks: ``torch``, ``jax``, ``tensorflow``.

Each framework module wraps a :class:`~irgrad.integrations.spec.FunctionSpec` (which C
arguments are inputs, outputs, sizes and constants; shared by all three) around the
NumPy-level calls of :mod:`~irgrad.integrations.ops`. Nothing here imports a framework:
``irgrad.integrations.torch`` imports torch, ``.jax`` imports jax, ``.tensorflow``
imports tensorflow, each only when it is imported itself.
"""

from __future__ import annotations

from irgrad.integrations.spec import FunctionSpec, make_spec, parse_signature

__all__ = ["FunctionSpec", "make_spec", "parse_signature"]
