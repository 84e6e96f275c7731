"""The user's ``__enzyme_*`` calls (Enzyme's C API): entry points, markers, and the
reading of one call into a :class:`ParsedCall`.

``__enzyme_autodiff*(fn, args...)`` (reverse mode), ``__enzyme_fwddiff*(fn, args...)``
(forward mode) and the split pair ``__enzyme_augmentfwd*`` / ``__enzyme_reverse*`` are
matched by name prefix. The arguments after ``fn`` are read with Enzyme's markers
(``enzyme_dup x, dx``, ``enzyme_out x``, ``enzyme_const x``, ``enzyme_width, N``, ...; see
``include/enzyme/enzyme.h``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from irgrad import ir
from irgrad.ad.core.config import DerivativeMode, DiffeType
from irgrad.ad.core.diagnostics import source_location_of
from irgrad.ad.rules.emit import adapt_value
from irgrad.errors import DifferentiationError

REVERSE_PREFIX = "__enzyme_autodiff"
FORWARD_PREFIX = "__enzyme_fwddiff"
AUGMENTED_PREFIX = "__enzyme_augmentfwd"
SPLIT_REVERSE_PREFIX = "__enzyme_reverse"
UNSUPPORTED_PREFIXES = ("__enzyme_fwdsplit",)
VIRTUAL_REVERSE_PREFIX = "__enzyme_virtualreverse"  # the shadow of a function (a table)

ACTIVITY_MARKERS = {
    "enzyme_dup": DiffeType.DUP,
    "enzyme_dupnoneed": DiffeType.DUP_NONEED,
    "enzyme_out": DiffeType.OUT,
    "enzyme_const": DiffeType.CONST,
}
OPTION_MARKERS = ("enzyme_width", "enzyme_primal_return")
SPLIT_MARKERS = ("enzyme_tape", "enzyme_allocated")  # each followed by one value
UNSUPPORTED_MARKERS = (
    "enzyme_dupv", "enzyme_dupnoneedv", "enzyme_vector", "enzyme_buffer", "enzyme_noret",
    "enzyme_nofree", "enzyme_scalar",
)  # fmt: skip
MARKER_NAMES = frozenset([*ACTIVITY_MARKERS, *OPTION_MARKERS, *SPLIT_MARKERS,
                          *UNSUPPORTED_MARKERS])
SPLIT_MODES = (DerivativeMode.REVERSE_PRIMAL, DerivativeMode.REVERSE_GRADIENT)


def marker_name(value: ir.Value) -> str | None:
    """The marker a call argument stands for (``load i32, ptr @enzyme_dup``, ``ptr
    @enzyme_dup`` or ``metadata !"enzyme_dup"``), or None for an ordinary argument."""
    if isinstance(value, ir.LoadInst):
        value = value.pointer
    if isinstance(value, ir.GlobalVariable) and value.name in MARKER_NAMES:
        return value.name
    if isinstance(value, ir.MetadataAsValue):
        raw = value.raw.strip()
        if raw.startswith('!"') and raw.endswith('"') and raw[2:-1] in MARKER_NAMES:
            return raw[2:-1]
    return None


def entry_name(name: str) -> str:
    """``name`` without C++ mangling (``_Z17__enzyme_autodiffPvz`` -> ``__enzyme_autodiff``)."""
    if name.startswith("_Z"):  # C++ declares `double __enzyme_autodiff(void*, ...);`
        m = re.match(r"_Z(\d+)", name)
        return name[m.end() : m.end() + int(m.group(1))] if m else name
    return name


def entry_mode(name: str) -> DerivativeMode | None:
    """The derivative mode an ``__enzyme_*`` entry point asks for (None: not an entry)."""
    name = entry_name(name)
    if name.startswith(VIRTUAL_REVERSE_PREFIX):
        return DerivativeMode.REVERSE_PRIMAL  # its shadow holds the split pair
    if name.startswith(REVERSE_PREFIX):
        return DerivativeMode.REVERSE_COMBINED
    if name.startswith(FORWARD_PREFIX):
        return DerivativeMode.FORWARD
    if name.startswith(AUGMENTED_PREFIX):
        return DerivativeMode.REVERSE_PRIMAL
    if name.startswith(SPLIT_REVERSE_PREFIX):
        return DerivativeMode.REVERSE_GRADIENT
    if name.startswith(UNSUPPORTED_PREFIXES):
        return DerivativeMode.FORWARD  # rejected by lower_call with a clear message
    return None


@dataclass
class ParsedCall:
    """An ``__enzyme_*`` call's arguments, read against the function's parameters."""

    function: ir.Function
    mode: DerivativeMode
    activities: list[DiffeType] = field(default_factory=list)
    primals: list[ir.Value] = field(default_factory=list)
    shadows: list[list[ir.Value]] = field(default_factory=list)
    width: int = 1
    return_primal: bool = False
    sret: ir.Value | None = None  # the pointer a struct result is returned through
    sret_type: ir.Type | None = None
    tape: ir.Value | None = None  # split reverse: the value after enzyme_tape
    differet: ir.Value | None = None  # split reverse: the adjoint of the result


def _split_markers(call: ir.CallBase, rest: list[ir.Value], mode: DerivativeMode,
                   parsed: ParsedCall) -> list[ir.Value]:
    """Take ``enzyme_tape, tape`` and ``enzyme_allocated, size`` out of the arguments."""
    out: list[ir.Value] = []
    k = 0
    while k < len(rest):
        name = marker_name(rest[k])
        if name not in SPLIT_MARKERS:
            out.append(rest[k])
            k += 1
            continue
        if mode not in SPLIT_MODES:
            raise call_error(call, f"{name} is only valid in split mode (__enzyme_augmentfwd / "
                         "__enzyme_reverse)")
        if k + 1 >= len(rest) or marker_name(rest[k + 1]) is not None:
            raise call_error(call, f"the marker {name} must be followed by a value")
        if name == "enzyme_tape":
            if mode is not DerivativeMode.REVERSE_GRADIENT:
                raise call_error(call, "enzyme_tape is an argument of __enzyme_reverse (the "
                             "tape __enzyme_augmentfwd returned)")
            if not rest[k + 1].type.is_pointer:
                raise call_error(call, f"the tape after enzyme_tape must be a pointer (the "
                             f"result of __enzyme_augmentfwd), not {rest[k + 1].type}")
            parsed.tape = rest[k + 1]
        k += 2  # enzyme_allocated N: the tape is always a heap pointer; N is not needed
    return out


def call_error(call: ir.CallBase, message: str) -> DifferentiationError:
    return DifferentiationError(message, source_location_of(call))


def strip_casts(value: ir.Value) -> ir.Value:
    """``value`` without bitcasts, address-space casts, int/ptr round trips and aliases
    (the function argument of an ``__enzyme_*`` call)."""
    while True:
        if isinstance(value, ir.ConstantExpr) and value.opcode in (
            "bitcast", "addrspacecast", "ptrtoint", "inttoptr"
        ):
            value = value.operands[0]
        elif isinstance(value, ir.CastInst) and value.opcode in (
            "bitcast", "addrspacecast", "ptrtoint", "inttoptr"
        ):
            value = value.value
        elif isinstance(value, ir.GlobalAlias) and not isinstance(value, ir.GlobalIFunc):
            value = value.aliasee
        else:
            return value


def _type_of_sret(call: ir.CallBase, module: ir.Module) -> ir.Type | None:
    for attr in call.arg_attrs[0] if call.arg_attrs else []:
        if attr.startswith("sret(") and attr.endswith(")"):
            text = attr[5:-1].strip()
            if text.startswith("%"):
                return module.struct_types.get(text[1:].strip('"'))
            return ir.parse_type(text)
    return None


def _default_activity(ty: ir.Type, mode: DerivativeMode) -> DiffeType:
    if ty.is_pointer:
        return DiffeType.DUP
    if ty.is_fp_or_fp_vector:
        return DiffeType.DUP if mode is DerivativeMode.FORWARD else DiffeType.OUT
    return DiffeType.CONST


def _describe(activity: DiffeType) -> str:
    return {
        DiffeType.DUP: "enzyme_dup",
        DiffeType.DUP_NONEED: "enzyme_dupnoneed",
        DiffeType.OUT: "enzyme_out",
        DiffeType.CONST: "enzyme_const",
    }[activity]


def _compatible(given: ir.Type, expected: ir.Type) -> bool:
    """A vararg value can be passed for a parameter of type ``expected`` (after coercion)."""
    if given == expected:
        return True
    if given.is_float and expected.is_float:
        return True  # C promotes float varargs to double: converted back
    if given.is_integer and expected.is_integer:
        return True
    return given.is_pointer and expected.is_pointer


def parse_call(call: ir.CallBase, mode: DerivativeMode, module: ir.Module) -> ParsedCall:
    """Read an ``__enzyme_*`` call's arguments (raises DifferentiationError on misuse)."""
    entry = call.called_function.name if call.called_function is not None else "__enzyme"
    args = list(call.args)
    sret_type = None
    sret = None
    if args and call.arg_attrs and any(a.startswith("sret(") for a in call.arg_attrs[0]):
        sret, sret_type = args[0], _type_of_sret(call, module)
        args = args[1:]
    if not args:
        raise call_error(call, f"{entry} needs the function to differentiate as first argument")
    target = strip_casts(args[0])
    if not isinstance(target, ir.Function):
        raise call_error(
            call,
            f"the first argument of {entry} must be a function (the function to "
            f"differentiate), not {_value_text(args[0])}",
        )
    if target.is_declaration:
        raise call_error(
            call,
            f"cannot differentiate {target.name}: it is declared without a definition in "
            "this module",
        )
    parsed = ParsedCall(target, mode, sret=sret, sret_type=sret_type)
    params = target.function_type.params
    rest = _split_markers(call, args[1:], mode, parsed)
    k = 0
    # leading options: enzyme_width N, enzyme_primal_return
    while k < len(rest):
        name = marker_name(rest[k])
        if name == "enzyme_width":
            if k + 1 >= len(rest) or not isinstance(rest[k + 1], ir.ConstantInt):
                raise call_error(call, "enzyme_width must be followed by a constant width")
            parsed.width = rest[k + 1].value  # type: ignore[attr-defined]
            if parsed.width < 1:
                raise call_error(call, f"enzyme_width must be at least 1, got {parsed.width}")
            k += 2
        elif name == "enzyme_primal_return":
            parsed.return_primal = True
            k += 1
        else:
            break
    for index, param_type in enumerate(params):
        marker: str | None = None
        while k < len(rest) and marker_name(rest[k]) is not None:
            name = marker_name(rest[k])
            assert name is not None
            if name in UNSUPPORTED_MARKERS:
                raise call_error(call, f"the marker {name} is not supported yet")
            if name in OPTION_MARKERS:
                if name == "enzyme_primal_return":
                    parsed.return_primal = True
                    k += 1
                    continue
                raise call_error(call, f"{name} must come before the function's arguments")
            if marker is not None:
                raise call_error(call, f"two markers in a row: {marker} followed by {name}")
            marker = name
            k += 1
        if k >= len(rest):
            if marker is not None:
                raise call_error(
                    call,
                    f"the marker {marker} is followed by nothing: {target.name} expects "
                    f"argument {index + 1} of type {param_type} after it",
                )
            raise call_error(
                call,
                f"too few arguments in {entry} for {target.name}: it takes {len(params)}, "
                f"the call passes {index}",
            )
        value = rest[k]
        k += 1
        activity = ACTIVITY_MARKERS[marker] if marker else _default_activity(param_type, mode)
        _check_activity(call, target, index, param_type, value, activity, marker, mode)
        parsed.activities.append(activity)
        parsed.primals.append(value)
        shadows: list[ir.Value] = []
        if activity in (DiffeType.DUP, DiffeType.DUP_NONEED):
            count = parsed.width if mode is DerivativeMode.FORWARD else 1
            for _ in range(count):
                if k >= len(rest) or marker_name(rest[k]) is not None:
                    raise call_error(
                        call,
                        f"missing shadow for argument {index + 1} of {target.name}: "
                        f"{_describe(activity)} needs a shadow of type {param_type} after "
                        "the value",
                    )
                shadow = rest[k]
                if not _compatible(shadow.type, param_type) or (
                    shadow.type.is_pointer != param_type.is_pointer
                ):
                    raise call_error(
                        call,
                        f"the shadow of argument {index + 1} of {target.name} has type "
                        f"{shadow.type}, but the argument has type {param_type}",
                    )
                shadows.append(shadow)
                k += 1
        parsed.shadows.append(shadows)
    if (k == len(rest) - 1 and mode is DerivativeMode.REVERSE_GRADIENT
            and target.return_type.is_fp_or_fp_vector and marker_name(rest[k]) is None):
        if not _compatible(rest[k].type, target.return_type):
            raise call_error(call, f"the adjoint of the result of {target.name} passed to {entry} "
                         f"has type {rest[k].type}, expected {target.return_type}")
        parsed.differet = rest[k]
        k += 1
    if k < len(rest):
        extra = len(rest) - k
        if marker_name(rest[k]) is not None and k == len(rest) - 1:
            raise call_error(
                call, f"the marker {marker_name(rest[k])} is followed by nothing (too many "
                f"arguments for {target.name}, which takes {len(params)})"
            )
        raise call_error(
            call,
            f"too many arguments in {entry} for {target.name}: it takes {len(params)}, "
            f"{extra} argument(s) left over",
        )
    return parsed


