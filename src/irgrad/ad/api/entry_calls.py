"""Reading one ``__enzyme_*`` call (Enzyme's C API) into a :class:`ParsedCall`.

The arguments after the function are read as Enzyme reads them
(:mod:`irgrad.ad.api.markers` has the names):

* per argument: ``enzyme_dup x, dx`` / ``enzyme_dupnoneed x, dx`` (a value and its
  shadow; with ``enzyme_width, N`` N shadows), ``enzyme_out x``, ``enzyme_const x``;
  ``enzyme_dupv, stride, x, dx`` / ``enzyme_dupnoneedv`` (the N shadows in one buffer,
  lane k at ``dx + k*stride`` bytes); ``enzyme_byref, size, &x`` (the argument is read
  from memory); ``enzyme_not_overwritten`` (split mode: the memory the argument points to
  is not changed before the reverse pass). Without a marker pointers are duplicated,
  floating-point scalars active (forward mode: duplicated), integers constant;
* anywhere: ``enzyme_width, N``, ``enzyme_primal_return``, ``enzyme_noret``,
  ``enzyme_const_return`` / ``enzyme_active_return`` / ``enzyme_dup_return``,
  ``enzyme_nofree``, ``enzyme_allocated, N`` and ``enzyme_tape, p``;
* ``enzyme_interleave``: the arguments before it are the values (with their markers),
  the shadows follow it in the same order;
* after the function's arguments (``__enzyme_reverse``): the adjoint of the result, then
  the tape, when they are not given by markers.

Anything malformed is a located :class:`DifferentiationError` (file:line of the call).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from irgrad import ir
from irgrad.ad.api.markers import (
    ACTIVITY_MARKERS,
    BATCH_MARKERS,
    NOT_OVERWRITTEN_MARKERS,
    RETURN_MARKERS,
    STRIDED_MARKERS,
    UNSUPPORTED_MARKERS,
    EntryKind,
    describe,
    entry_kind,
    marker_name,
    strip_casts,
)
from irgrad.ad.core.config import DerivativeMode, DiffeType
from irgrad.ad.core.diagnostics import source_location_of
from irgrad.analysis.layout import store_size
from irgrad.errors import DifferentiationError

SPLIT_MODES = (DerivativeMode.REVERSE_PRIMAL, DerivativeMode.REVERSE_GRADIENT)
_REVERSE_MODES = (DerivativeMode.REVERSE_COMBINED, *SPLIT_MODES)


@dataclass
class ParsedCall:
    """An ``__enzyme_*`` call's arguments, read against the function's parameters."""

    function: ir.Function
    mode: DerivativeMode
    kind: EntryKind | None = None
    activities: list[DiffeType] = field(default_factory=list)
    primals: list[ir.Value] = field(default_factory=list)
    shadows: list[list[ir.Value]] = field(default_factory=list)  # width per DUP argument
    width: int = 1
    return_primal: bool = False
    return_marker: DiffeType | None = None  # enzyme_const/active/dup_return
    noret: bool = False  # enzyme_noret: the primal result is not wanted
    nofree: bool = False  # enzyme_nofree: the reverse pass keeps the tape
    not_overwritten: set[int] = field(default_factory=set)  # argument indices
    sret: ir.Value | None = None  # the pointer a struct result is returned through
    sret_type: ir.Type | None = None
    tape: ir.Value | None = None  # split mode: the tape value, or where it is kept
    tape_in_memory: bool = False  # given as enzyme_tape, p: the tape is kept at p
    allocated: int | None = None  # enzyme_allocated N: the tape is N bytes at p
    differet: ir.Value | None = None  # split reverse: the adjoint of the result

    @property
    def entry(self) -> str:
        return self.kind.prefix if self.kind is not None else "__enzyme"


def _integer_constant(v: ir.Value) -> int | None:
    """The value of integer constant ``v``, also through the integer casts the caller
    applied to it (``(size_t)__enzyme_augmentsize(...)``, whose call was replaced by the
    constant after the cast was made)."""
    if isinstance(v, ir.ConstantInt):
        return v.value
    if isinstance(v, ir.CastInst) and v.opcode in ("sext", "zext", "trunc") and \
            isinstance(v.type, ir.IntType):
        inner = v.value
        got = _integer_constant(inner)
        if got is None or not isinstance(inner.type, ir.IntType):
            return None
        width = v.type.width if v.opcode == "trunc" else inner.type.width
        bits = got & ((1 << width) - 1)
        if v.opcode == "zext" or not bits >> (width - 1):
            return bits
        return bits - (1 << width)  # sign bit set: sext, or a trunc read signed
    return None


def call_error(call: ir.CallBase, message: str) -> DifferentiationError:
    return DifferentiationError(message, source_location_of(call))


def _type_of_sret(call: ir.CallBase, module: ir.Module) -> ir.Type | None:
    for attr in call.arg_attrs[0] if call.arg_attrs else []:
        if attr.startswith("sret(") and attr.endswith(")"):
            text = attr[5:-1].strip()
            if text.startswith("%"):
                return module.struct_types.get(text[1:].strip('"'))
            return ir.parse_type(text)
    return None


def default_activity(ty: ir.Type, mode: DerivativeMode) -> DiffeType:
    if ty.is_pointer:
        return DiffeType.DUP
    if ty.is_fp_or_fp_vector:
        return DiffeType.DUP if mode is DerivativeMode.FORWARD else DiffeType.OUT
    return DiffeType.CONST


def compatible(given: ir.Type, expected: ir.Type) -> bool:
    """A vararg value can be passed for a parameter of type ``expected`` (after coercion)."""
    if given == expected:
        return True
    if given.is_float and expected.is_float:
        return True  # C promotes float varargs to double: converted back
    if given.is_integer and expected.is_integer:
        return True
    return given.is_pointer and expected.is_pointer


def value_text(value: ir.Value) -> str:
    if isinstance(value, ir.GlobalValue):
        return f"@{value.name}"
    return f"a value of type {value.type}"


def _functions_chosen(v: ir.Value) -> list[str]:
    """``@f1, @f2``: the functions a select or phi of functions picks from (else [])."""
    if not isinstance(v, ir.SelectInst | ir.PHINode):
        return []
    names: list[str] = []
    work, seen = [v], set()
    while work:
        x = strip_casts(work.pop())
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, ir.SelectInst):
            work += [x.true_value, x.false_value]
        elif isinstance(x, ir.PHINode):
            work += [val for val, _ in x.incoming]
        elif isinstance(x, ir.Function):
            names.append(f"@{x.name}")
        else:
            return []
    return sorted(set(names))


def target_function(call: ir.CallBase, args: list[ir.Value], entry: str,
                    has_custom: Callable[[ir.Function], bool] = lambda fn: False
                    ) -> ir.Function:
    """The function an entry point is asked to differentiate (its first argument).
    ``has_custom(fn)``: ``fn`` has a custom derivative (it needs no definition)."""
    if not args:
        raise call_error(call, f"{entry} needs the function to differentiate as first argument")
    target = strip_casts(args[0])
    chosen = _functions_chosen(target)
    if chosen:
        raise call_error(
            call,
            f"the first argument of {entry} is one of {', '.join(chosen)}, chosen at run "
            "time: an optimizer merged calls from the arms of a branch before irgrad saw "
            "them. Let irgrad optimize (irgrad cc, or clang -Xclang -disable-llvm-passes "
            "before irgrad opt), or keep one call per function")
    if not isinstance(target, ir.Function):
        raise call_error(
            call,
            f"the first argument of {entry} must be a function (the function to "
            f"differentiate), not {value_text(args[0])}",
        )
    if target.is_declaration and not has_custom(target):
        raise call_error(
            call,
            f"cannot differentiate {target.name}: it is declared without a definition in "
            "this module",
        )
    return target


def call_arguments(call: ir.CallBase, module: ir.Module) -> tuple[list[ir.Value],
                                                                   ir.Value | None,
                                                                   ir.Type | None]:
    """The call's arguments without a struct-return pointer, and that pointer (+ type)."""
    args = list(call.args)
    if args and call.arg_attrs and any(a.startswith("sret(") for a in call.arg_attrs[0]):
        return args[1:], args[0], _type_of_sret(call, module)
    return args, None, None


