"""Function attributes of synthesized functions: what they share with the function they
derive from, and the target every function of the module is compiled for.

A derivative runs in place of its primal, on the same machine, so it is compiled the way
the user asked the primal to be: ``"target-cpu"``, ``"target-features"`` and
``"tune-cpu"`` (``-march``/``-mtune``), ``"frame-pointer"`` (profilers' stacks),
``uwtable``, stack protection and probing, ``"denormal-fp-math"``, ``minsize``/``optsize``
and the sanitizer attributes. Without them the backend compiles a derivative for the
*build host* (llvmlite's target machine): a binary built on an AVX-512 machine without
``-march`` would carry AVX-512 code in its derivatives only, and stop with an illegal
instruction on an older CPU, while its primal runs there. Enzyme's derivatives keep the
original's attributes the same way (it clones the function with them).

What a derivative does not share is what describes the primal's *behaviour*: its memory
effects (it writes shadows and tapes), ``nofree``/``nosync``/``willreturn``/``norecurse``
(it frees tapes, calls other derivatives), ``speculatable``, allocator attributes (a
derivative of an allocator is not one), inlining directives, ``optnone``, and the vector
widths its own signature needs (``"min-legal-vector-width"``).

Helpers irgrad makes that derive from no user function (tape runtime, copy loops,
dispatchers, wrappers) get the module's target attributes
(:func:`stamp_target_attributes`): the ones most of the module's own definitions carry.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from irgrad import ir

# attributes that describe what the primal does, not how it is compiled
_BEHAVIOUR = (
    "noinline", "optnone", "alwaysinline", "returns_twice", "naked", "noreturn",
    "memory(", "readnone", "readonly", "writeonly", "argmemonly", "inaccessiblememonly",
    "willreturn", "nosync", "nofree", "norecurse", "speculatable", "nocallback",
    "allocsize(", "allockind(", '"alloc-family"', '"alloc-variant-zeroed"',
    "presplitcoroutine", "coro_",
    # the vector widths the primal's own signature and calls need: a derivative's
    # signature differs (shadows, vector-mode lanes), and without the attribute every
    # width stays legal, as for irgrad's helpers, so callers and callees agree on how a
    # vector argument is passed
    '"min-legal-vector-width"',
)
# how the user asked the module to be compiled: the machine (-march, -mtune), frame
# pointers, unwind tables, stack probing and protection, denormal handling
TARGET_KEYS = ('"target-cpu"', '"target-features"', '"tune-cpu"')
COMPILE_KEYS = (*TARGET_KEYS, '"frame-pointer"', "uwtable", '"probe-stack"',
                '"stack-protector-buffer-size"', '"denormal-fp-math"',
                '"denormal-fp-math-f32"')


def attribute_key(attr: str) -> str:
    """The name an attribute is known by: ``"a"`` of ``"a"="b"``, ``memory`` of
    ``memory(read)``, ``align`` of ``align 8``."""
    if attr.startswith('"'):
        return attr[: attr.index('"', 1) + 1]
    for sep in ("(", " ", "="):
        k = attr.find(sep)
        if k > 0:
            return attr[:k]
    return attr


def inherited_attributes(fn: ir.Function) -> list[str]:
    """The function attributes of ``fn`` that a function derived from it shares."""
    return [a for a in fn.attribute_texts() if not a.startswith(_BEHAVIOUR)]


def add_attributes(fn: ir.Function, attrs: Iterable[str]) -> None:
    """Give ``fn`` each of ``attrs`` whose name it does not have yet (its own win)."""
    texts = fn.attribute_texts()
    have = {attribute_key(a) for a in texts}
    extra = [a for a in attrs if attribute_key(a) not in have]
    if extra:
        fn.fn_attrs = [*texts, *extra]


def inherit_attributes(derived: ir.Function, orig: ir.Function) -> None:
    """Compile ``derived`` the way ``orig`` is compiled (see the module docstring)."""
    add_attributes(derived, inherited_attributes(orig))


def _has_target(fn: ir.Function) -> bool:
    return any(attribute_key(a) in TARGET_KEYS for a in fn.attribute_texts())


def module_settings(functions: Iterable[ir.Function]) -> tuple[str, ...]:
    """The compile settings (``COMPILE_KEYS``) most of ``functions``' definitions that
    name a target carry; empty when none names one (IR from a front end that leaves the
    target to the code generator, as numba does)."""
    seen = Counter(tuple(a for a in f.attribute_texts() if attribute_key(a) in COMPILE_KEYS)
                   for f in functions if not f.is_declaration and _has_target(f))
    return seen.most_common(1)[0][0] if seen else ()


def stamp_target_attributes(module: ir.Module, before: set[str]) -> None:
    """Give every definition made since (not named in ``before``) that names no target
    the compile settings of the module's own definitions (:func:`module_settings`)."""
    settings = module_settings(f for f in module.functions if f.name in before)
    if not settings:
        return
    for f in module.functions:
        if f.name not in before and not f.is_declaration and not _has_target(f):
            add_attributes(f, settings)