def _check_activity(
    call: ir.CallBase,
    target: ir.Function,
    index: int,
    param_type: ir.Type,
    value: ir.Value,
    activity: DiffeType,
    marker: str | None,
    mode: DerivativeMode,
) -> None:
    where = f"argument {index + 1} of {target.name} ({param_type})"
    if not _compatible(value.type, param_type):
        raise call_error(call, f"{where} is passed a value of type {value.type}")
    if activity is DiffeType.OUT:
        if not param_type.is_fp_or_fp_vector:
            raise call_error(
                call,
                f"enzyme_out before {where}: only floating-point scalars can be active "
                "(enzyme_out); use enzyme_dup/enzyme_const for pointers and enzyme_const "
                "for integers",
            )
        if mode is DerivativeMode.FORWARD:
            raise call_error(call, f"enzyme_out before {where} is not valid in forward mode "
                         "(use enzyme_dup x, dx)")
    if activity in (DiffeType.DUP, DiffeType.DUP_NONEED):
        if param_type.is_integer:
            raise call_error(call, f"{marker or 'enzyme_dup'} before {where}: integers cannot "
                         "have a shadow (use enzyme_const)")
        if mode is not DerivativeMode.FORWARD and param_type.is_fp_or_fp_vector:
            raise call_error(call, f"{marker} before {where}: in reverse mode a floating-point "
                         "scalar is enzyme_out or enzyme_const")


