"""Enzyme's in-code hints, which are calls the user's code makes and AD interprets.

* ``__enzyme_iter(n, k)`` (integers): ``n`` in the primal program, ``n + k`` in a
  derivative of the function that contains it, ``n + 2k`` in a derivative of that
  derivative, and so on: a truncated series (``for (i = 0; i <= __enzyme_iter(12, 1);
  i++) ...``) gains one term per order of differentiation, so a 4th derivative of a
  Taylor polynomial is as accurate as the polynomial. Each synthesized derivative adds
  ``k`` to the first argument of the ``__enzyme_iter`` calls its body inherits
  (:func:`advance_iterations`, the context's ``finish`` hook); when AD is done every call
  becomes its first argument.
* ``__enzyme_ignore_derivatives(x)``: ``x``, with a zero derivative (Enzyme's "stop
  gradient"). The activity analysis treats the call as inactive
  (:mod:`irgrad.analysis.known_functions`); afterwards it becomes ``x``.
* ``__enzyme_double(p, [bytes])``, ``__enzyme_float``, ``__enzyme_integer``,
  ``__enzyme_pointer``: declarations of what the memory at ``p`` holds, for type
  analysis. They do nothing at run time; afterwards they are removed.

All are matched by name prefix (C++ manglings too), like the entry points. A hint with the
wrong arguments is a located error.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.api.entry_calls import call_error
from irgrad.ad.core.context import DerivativeContext
from irgrad.analysis.known_functions import enzyme_hint

TYPE_HINTS = ("__enzyme_double", "__enzyme_float", "__enzyme_integer", "__enzyme_pointer")


def _hint_calls(fn: ir.Function, hint: str | None = None) -> list[tuple[ir.CallBase, str]]:
    out: list[tuple[ir.CallBase, str]] = []
    for inst in fn.instructions():
        if isinstance(inst, ir.CallBase) and inst.called_function is not None:
            h = enzyme_hint(inst.called_function.name)
            if h is not None and (hint is None or h == hint):
                out.append((inst, h))
    return out


def check_hints(module: ir.Module) -> None:
    """Every hint call has the arguments Enzyme documents (before AD)."""
    for fn in module.functions:
        if fn.is_declaration:
            continue
        for call, hint in _hint_calls(fn):
            _check(call, hint)


def _check(call: ir.CallBase, hint: str) -> None:
    args = list(call.args)
    if hint == "__enzyme_iter":
        if len(args) != 2 or not all(a.type.is_integer for a in args) or \
                args[0].type != args[1].type:
            raise call_error(call, "__enzyme_iter takes two integers of the same type (the "
                             "count in the primal program, the increment per derivative "
                             "order)")
        if call.type != args[0].type:
            raise call_error(call, f"__enzyme_iter returns its first argument's type "
                             f"({args[0].type}), not {call.type}")
    elif hint == "__enzyme_ignore_derivatives":
        if len(args) != 1 or (not call.type.is_void and call.type != args[0].type):
            raise call_error(call, "__enzyme_ignore_derivatives takes one value and returns "
                             "it (with a zero derivative)")
    else:
        if not 1 <= len(args) <= 2 or not args[0].type.is_pointer or (
                len(args) == 2 and not isinstance(args[1], ir.ConstantInt)):
            raise call_error(call, f"{hint} takes a pointer and, optionally, a constant "
                             "size in bytes")


def advance_iterations(ctx: DerivativeContext, fn: ir.Function) -> None:
    """``finish`` hook: a synthesized derivative's ``__enzyme_iter(n, k)`` -> ``(n + k, k)``."""
    for call, _ in _hint_calls(fn, "__enzyme_iter"):
        b = ir.IRBuilder(position=call)
        count, step = call.args[0], call.args[1]
        call.set_arg(0, b.add(count, step, name="iter.next"))


def resolve_hints(module: ir.Module) -> None:
    """After AD: iterations and ignored derivatives become their first argument, type
    hints disappear, and so do the hint declarations."""
    for fn in module.functions:
        if fn.is_declaration:
            continue
        for call, hint in _hint_calls(fn):
            if hint in TYPE_HINTS or call.type.is_void:
                if not call.type.is_void and call.uses:
                    call.replace_all_uses_with(ir.PoisonValue(call.type))
            else:
                call.replace_all_uses_with(call.args[0])
            call.erase_from_parent()
    for fn in list(module.functions):
        if fn.is_declaration and not fn.uses and enzyme_hint(fn.name) is not None:
            module.remove_function(fn)
