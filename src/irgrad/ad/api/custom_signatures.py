"""Checking the user's custom derivative functions against Enzyme's calling convention
(:mod:`irgrad.ad.core.custom_derivatives`): arity, parameter types, return values.

Every mismatch is an error that says which function of which registration is wrong, what
it takes and what it should take -- a custom derivative called with the wrong arguments
would otherwise read garbage.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from irgrad import ir
from irgrad.ad.core.custom_derivatives import (
    AugmentedLayout,
    CustomForward,
    CustomFunction,
    CustomGradient,
    Param,
    Role,
    active_scalars,
    argument_params,
    describe_params,
    param_kind,
)

# raises the registration's located error with the given message
Fail = Callable[[str], Exception]


def _sret_type(fn: ir.Function) -> ir.Type | None:
    """The type a function returns through an ``sret`` first parameter, or None."""
    if not fn.args:
        return None
    for attr in fn.args[0].attrs:
        if attr.startswith("sret(") and attr.endswith(")"):
            text = attr[5:-1].strip()
            module = fn.parent
            if text.startswith("%") and module is not None:
                found = module.struct_types.get(text[1:].strip('"'))
                if found is not None:
                    return found
            return ir.parse_type(text)
    return None


def _compatible(given: ir.Type, expected: ir.Type) -> bool:
    return given == expected or (given.is_pointer and expected.is_pointer)


def _signature_text(fn: ir.Function, params: Sequence[ir.Type]) -> str:
    return f"{fn.return_type} {fn.name}(" + ", ".join(str(t) for t in params) + ")"


def match_params(
    primal: ir.Function, custom: ir.Function, trailing: Sequence[Param], *,
    float_shadows: bool, what: str, fail: Fail,
) -> CustomFunction:
    """The parameters of ``custom`` read against the convention: the arguments of
    ``primal`` (integers once or twice, whichever the arity says), then ``trailing``."""
    if custom.function_type.var_arg:
        raise fail(f"the {what} {custom.name} must not be variadic")
    sret = _sret_type(custom) if _sret_type(primal) is None else None
    given = list(custom.function_type.params[1 if sret is not None else 0:])
    candidates: list[list[Param]] = []
    for copies in (False, True):
        c = [*argument_params(primal, float_shadows=float_shadows, int_copies=copies),
             *trailing]
        if c not in candidates:
            candidates.append(c)
    for cand in candidates:
        if len(cand) != len(given):
            continue
        for k, (p, t) in enumerate(zip(cand, given, strict=True)):
            if not _compatible(t, p.type):
                raise fail(
                    f"parameter {k + 1} of the {what} {custom.name} has type {t}, but it "
                    f"receives the {p.describe(primal)}; expected parameters "
                    f"{describe_params(primal, cand)}")
        return CustomFunction(custom, tuple(cand), sret)
    expected = " or ".join(describe_params(primal, c) for c in candidates)
    raise fail(
        f"the {what} {custom.name} takes {len(given)} parameter(s) "
        f"({_signature_text(custom, given)}), but is called with {expected}")


def _pair(t: ir.Type) -> tuple[ir.Type, ir.Type] | None:
    """The two element types of a 2-element struct, array or vector."""
    if t.is_struct and len(t.elements) == 2:  # type: ignore[attr-defined]
        a, b = t.elements  # type: ignore[attr-defined]
        return a, b
    if isinstance(t, ir.ArrayType | ir.VectorType) and t.count == 2:
        return t.element, t.element
    return None


def augmented_layout(primal: ir.Function, aug: CustomFunction, *, what: str,
                     fail: Fail) -> tuple[AugmentedLayout, ir.Type | None]:
    """How a custom augmented forward pass returns its tape and the result, and the type
    of the tape (None: no tape)."""
    rt = aug.return_type
    fn_rt = primal.return_type
    name = aug.function.name
    if rt.is_void:  # (with a result: nothing to do; the function itself gives it)
        return (AugmentedLayout.NOTHING if fn_rt.is_void else AugmentedLayout.PRIMAL), None
    if fn_rt.is_void:
        return AugmentedLayout.TAPE, rt
    if rt == fn_rt:
        return AugmentedLayout.RESULT, None
    if rt.is_struct and len(rt.elements) == 3:  # type: ignore[attr-defined]
        raise fail(f"the {what} {name} returns {{tape, result, shadow of the result}}: "
                   "shadow return values are not supported yet")
    pair = _pair(rt)
    if pair is not None and pair[1] == fn_rt:
        if fn_rt.is_pointer and pair[0].is_pointer:
            raise fail(f"the {what} {name} returns {{result, shadow of the result}}: shadow "
                       "return values are not supported yet")
        return AugmentedLayout.TAPE_RESULT, pair[0]
    raise fail(f"the {what} {name} returns {rt}; for {primal.name}, which returns {fn_rt}, "
               f"it must return {{tape, {fn_rt}}} (or {fn_rt} alone, without a tape)")


def _float_return(fn: ir.Function) -> ir.Type | None:
    rt = fn.return_type
    return rt if param_kind(rt) == "float" else None


def check_gradient(primal: ir.Function, aug_fn: ir.Function, rev_fn: ir.Function,
                   source: str, fail: Fail) -> CustomGradient:
    """``{fn, augmented_forward, reverse}``."""
    aug = match_params(primal, aug_fn, (), float_shadows=False,
                       what="augmented forward pass", fail=fail)
    layout, tape = augmented_layout(primal, aug, what="augmented forward pass", fail=fail)
    trailing: list[Param] = []
    dret = _float_return(primal)
    if dret is not None:
        trailing.append(Param(Role.DRET, -1, dret))
    if tape is not None:
        trailing.append(Param(Role.TAPE, -1, tape))
    rev = match_params(primal, rev_fn, trailing, float_shadows=False, what="reverse pass",
                       fail=fail)
    _check_reverse_return(primal, rev, fail)
    return CustomGradient(primal, aug, rev, layout, tape, source)


def _check_reverse_return(primal: ir.Function, rev: CustomFunction, fail: Fail) -> None:
    want = [primal.args[k].type for k in active_scalars(primal)]
    rt = rev.return_type
    got = list(rt.elements) if rt.is_struct else ([] if rt.is_void else [rt])  # type: ignore[attr-defined]
    if (got == want and not (len(want) > 1 and not rt.is_struct)) or (
            len(want) == 1 and rt == want[0]):
        return
    expected = ("void" if not want else str(want[0]) if len(want) == 1
                else "{" + ", ".join(str(t) for t in want) + "}")
    raise fail(
        f"the reverse pass {rev.function.name} returns {rt}, but it must return the "
        f"derivatives of the floating-point arguments of {primal.name} in order: {expected}")


def check_forward(primal: ir.Function, fwd_fn: ir.Function, source: str,
                  fail: Fail) -> CustomForward:
    """``{fn, forward}``: returns ``{result, tangent}`` (nothing for a void function)."""
    fwd = match_params(primal, fwd_fn, (), float_shadows=True, what="forward derivative",
                       fail=fail)
    _check_forward_return(primal, fwd, allow_tangent=False, fail=fail)
    return CustomForward(primal, fwd, source)


def _check_forward_return(primal: ir.Function, fwd: CustomFunction, *, allow_tangent: bool,
                          fail: Fail) -> None:
    rt, fn_rt = fwd.return_type, primal.return_type
    if fn_rt.is_void:
        if rt.is_void:
            return
        raise fail(f"the forward derivative {fwd.function.name} returns {rt}, but "
                   f"{primal.name} returns nothing: it must return void")
    if (allow_tangent and rt == fn_rt) or _pair(rt) == (fn_rt, fn_rt):
        return
    raise fail(f"the forward derivative {fwd.function.name} returns {rt}; it must return "
               f"{{{fn_rt}, {fn_rt}}} (the result of {primal.name} and its tangent)")


def check_split_forward(primal: ir.Function, aug_fn: ir.Function, fwd_fn: ir.Function,
                        source: str, fail: Fail) -> CustomForward:
    """``{fn, augmented_forward, forward}``: the forward derivative also takes the tape."""
    aug = match_params(primal, aug_fn, (), float_shadows=True,
                       what="augmented forward pass", fail=fail)
    layout, tape = augmented_layout(primal, aug, what="augmented forward pass", fail=fail)
    trailing = [Param(Role.TAPE, -1, tape)] if tape is not None else []
    fwd = match_params(primal, fwd_fn, trailing, float_shadows=True,
                       what="split forward derivative", fail=fail)
    has_result = layout in (AugmentedLayout.RESULT, AugmentedLayout.TAPE_RESULT)
    _check_forward_return(primal, fwd, allow_tangent=has_result, fail=fail)
    return CustomForward(primal, fwd, source, aug, layout, tape)


__all__ = ["check_forward", "check_gradient", "check_split_forward", "match_params"]