def parse_call(call: ir.CallBase, mode: DerivativeMode, module: ir.Module,
               kind: EntryKind | None = None,
               has_custom: Callable[[ir.Function], bool] = lambda fn: False) -> ParsedCall:
    """Read an ``__enzyme_*`` call's arguments (raises DifferentiationError on misuse).

    Values the call passes by reference (``enzyme_byref``) and the lanes of strided
    shadows (``enzyme_dupv``) are materialized right before the call."""
    if kind is None:
        callee = call.called_function
        kind = entry_kind(callee.name) if callee is not None else None
    args, sret, sret_type = call_arguments(call, module)
    entry = kind.prefix if kind is not None else "__enzyme"
    target = target_function(call, args, entry, has_custom)
    parsed = ParsedCall(target, mode, kind, sret=sret, sret_type=sret_type)
    _ArgumentReader(call, parsed, args[1:], entry).read()
    return parsed


class _ArgumentReader:
    """One pass over the arguments after the function (Enzyme's ``handleArguments``)."""

    def __init__(self, call: ir.CallBase, parsed: ParsedCall, rest: list[ir.Value],
                 entry: str) -> None:
        self.call = call
        self.p = parsed
        self.entry = entry
        self.fn = parsed.function
        self.params = self.fn.function_type.params
        self.b = ir.IRBuilder(position=call)
        self.b.debug_loc = call.debug_loc
        split = next((i for i, v in enumerate(rest)
                      if marker_name(v) == "enzyme_interleave"), None)
        self.values = rest if split is None else rest[:split]
        self.shadow_queue = None if split is None else list(rest[split + 1:])
        self.k = 0
        self.width_seen = False
        self.trailing: list[ir.Value] = []

    def error(self, message: str) -> DifferentiationError:
        return call_error(self.call, message)

    # -- the walk ------------------------------------------------------------------------
    def read(self) -> None:
        self._scan_options()
        last = DiffeType.DUP  # enzyme_interleave: unmarked arguments take the last activity
        index = 0
        while True:
            marker, stride, byref, not_overwritten = self._argument_markers(index)
            if self.k >= len(self.values):
                if marker is not None or byref is not None:
                    what = marker or "enzyme_byref"
                    if index < len(self.params):
                        raise self.error(
                            f"the marker {what} is followed by nothing: {self.fn.name} "
                            f"expects argument {index + 1} of type {self.params[index]} "
                            "after it")
                    raise self.error(
                        f"the marker {what} is followed by nothing (too many arguments "
                        f"for {self.fn.name}, which takes {len(self.params)})")
                break
            if index >= len(self.params):
                if marker is not None:
                    raise self.error(
                        f"too many arguments in {self.entry} for {self.fn.name}: it takes "
                        f"{len(self.params)}; {marker} has no argument to apply to")
                self.trailing.append(self.values[self.k])
                self.k += 1
                continue
            param = self.params[index]
            value = self.values[self.k]
            self.k += 1
            if byref is not None:
                value = self._load_byref(value, param, byref, index)
            if marker is not None:
                activity = ACTIVITY_MARKERS.get(marker) or STRIDED_MARKERS[marker]
            elif self.shadow_queue is not None:
                activity = last
            else:
                activity = default_activity(param, self.p.mode)
            last = activity
            self._check_activity(index, param, value, activity, marker)
            if not_overwritten:
                self.p.not_overwritten.add(index)
            self.p.activities.append(activity)
            self.p.primals.append(value)
            shadows: list[ir.Value] = []
            if activity in (DiffeType.DUP, DiffeType.DUP_NONEED):
                shadows = self._shadows(index, param, activity, stride)
            self.p.shadows.append(shadows)
            index += 1
        if index < len(self.params):
            raise self.error(
                f"too few arguments in {self.entry} for {self.fn.name}: it takes "
                f"{len(self.params)}, the call passes {index}")
        if self.shadow_queue:
            raise self.error(f"{len(self.shadow_queue)} value(s) after enzyme_interleave "
                             "are not shadows of any argument")
        self._trailing_values()

    def _scan_options(self) -> None:
        """Options that may come anywhere (Enzyme scans for them first)."""
        for v in self.values:
            name = marker_name(v)
            if name in RETURN_MARKERS:
                if self.p.return_marker is not None and \
                        self.p.return_marker is not RETURN_MARKERS[name]:
                    raise self.error(f"two return markers: {name} contradicts an earlier one")
                self.p.return_marker = RETURN_MARKERS[name]
            elif name == "enzyme_primal_return":
                self.p.return_primal = True
            elif name == "enzyme_noret":
                self.p.noret = True
        if self.p.noret and self.p.return_primal:
            raise self.error("enzyme_noret and enzyme_primal_return contradict each other")

    def _next_value(self, marker: str) -> ir.Value:
        if self.k >= len(self.values) or marker_name(self.values[self.k]) is not None:
            raise self.error(f"the marker {marker} must be followed by a value")
        v = self.values[self.k]
        self.k += 1
        return v

    def _constant(self, marker: str, what: str) -> int:
        v = self._next_value(marker)
        got = _integer_constant(v)
        if got is None:
            raise self.error(f"{marker} must be followed by a constant {what}, not "
                             f"{value_text(v)}")
        return got

    def _argument_markers(self, index: int) -> tuple[str | None, ir.Value | None,
                                                     int | None, bool]:
        """Consume the markers before one argument: (activity marker, stride of a
        strided shadow, byref size, not overwritten)."""
        marker: str | None = None
        stride: ir.Value | None = None
        byref: int | None = None
        not_overwritten = False
        while self.k < len(self.values):
            name = marker_name(self.values[self.k])
            if name is None:
                break
            self.k += 1
            if name in ACTIVITY_MARKERS or name in STRIDED_MARKERS:
                if marker is not None:
                    raise self.error(f"two markers in a row: {marker} followed by {name}")
                marker = name
                if name in STRIDED_MARKERS:
                    stride = self._next_value(name)
                    if not stride.type.is_integer:
                        raise self.error(f"{name} must be followed by an integer byte "
                                         f"stride, not {value_text(stride)}")
            elif name == "enzyme_byref":
                byref = self._constant(name, "size in bytes")
            elif name in NOT_OVERWRITTEN_MARKERS:
                not_overwritten = True
            elif name == "enzyme_width":
                self._width()
            elif name == "enzyme_tape":
                self._tape()
            elif name == "enzyme_allocated":
                if self.p.mode not in SPLIT_MODES:
                    raise self.error("enzyme_allocated is only valid in split mode "
                                     "(__enzyme_augmentfwd / __enzyme_reverse / "
                                     "__enzyme_augmentsize)")
                size = self._constant(name, "tape size in bytes")
                if size < 0:
                    raise self.error(f"enzyme_allocated must be a size in bytes, got {size}")
                self.p.allocated = size
            elif name == "enzyme_nofree":
                self.p.nofree = True
            elif name in RETURN_MARKERS or name in ("enzyme_primal_return", "enzyme_noret"):
                continue  # read by _scan_options
            elif name == "enzyme_runtime_activity":
                continue  # irgrad always applies runtime activity (analysis.runtime_activity)
            elif name in UNSUPPORTED_MARKERS:
                raise self.error(f"{name}: {UNSUPPORTED_MARKERS[name]}")
            elif name in BATCH_MARKERS:
                raise self.error(f"{name} is a marker of __enzyme_batch, not of {self.entry}")
            else:
                raise self.error(f"unknown marker {name} (Enzyme's markers are enzyme_dup, "
                                 "enzyme_dupnoneed, enzyme_out, enzyme_const, enzyme_width, "
                                 "...; see <enzyme/enzyme.h>)")
        return marker, stride, byref, not_overwritten

    def _width(self) -> None:
        if self.width_seen:
            raise self.error("enzyme_width is given twice")
        if self.k >= len(self.values) or not isinstance(self.values[self.k], ir.ConstantInt):
            raise self.error("enzyme_width must be followed by a constant width")
        self.p.width = self.values[self.k].value  # type: ignore[attr-defined]
        self.k += 1
        self.width_seen = True
        if self.p.width < 1:
            raise self.error(f"enzyme_width must be at least 1, got {self.p.width}")
        if self.p.primals:
            raise self.error("enzyme_width must come before the function's arguments")

    def _tape(self) -> None:
        if self.p.mode not in SPLIT_MODES:
            raise self.error("enzyme_tape is only valid in split mode (__enzyme_augmentfwd / "
                             "__enzyme_reverse)")
        tape = self._next_value("enzyme_tape")
        if not tape.type.is_pointer:
            raise self.error("enzyme_tape must be followed by a pointer (the memory the tape "
                             f"is kept in), not {value_text(tape)}")
        if self.p.tape is not None:
            raise self.error("the tape is given twice")
        self.p.tape = tape
        self.p.tape_in_memory = True

    def _load_byref(self, value: ir.Value, param: ir.Type, size: int,
                    index: int) -> ir.Value:
        if not value.type.is_pointer:
            raise self.error(f"enzyme_byref before argument {index + 1} of {self.fn.name}: "
                             f"expected a pointer to the value, got {value_text(value)}")
        if store_size(param) != size:
            raise self.error(
                f"enzyme_byref, {size} before argument {index + 1} of {self.fn.name}: the "
                f"argument has type {param} ({store_size(param)} bytes)")
        return self.b.load(param, value, name="byref")

    def _check_activity(self, index: int, param: ir.Type, value: ir.Value,
                        activity: DiffeType, marker: str | None) -> None:
        where = f"argument {index + 1} of {self.fn.name} ({param})"
        mode = self.p.mode
        if not compatible(value.type, param):
            raise self.error(f"{where} is passed a value of type {value.type}")
        if activity is DiffeType.OUT:
            if not param.is_fp_or_fp_vector:
                raise self.error(
                    f"enzyme_out before {where}: only floating-point scalars can be active "
                    "(enzyme_out); use enzyme_dup/enzyme_const for pointers and enzyme_const "
                    "for integers")
            if mode is DerivativeMode.FORWARD:
                raise self.error(f"enzyme_out before {where} is not valid in forward mode "
                                 "(use enzyme_dup x, dx)")
        if activity in (DiffeType.DUP, DiffeType.DUP_NONEED):
            if param.is_integer:
                raise self.error(f"{marker or 'enzyme_dup'} before {where}: integers cannot "
                                 "have a shadow (use enzyme_const)")
            if mode in _REVERSE_MODES and param.is_fp_or_fp_vector:
                raise self.error(f"{marker} before {where}: in reverse mode a floating-point "
                                 "scalar is enzyme_out or enzyme_const")

    def _shadows(self, index: int, param: ir.Type, activity: DiffeType,
                 stride: ir.Value | None) -> list[ir.Value]:
        width = self.p.width
        queue = self.shadow_queue
        count = 1 if stride is not None else width
        got: list[ir.Value] = []
        for _ in range(count):
            if queue is not None:
                if not queue or marker_name(queue[0]) is not None:
                    raise self._missing_shadow(index, param, activity, " after enzyme_interleave")
                shadow = queue.pop(0)
            else:
                if self.k >= len(self.values) or marker_name(self.values[self.k]) is not None:
                    raise self._missing_shadow(index, param, activity, " after the value")
                shadow = self.values[self.k]
                self.k += 1
            if not compatible(shadow.type, param) or shadow.type.is_pointer != param.is_pointer:
                raise self.error(f"the shadow of argument {index + 1} of {self.fn.name} has "
                                 f"type {shadow.type}, but the argument has type {param}")
            got.append(shadow)
        if stride is None:
            return got
        if not param.is_pointer:
            raise self.error(f"{describe(activity)}v before argument {index + 1} of "
                             f"{self.fn.name}: strided shadows are for pointers, not {param}")
        lanes = [got[0]]
        for lane in range(1, width):
            offset = self.b.mul(stride, ir.ConstantInt(stride.type, lane))  # type: ignore[arg-type]
            lanes.append(self.b.gep(ir.i8, got[0], [offset], name="shadow.lane"))
        return lanes

    def _missing_shadow(self, index: int, param: ir.Type, activity: DiffeType,
                        where: str) -> DifferentiationError:
        return self.error(f"missing shadow for argument {index + 1} of {self.fn.name}: "
                          f"{describe(activity)} needs a shadow of type {param}{where}")

    def _trailing_values(self) -> None:
        """After the arguments: the result's adjoint, then the tape (split reverse)."""
        rest = self.trailing
        if not rest:
            return
        if self.p.mode is not DerivativeMode.REVERSE_GRADIENT:
            raise self.error(
                f"too many arguments in {self.entry} for {self.fn.name}: it takes "
                f"{len(self.params)}, {len(rest)} argument(s) left over")
        ret = self.fn.return_type
        wants_differet = ret.is_fp_or_fp_vector and self.p.return_marker in (
            None, DiffeType.OUT)
        if wants_differet and not (len(rest) == 1 and rest[0].type.is_pointer
                                   and self.p.tape is None):
            v = rest.pop(0)
            if not compatible(v.type, ret):
                raise self.error(f"the adjoint of the result of {self.fn.name} passed to "
                                 f"{self.entry} has type {v.type}, expected {ret}")
            self.p.differet = v
        if rest and self.p.tape is None:
            v = rest.pop(0)
            if not v.type.is_pointer:
                raise self.error(f"the tape passed to {self.entry} must be the pointer "
                                 f"__enzyme_augmentfwd returned, not {value_text(v)}")
            self.p.tape = v
        if rest:
            raise self.error(
                f"too many arguments in {self.entry} for {self.fn.name}: it takes "
                f"{len(self.params)}, {len(rest)} argument(s) left over after the "
                "adjoint of the result and the tape")
