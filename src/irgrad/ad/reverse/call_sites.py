"""Call sites in reverse mode: the activities a call passes to its callee's derivative,
and the forward half of a differentiated call (the augmented primal's result, tape and
shadow of the result taken apart), shared by direct and indirect calls
(:mod:`irgrad.ad.reverse.calls`, :mod:`irgrad.ad.reverse.indirect_calls`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.config import (
    DISTINCT_ARGUMENTS_KEY,
    NOT_OVERWRITTEN_KEY,
    DerivativeMode,
    DiffeType,
    FnConfig,
)
from irgrad.ad.core.diagnostics import source_location_of, variadic_callee_message
from irgrad.ad.core.signatures import returns_shadow
from irgrad.ad.reverse.tape import on_caller_stack
from irgrad.analysis.activity import has_float, holds_pointers
from irgrad.analysis.distinct_arguments import distinct_argument_pairs
from irgrad.analysis.known_functions import callee_name, is_free, is_inactive_call
from irgrad.analysis.memory_writes import MemoryWrites
from irgrad.analysis.underlying_objects import underlying_object
from irgrad.ir.builder import IRBuilder
from irgrad.ir.printer import value_ref

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils

_DERIVED = ("getelementptr", "bitcast", "addrspacecast", "phi", "select", "freeze",
            "extractvalue", "insertvalue")


@dataclass
class AugmentedCall:
    """A call whose forward pass called an augmented primal; the reverse pass calls the
    matching reverse with the tape.

    ``args``: the original values passed, in the derivative's order (a dispatcher takes
    the function pointer first); ``rev``: the reverse function, or None when it is read
    from the shadow of the function pointer ``table`` (``{augmented, reverse}``)."""

    config: FnConfig
    args: tuple[ir.Value, ...]
    rev: ir.Function | None
    tape: ir.Value | None = None
    table: ir.Value | None = None


def augmented_calls(gu: GradientUtils) -> dict[ir.CallBase, AugmentedCall]:
    """Original call -> how its reverse is made (for the augmented calls)."""
    calls: dict[ir.CallBase, AugmentedCall] | None = getattr(gu, "augmented_calls", None)
    if calls is None:
        calls = {}
        gu.augmented_calls = calls  # type: ignore[attr-defined]
    return calls


def is_active_call(gu: GradientUtils, call: ir.CallBase) -> bool:
    """Does ``call`` need derivative code? For a direct call the activity analysis decides
    (``is_constant_instruction``): its result carries a useful derivative, or it may write
    active memory (through active arguments or an active global). A read-only call whose
    result is unused needs none: differentiating it could only turn an overflow into
    0 * inf = NaN."""
    if call.called_function is not None:
        return not gu.activity.is_constant_instruction(call)
    if gu.is_varied(call) or gu.is_shadowed(call):
        return True
    return any(gu.is_varied(a) or gu.is_shadowed(a) or a in gu.activity.addresses
               for a in call.args)


def prepare_calls(gu: GradientUtils) -> None:
    """Before the forward pass: in split mode no store is sunk into the reverse pass (the
    forward pass ends when the augmented primal returns; loads are never recomputed
    either: GradientUtils.load_is_stable)."""
    if gu.config.mode is not DerivativeMode.REVERSE_COMBINED and hasattr(gu, "sunk_stores"):
        gu.sunk_stores = []


def shadow_result_needed(gu: GradientUtils, call: ir.CallBase) -> bool:
    """Whether the shadow of the pointer ``call`` returns (or of the address it returns
    as an integer) is needed: something reads or writes through it (or a pointer derived
    from it), stores it into active memory, passes it to a call or returns it with its
    shadow."""
    if not ((holds_pointers(call.type) and gu.is_shadowed(call))
            or call in gu.activity.addresses):  # (an address returned as an integer)
        return False
    return shadow_used(gu, call)


def shadow_used(gu: GradientUtils, value: ir.Value, *, calls_use: bool = False) -> bool:
    """Does anything use the shadow of pointer ``value``: read or write through it (or a
    pointer derived from it), store it into memory, pass it to a call that is not
    inactive (to any call when ``calls_use``: a free releases the shadow too), return it
    with its shadow? Comparisons and ``ptrtoint`` (an index computed as ``p - base``) do
    not."""
    seen: set[ir.Value] = {value}
    work: list[ir.Value] = [value]
    while work:
        v = work.pop()
        for use in v.uses:
            u = use.user
            if isinstance(u, ir.Instruction) and u.opcode in _DERIVED \
                    and holds_pointers(u.type):
                if u not in seen:
                    seen.add(u)
                    work.append(u)
                continue
            if isinstance(u, ir.CmpInst) or (isinstance(u, ir.CastInst)
                                             and u.opcode == "ptrtoint"):
                continue
            if isinstance(u, ir.CallBase):
                name = callee_name(u)
                if not calls_use and (is_inactive_call(name) or is_free(name)):
                    continue
                return True
            if isinstance(u, ir.ReturnInst):
                if returns_shadow(gu.config):
                    return True
                continue
            return True
    return False


def _merged_in_callee(fn: ir.Function, k: int) -> bool:
    """Is pointer parameter ``k`` of ``fn`` merged with other pointers (a phi or a
    select), where a shadow may be needed for it?"""
    if fn.is_declaration or k >= len(fn.args):
        return False
    return any(isinstance(u, ir.PHINode | ir.SelectInst) for u in fn.args[k].users)


def call_config(gu: GradientUtils, fn: ir.Function, args: tuple[ir.Value, ...],
                call: ir.CallBase, mode: DerivativeMode,
                fixed: dict[int, DiffeType] | None = None) -> FnConfig:
    """The activities of ``fn``'s arguments at ``call``: shadowed pointers (and
    integers holding their addresses) DUP, varied floating-point values OUT, the rest CONST (``fixed`` overrides by position); the
    result OUT when varied, DUP when it is a pointer whose shadow is needed."""
    if fn.function_type.var_arg:
        raise gu.error(variadic_callee_message(fn), call)
    arg_types: list[DiffeType] = []
    for k, a in enumerate(args):
        if fixed and k in fixed:
            arg_types.append(fixed[k])
        elif (a.type.is_pointer and gu.is_shadowed(a)) or a in gu.activity.addresses:
            # (an address in an integer: an iterator the ABI passes as ``i64`` once the
            # registers are used up; its shadow is the shadow's address)
            arg_types.append(DiffeType.DUP)
        elif has_float(a.type) and gu.is_varied(a) and not a.type.is_pointer:
            arg_types.append(DiffeType.OUT)
        elif isinstance(a, ir.ConstantPointerNull) and _merged_in_callee(fn, k):
            # null for a pointer the callee merges with others (Rust's quicksort gets
            # `ancestor_pivot: Option<&T>` = None, then recurses with a pivot in the
            # slice): its shadow, null, goes along
            arg_types.append(DiffeType.DUP)
        elif gu.is_varied(a) and not holds_pointers(a.type):  # a float's bits as an integer
            raise gu.error(f"No derivative found for {value_ref(fn)}: an active "
                           "floating-point value is passed to it as an integer (not "
                           "supported)", call)
        else:
            arg_types.append(DiffeType.CONST)
    if gu.is_varied(call) and has_float(call.type):
        ret = DiffeType.OUT
    elif shadow_result_needed(gu, call):
        ret = DiffeType.DUP
    elif gu.is_varied(call) and not call.type.is_void and not holds_pointers(call.type):
        raise gu.error(f"No derivative found for {value_ref(fn)}: it returns an active "
                       "floating-point value as an integer (not supported)", call)
    else:
        ret = DiffeType.CONST
    return FnConfig(function=fn, mode=mode, arg_types=tuple(arg_types), return_type=ret)


def kept_arguments(gu: GradientUtils, call: ir.CallBase) -> tuple[int, ...]:
    """The pointer arguments of ``call`` whose memory holds the same values when the
    reverse pass runs (nothing writes it after the call; in split mode only memory the
    caller promised, ``enzyme_not_overwritten``): a callee need not copy it to its tape."""
    split = gu.config.mode is not DerivativeMode.REVERSE_COMBINED
    promised = dict(gu.config.extra).get(NOT_OVERWRITTEN_KEY, ())
    out: list[int] = []
    for k, a in enumerate(call.args):
        if not a.type.is_pointer:
            continue
        if split:
            base = underlying_object(a)
            if not (isinstance(base, ir.Argument) and base.parent is gu.orig
                    and base.index in promised):  # type: ignore[operator]
                continue
        if not gu.memory_writes.may_be_overwritten(a, after=call):
            out.append(k)
    return tuple(out)


def distinct_arguments(gu: GradientUtils, args: tuple[ir.Value, ...] | list[ir.Value],
                       fn: ir.Function | None = None) -> tuple[tuple[int, int], ...]:
    """The pairs of ``args`` (one call's, in the callee derivative's order) that point
    into different objects: the callee's derivative may assume stores through the one
    leave the other's memory alone (:mod:`irgrad.analysis.distinct_arguments`; pairs of
    this derivative's own arguments count when its call sites passed them distinct).
    With the callee ``fn``: only pairs it writes through (one of the two, or anything),
    so that callees that only read get one derivative for all their call sites."""
    known = frozenset(dict(gu.config.extra).get(DISTINCT_ARGUMENTS_KEY, ()))  # type: ignore[arg-type]
    pairs = distinct_argument_pairs(args, known)
    if not pairs or fn is None:
        return pairs
    written = _written_by(gu, fn)
    if written is None:
        return pairs
    return tuple((k, j) for k, j in pairs
                 if any(i < len(fn.args) and fn.args[i] in written for i in (k, j)))


def _written_by(gu: GradientUtils, fn: ir.Function) -> frozenset[ir.Value] | None:
    """The objects ``fn`` itself may write (its arguments among them), or None when one
    of its writes may touch anything (:class:`MemoryWrites`, memoized for the whole
    synthesis)."""
    memo: dict[ir.Function, MemoryWrites] = gu.ctx.analyses.setdefault(  # type: ignore[assignment]
        "memory_writes_of_callees", {})
    writes = memo.get(fn)
    if writes is None:
        writes = memo[fn] = MemoryWrites(fn)
    if any(w is None for _, w in writes.writes):
        return None
    return frozenset(t for _, w in writes.writes
                     for t in (w if isinstance(w, frozenset) else (w,)))


def rereadable_arguments(gu: GradientUtils, call: ir.CallBase, fn: ir.Function
                         ) -> tuple[int, ...]:
    """Of :func:`kept_arguments`, those ``fn`` itself never writes through: only there
    can its reverse re-read instead of taping (an in-place callee gains nothing, and one
    derivative serves all its call sites)."""
    kept = kept_arguments(gu, call)
    if not kept:
        return kept
    written = _written_by(gu, fn)
    if written is None:
        return ()
    return tuple(k for k in kept if k < len(fn.args) and fn.args[k] not in written)


def emit_augmented(gu: GradientUtils, call: ir.CallBase, rec: AugmentedCall,
                   callee: ir.Value, ftype: ir.FunctionType) -> None:
    """Replace the forward clone of ``call`` by a call of the augmented primal ``callee``
    (result, tape and shadow of the result taken apart); record ``rec`` for the reverse."""
    fwd = gu.vmap[call]
    assert isinstance(fwd, ir.Instruction)
    b = IRBuilder(position=fwd)
    b.debug_loc = fwd.debug_loc
    args: list[ir.Value] = []
    for a, dt in zip(rec.args, rec.config.arg_types, strict=True):
        args.append(gu.primal(a))
        if dt is DiffeType.DUP:
            args.append(gu.invert_pointer(a, call))
    if on_caller_stack(rec.config):  # it pushes its tape onto this derivative's stack
        tape_stack = gu.ensure_tape()
        args.append(tape_stack.state)
        assert call.parent is not None
        tape_stack.sharing_blocks.add(call.parent)
    label = call.called_function.name if call.called_function is not None else "indirect"
    res = b.call(callee, args, ftype, name=gu.fresh("aug." + label))
    if rec.config.function.return_type.is_void:
        tape: ir.Value = res
    else:
        tape = b.extract_value(res, [0], name=gu.fresh("tape." + label))
        primal = b.extract_value(res, [1], name=gu.fresh(fwd.name or "call"))
        fwd.replace_all_uses_with(primal)
        gu.vmap[call] = primal
        gu.orig_of_new[primal] = call
        if returns_shadow(rec.config):
            shadow = b.extract_value(res, [2], name=gu.fresh("s." + (fwd.name or "call")))
            gu.shadow[call] = shadow
            gu.shadow_primal[shadow] = primal
    gu.orig_of_new.pop(fwd, None)
    if gu.entry_marker is fwd:
        gu.entry_marker = res
    fwd.erase_from_parent()
    rec.tape = tape
    augmented_calls(gu)[call] = rec




def describe_call(gu: GradientUtils, call: ir.CallBase) -> str:
    """``at file:line in function f`` for run-time messages about ``call``."""
    loc = source_location_of(call, gu.module)
    return f"at {loc} in {gu.orig.name} (calling {value_ref(call.callee)})"


__all__ = [
    "AugmentedCall",
    "augmented_calls",
    "call_config",
    "describe_call",
    "distinct_arguments",
    "emit_augmented",
    "is_active_call",
    "kept_arguments",
    "prepare_calls",
    "rereadable_arguments",
    "shadow_result_needed",
]