def _value_text(value: ir.Value) -> str:
    if isinstance(value, ir.GlobalValue):
        return f"@{value.name}"
    return f"a value of type {value.type}"


def return_activity(parsed: ParsedCall, call: ir.CallBase) -> DiffeType:
    ret = parsed.function.return_type
    if not ret.is_fp_or_fp_vector:
        return DiffeType.CONST
    asks_nothing = call.type.is_void and parsed.sret is None
    if parsed.mode is DerivativeMode.FORWARD and asks_nothing and not parsed.return_primal:
        return DiffeType.CONST
    return DiffeType.OUT if parsed.mode is not DerivativeMode.FORWARD else DiffeType.DUP


def forward_wants_primal(parsed: ParsedCall, call: ir.CallBase) -> bool:
    """``{primal, tangent}`` asked for by the call's declared struct return type."""
    if parsed.return_primal:
        return True
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


def replace_result(
    b: ir.IRBuilder, call: ir.CallBase, parsed: ParsedCall, result: ir.Value | None, entry: str
) -> None:
    target_type = parsed.sret_type if parsed.sret is not None else call.type
    if parsed.sret is not None and target_type is None:
        raise call_error(call, f"cannot read the struct type returned by {entry}")
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


def enzyme_calls(module: ir.Module) -> list[tuple[ir.CallBase, DerivativeMode]]:
    """Every call of an ``__enzyme_*`` entry point, with its mode."""
    found: list[tuple[ir.CallBase, DerivativeMode]] = []
    for fn in list(module.functions):
        mode = entry_mode(fn.name)
        if mode is None:
            continue
        for use in list(fn.uses):
            user = use.user
            if isinstance(user, ir.CallBase) and user.callee is fn:
                found.append((user, mode))
    return found


def remove_markers(module: ir.Module) -> None:
    """Erase marker loads (now unused) and the marker / entry point declarations."""
    for gv in list(module.globals):
        if gv.name not in MARKER_NAMES:
            continue
        for use in list(gv.uses):
            user = use.user
            if isinstance(user, ir.LoadInst) and not user.uses:
                user.erase_from_parent()
        if not gv.uses and gv.is_declaration:
            module.remove_global(gv)
    for fn in list(module.functions):
        if entry_mode(fn.name) is not None and fn.is_declaration and not fn.uses:
            module.remove_function(fn)


