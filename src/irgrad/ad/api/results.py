"""What an ``__enzyme_*`` call returns: the return value's activity, and the adaptation
of a derivative's result to the type the user declared for the call.

* Reverse mode returns the derivatives of the ``enzyme_out`` arguments in order (a double
  when the call is declared to return double and there is one, else a struct); with
  ``enzyme_primal_return`` the primal result comes first (``{f(x), df/dx...}``, Enzyme's
  order).
* Forward mode returns the tangent of the result (width N: N tangents); with
  ``enzyme_primal_return`` (or a call declared to return a struct with room for both)
  ``{f(x), tangent...}``.
* A struct result may come back through a ``sret`` pointer (C++ on some ABIs): it is
  stored there.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.api.entry_calls import ParsedCall, call_error
from irgrad.ad.core.config import DerivativeMode, DiffeType
from irgrad.ad.rules.emit import adapt_value


def return_activity(parsed: ParsedCall, call: ir.CallBase) -> DiffeType:
    """How the function's return value takes part (markers, else Enzyme's defaults)."""
    ret = parsed.function.return_type
    forward = parsed.mode is DerivativeMode.FORWARD
    marker = parsed.return_marker
    if marker is not None:
        if ret.is_void:
            raise call_error(call, f"{_marker_text(marker)}: {parsed.function.name} returns "
                             "void")
        if marker is DiffeType.OUT and (forward or not ret.is_fp_or_fp_vector):
            raise call_error(call, "enzyme_active_return is for a floating-point result in "
                             "reverse mode")
        if marker is DiffeType.DUP and not forward:
            if ret.is_fp_or_fp_vector:
                raise call_error(call, "enzyme_dup_return: in reverse mode a floating-point "
                                 "result is enzyme_active_return or enzyme_const_return")
            raise call_error(call, f"enzyme_dup_return: the shadow of the pointer "
                             f"{parsed.function.name} returns is not supported in reverse "
                             "mode (shadow return values)")
        if marker is DiffeType.DUP and not (ret.is_fp_or_fp_vector or ret.is_pointer):
            raise call_error(call, f"enzyme_dup_return: {parsed.function.name} returns {ret}, "
                             "which has no derivative")
        return marker
    if not ret.is_fp_or_fp_vector:
        return DiffeType.CONST
    if not forward:
        return DiffeType.OUT
    asks_nothing = call.type.is_void and parsed.sret is None
    if asks_nothing and not parsed.return_primal:
        return DiffeType.CONST
    return DiffeType.DUP


def _marker_text(marker: DiffeType) -> str:
    return {DiffeType.CONST: "enzyme_const_return", DiffeType.OUT: "enzyme_active_return",
            DiffeType.DUP: "enzyme_dup_return"}[marker]


def forward_wants_primal(parsed: ParsedCall, call: ir.CallBase) -> bool:
    """``{primal, tangent}`` asked for by the marker or by the call's declared struct."""
    if parsed.return_primal:
        return True
    if parsed.noret or parsed.return_marker is DiffeType.CONST:
        return False
    ret = parsed.function.return_type
    ty = parsed.sret_type if parsed.sret is not None else call.type
    if ty is None or not ret.is_fp_or_fp_vector:
        return False
    leaves = _leaf_count(ty)
    return leaves == 1 + parsed.width and parsed.width >= 1 and leaves > 1


def _leaf_count(ty: ir.Type) -> int:
    if isinstance(ty, ir.StructType | ir.IdentifiedStructType):
        return sum(_leaf_count(e) for e in ty.elements)
    if isinstance(ty, ir.ArrayType | ir.VectorType):
        return ty.count * _leaf_count(ty.element)
    return 1


def declared_result_type(parsed: ParsedCall, call: ir.CallBase) -> ir.Type | None:
    """The type the user declared for the call's result (through sret too); None/void
    when nothing is asked for."""
    target = parsed.sret_type if parsed.sret is not None else call.type
    if parsed.sret is not None and target is None:
        raise call_error(call, f"cannot read the struct type returned by {parsed.entry}")
    return target


def replace_result(b: ir.IRBuilder, call: ir.CallBase, parsed: ParsedCall,
                   result: ir.Value | None, entry: str) -> None:
    """Hand ``result`` to the user's call: replace its uses (or store it through sret)."""
    target_type = declared_result_type(parsed, call)
    if target_type is None or target_type.is_void:
        return
    if parsed.sret is None and not call.uses:
        return
    if result is None:
        if parsed.mode is not DerivativeMode.FORWARD and target_type.is_fp_or_fp_vector:
            adapted: ir.Value = ir.null_value(target_type)
        else:
            raise call_error(
                call,
                f"{entry} is declared to return {target_type}, but differentiating "
                f"{parsed.function.name} gives no result (wrong return type of the call)",
            )
    else:
        try:
            adapted = adapt_value(b, result, target_type)
        except ValueError as exc:
            raise call_error(
                call,
                f"the return type of {entry} ({target_type}) does not match the result of "
                f"differentiating {parsed.function.name} ({result.type}): {exc}",
            ) from None
    if parsed.sret is not None:
        b.store(adapted, parsed.sret)
    else:
        call.replace_all_uses_with(adapted)
