"""The user's registrations and attributes (Enzyme's API): read from the module, checked,
and turned into what the AD engine consults.

Registration globals (matched by name, as Enzyme does, so mangled C++ names and numbered
variants such as ``__enzyme_inactivefn2`` count):

* ``__enzyme_register_gradient_<name> = {fn, augmented_forward, reverse}``,
  ``__enzyme_register_derivative_<name> = {fn, forward}``,
  ``__enzyme_register_splitderivative_<name> = {fn, augmented_forward, forward}``:
  custom derivatives (:mod:`irgrad.ad.core.custom_derivatives`);
* ``__enzyme_inactivefn = {fn, ...}``, ``__enzyme_inactive_global = {&global, ...}``:
  no derivatives;
* ``__enzyme_function_like = {fn, "log1p"}``: ``fn`` has the derivative of a known
  function (a C math function, an allocator such as ``malloc``, or ``free``);
* ``__enzyme_allocation_like = {alloc, size_index, "free_arg_indices", free_fn}``: an
  allocator whose memory ``free_fn`` frees; ``free_arg_indices`` gives, for each parameter
  of ``free_fn``, the allocator argument passed there (``-1``: the allocated pointer).

Annotations (``llvm.global.annotations``), which ``irgrad cc`` and the Python API make
from ``__attribute__((enzyme_inactive))`` and ``__attribute__((enzyme_function_like(
"log1p")))``, and which plain clang users write as ``__attribute__((annotate(
"enzyme_inactive")))``, ``annotate("enzyme_function_like=log1p")`` and
``annotate("enzyme_nofree")``.

Anything named like a registration that irgrad cannot honour is an error at its source
line: never silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from irgrad import ir
from irgrad.ad.api.custom_signatures import check_forward, check_gradient, check_split_forward
from irgrad.ad.core.custom_derivatives import CustomDerivatives, CustomForward, CustomGradient
from irgrad.ad.core.diagnostics import (
    annotation_location,
    function_location,
    global_location,
)
from irgrad.ad.core.shadow_globals import USER_TABLE, annotated_shadow
from irgrad.ad.rules import lookup_call
from irgrad.analysis.known_functions import (
    ALLOCATORS,
    FREE_FUNCTIONS,
    Allocator,
    ModuleFunctions,
)
from irgrad.errors import DifferentiationError, SourceLocation

GRADIENT = "__enzyme_register_gradient"
DERIVATIVE = "__enzyme_register_derivative"
SPLIT_DERIVATIVE = "__enzyme_register_splitderivative"
INACTIVE_FN = "__enzyme_inactivefn"
# inactive, and (Enzyme's hint) not a barrier to its caching decisions: irgrad's
# analyses already treat an inactive call's effects on the data they cache as such
INACTIVE_NOBLOCK_FN = "__enzyme_inactivenoblockfn"
INACTIVE_GLOBAL = "__enzyme_inactive_global"
FUNCTION_LIKE = "__enzyme_function_like"
ALLOCATION_LIKE = "__enzyme_allocation_like"
_PREFIX = "__enzyme_"
_ANNOTATIONS = "llvm.global.annotations"


@dataclass
class Registrations:
    """What a module declares about its functions, read from its registrations."""

    custom: CustomDerivatives = field(default_factory=CustomDerivatives)
    inactive: set[str] = field(default_factory=set)
    inactive_globals: set[str] = field(default_factory=set)
    math_like: dict[str, str] = field(default_factory=dict)
    allocators: dict[str, Allocator] = field(default_factory=dict)
    deallocators: dict[str, int] = field(default_factory=dict)
    # function name -> attributes to add before the pre-AD pipeline: the functions a
    # registration names must stay out of line (noinline), or it could not apply
    preserve: dict[str, set[str]] = field(default_factory=dict)

    def known(self) -> ModuleFunctions:
        return ModuleFunctions(
            inactive=frozenset(self.inactive),
            inactive_globals=frozenset(self.inactive_globals),
            math_like=dict(self.math_like),
            allocators=dict(self.allocators),
            deallocators=dict(self.deallocators),
        )

    def keep(self, fn: ir.Function, *attrs: str) -> None:
        self.preserve.setdefault(fn.name, set()).update(("noinline", *attrs))


def read_registrations(module: ir.Module) -> Registrations:
    """Every registration and ``enzyme_*`` annotation of ``module``, checked."""
    reg = Registrations()
    for gv in list(module.globals):
        if gv.name == _ANNOTATIONS:
            _read_annotations(module, gv, reg)
        elif gv.name == USER_TABLE:
            continue  # the user's shadow-global table: read by irgrad.ad.core.shadow_globals
        elif _PREFIX in gv.name:
            _read_global(module, gv, reg)
    for name in reg.preserve:
        fn = module.get_function(name)
        if fn is not None and fn.has_attribute("alwaysinline"):
            raise DifferentiationError(
                f"{name} is always_inline: its calls would be inlined before AD and the "
                "registration naming it could not apply; remove always_inline",
                function_location(fn))
    return reg


def has_registrations(global_names: list[str]) -> bool:
    """Whether a module with these globals may hold registrations (a quick test)."""
    return any(_PREFIX in n or n == _ANNOTATIONS for n in global_names)


# -- registration globals ----------------------------------------------------------------


class _Reader:
    def __init__(self, module: ir.Module, gv: ir.GlobalVariable, kind: str) -> None:
        self.module = module
        self.gv = gv
        self.kind = kind

    def fail(self, message: str) -> DifferentiationError:
        return DifferentiationError(f"{self.gv.name}: {message}",
                                    global_location(self.gv, self.module))

    def elements(self, low: int, high: int | None, shape: str) -> list[ir.Value]:
        init = self.gv.initializer
        if init is None:
            raise self.fail(f"the {self.kind} registration is declared but not defined in "
                            f"this module; define it as {shape}")
        if isinstance(init, ir.ConstantAggregate):
            elems = list(init.elements)
        elif isinstance(init, ir.ConstantAggregateZero):
            elems = [ir.ConstantPointerNull(ir.ptr)] * _length(init.type)
        else:
            elems = [init]
        if len(elems) < low or (high is not None and len(elems) > high):
            raise self.fail(f"expected {shape}, found {len(elems)} element(s)")
        return elems

    def function(self, value: ir.Value, role: str) -> ir.Function:
        v = _strip(value)
        if isinstance(v, ir.Function):
            return v
        what = "a null pointer" if v.is_null_value() else _describe(v)
        raise self.fail(f"the {role} must be a function, not {what}")

    def string(self, value: ir.Value, role: str) -> str:
        v = _strip(value)
        if isinstance(v, ir.GlobalVariable) and isinstance(v.initializer, ir.ConstantDataString):
            return v.initializer.data.split(b"\0", 1)[0].decode("utf-8", "replace")
        raise self.fail(f"the {role} must be a string literal, not {_describe(v)}")

    def integer(self, value: ir.Value, role: str) -> int:
        v = value
        while isinstance(v, ir.ConstantExpr) and v.opcode in ("inttoptr", "bitcast"):
            v = v.operands[0]
        if isinstance(v, ir.ConstantInt):
            return v.signed_value
        if isinstance(v, ir.ConstantPointerNull):
            return 0
        raise self.fail(f"the {role} must be an integer constant cast to void*, not "
                        f"{_describe(v)}")


def _length(t: ir.Type) -> int:
    if isinstance(t, ir.ArrayType):
        return t.count
    return len(t.elements) if t.is_struct else 1  # type: ignore[attr-defined]


def _strip(v: ir.Value) -> ir.Value:
    while True:
        if isinstance(v, ir.ConstantExpr) and (v.opcode in ("bitcast", "addrspacecast") or (
                v.opcode == "getelementptr" and all(
                    isinstance(i, ir.ConstantInt) and i.value == 0 for i in v.operands[1:]))):
            v = v.operands[0]
        elif isinstance(v, ir.GlobalAlias) and not isinstance(v, ir.GlobalIFunc):
            v = v.aliasee
        else:
            return v


def _describe(v: ir.Value) -> str:
    if isinstance(v, ir.GlobalValue):
        kind = ("the global variable" if isinstance(v, ir.GlobalVariable) else
                "the function" if isinstance(v, ir.Function) else "the value")
        return f"{kind} {v.name}"
    if isinstance(v, ir.ConstantExpr) and v.opcode == "inttoptr":
        return "an integer"
    return f"a constant of type {v.type}"


def _read_global(module: ir.Module, gv: ir.GlobalVariable, reg: Registrations) -> None:
    for kind, read in _KINDS:
        if kind in gv.name:
            read(_Reader(module, gv, kind), reg)
            return
    raise DifferentiationError(
        f"{gv.name}: irgrad does not know this Enzyme registration (known: "
        f"{', '.join(k + '*' for k, _ in _KINDS)}); it would be ignored, so it is an error",
        global_location(gv, module))


def _gradient(r: _Reader, reg: Registrations) -> None:
    shape = "{fn, augmented_forward, reverse}"
    fn, aug, rev = (r.function(e, role) for e, role in zip(
        r.elements(3, 3, shape), ("function", "augmented forward pass", "reverse pass"),
        strict=True))
    if _same(reg.custom.gradients.get(fn), aug, rev):
        return  # the same registration in two linked units
    _unique(r, reg.custom.gradients, fn)
    reg.custom.gradients[fn] = check_gradient(fn, aug, rev, r.gv.name, r.fail)
    for f in (fn, aug, rev):
        reg.keep(f)


def _derivative(r: _Reader, reg: Registrations) -> None:
    fn, fwd = (r.function(e, role) for e, role in zip(
        r.elements(2, 2, "{fn, forward}"), ("function", "forward derivative"), strict=True))
    if _same(reg.custom.forwards.get(fn), None, fwd):
        return
    _unique(r, reg.custom.forwards, fn)
    reg.custom.forwards[fn] = check_forward(fn, fwd, r.gv.name, r.fail)
    for f in (fn, fwd):
        reg.keep(f)


def _split_derivative(r: _Reader, reg: Registrations) -> None:
    shape = "{fn, augmented_forward, forward}"
    fn, aug, fwd = (r.function(e, role) for e, role in zip(
        r.elements(3, 3, shape), ("function", "augmented forward pass", "forward derivative"),
        strict=True))
    if _same(reg.custom.forwards.get(fn), aug, fwd):
        return
    _unique(r, reg.custom.forwards, fn)
    reg.custom.forwards[fn] = check_split_forward(fn, aug, fwd, r.gv.name, r.fail)
    for f in (fn, aug, fwd):
        reg.keep(f)


def _same(other: object, first: ir.Function | None, last: ir.Function) -> bool:
    """``other`` (a registration read before) names the same derivative functions."""
    if isinstance(other, CustomGradient):
        return other.augmented.function is first and other.reverse.function is last
    if isinstance(other, CustomForward):
        aug = other.augmented.function if other.augmented is not None else None
        return aug is first and other.forward.function is last
    return False


def _unique(r: _Reader, table: dict[ir.Function, object], fn: ir.Function) -> None:
    other = table.get(fn)
    if other is not None:
        raise r.fail(f"{fn.name} already has a custom derivative for this mode "
                     f"({other.source})")  # type: ignore[attr-defined]


def _inactive_fn(r: _Reader, reg: Registrations) -> None:
    for e in r.elements(1, None, "{fn, ...}"):
        fn = r.function(e, "inactive function")
        reg.inactive.add(fn.name)
        reg.keep(fn)


def _inactive_global(r: _Reader, reg: Registrations) -> None:
    for e in r.elements(1, None, "{&global, ...}"):
        v = _strip(e)
        if not isinstance(v, ir.GlobalVariable):
            raise r.fail(f"each element must be the address of a global variable, not "
                         f"{_describe(v)}")
        reg.inactive_globals.add(v.name)


def _function_like(r: _Reader, reg: Registrations) -> None:
    fn_value, name_value = r.elements(2, 2, '{fn, "name"}')
    fn = r.function(fn_value, "function")
    make_like(fn, r.string(name_value, "name of the function it is like"), reg, r.fail)


def make_like(fn: ir.Function, like: str, reg: Registrations,
              fail: Callable[[str], Exception]) -> None:
    """Give ``fn`` the derivative of the known function ``like``."""
    reg.keep(fn)
    if like in FREE_FUNCTIONS:
        if not fn.args or not fn.args[0].type.is_pointer:
            raise fail(f"{fn.name} is declared like {like}, but its first parameter is not "
                       "the pointer to free")
        reg.deallocators[fn.name] = 0
        return
    model = ALLOCATORS.get(like)
    if model is not None:
        params = fn.function_type.params
        used = [*model.size_args, *([model.reallocates] if model.reallocates is not None
                                    else [])]
        if (not fn.return_type.is_pointer or len(params) <= max(used)
                or not all(params[k].is_integer for k in model.size_args)):
            raise fail(f"{fn.name} is declared like {like}, but its signature "
                       f"({fn.function_type}) is not that of {like}")
        reg.allocators[fn.name] = replace(model, name=fn.name)
        return
    rule = lookup_call(like)
    if rule is None:
        raise fail(f"irgrad knows no function '{like}' to differentiate {fn.name} like (a C "
                   "math function with a derivative rule, such as log1p, an allocator such "
                   "as malloc, or free)")
    params = fn.function_type.params
    kinds = ["float" if p.is_fp_or_fp_vector else "ptr" if p.is_pointer else "int"
             for p in params]
    if kinds != list(rule.operand_kinds) or (
            rule.result_kind == "float" and not fn.return_type.is_fp_or_fp_vector):
        raise fail(f"{fn.name} ({fn.function_type}) is declared like {like}, whose "
                   f"arguments are ({', '.join(rule.operand_kinds)}) and result "
                   f"{rule.result_kind}: the signatures must agree")
    reg.math_like[fn.name] = like


def _allocation_like(r: _Reader, reg: Registrations) -> None:
    shape = '{alloc, (void*)size_index, "free_arg_indices", free_fn}'
    alloc_v, size_v, free_args_v, free_v = r.elements(4, 4, shape)
    alloc = r.function(alloc_v, "allocation function")
    size = r.integer(size_v, "size argument index")
    text = r.string(free_args_v, "list of free_fn's arguments")
    free = r.function(free_v, "deallocation function")
    params = alloc.function_type.params
    if not alloc.return_type.is_pointer:
        raise r.fail(f"the allocation function {alloc.name} must return a pointer, not "
                     f"{alloc.return_type}")
    if not 0 <= size < len(params) or not params[size].is_integer:
        raise r.fail(f"the size argument index {size} does not name an integer parameter "
                     f"of {alloc.name} ({alloc.function_type})")
    try:
        indices = tuple(int(t) for t in text.split(",")) if text.strip() else ()
    except ValueError:
        raise r.fail(f"the free argument list '{text}' must be comma-separated argument "
                     "indices of the allocation function (-1: the allocated pointer)") from None
    free_params = free.function_type.params
    if len(indices) != len(free_params) or indices.count(-1) != 1 or any(
            not -1 <= i < len(params) for i in indices):
        raise r.fail(
            f"the free argument list '{text}' must give, for each of the "
            f"{len(free_params)} parameter(s) of {free.name}, an argument index of "
            f"{alloc.name} (0..{len(params) - 1}) or -1 for the allocated pointer (exactly "
            "once)")
    reg.allocators[alloc.name] = Allocator(alloc.name, (size,), free_function=free.name,
                                           free_args=indices)
    reg.deallocators[free.name] = indices.index(-1)
    reg.keep(alloc)
    reg.keep(free)


# Enzyme matches by substring: the longer names first
_KINDS: list[tuple[str, Callable[[_Reader, Registrations], None]]] = [
    (SPLIT_DERIVATIVE, _split_derivative),
    (GRADIENT, _gradient),
    (DERIVATIVE, _derivative),
    (INACTIVE_NOBLOCK_FN, _inactive_fn),
    (INACTIVE_FN, _inactive_fn),
    (INACTIVE_GLOBAL, _inactive_global),
    (FUNCTION_LIKE, _function_like),
    (ALLOCATION_LIKE, _allocation_like),
]


# -- annotations ----------------------------------------------------------------------------


def _read_annotations(module: ir.Module, gv: ir.GlobalVariable, reg: Registrations) -> None:
    init = gv.initializer
    if not isinstance(init, ir.ConstantAggregate):
        return
    for entry in init.elements:
        if not isinstance(entry, ir.ConstantAggregate) or len(entry.elements) < 4:
            continue
        target, text_v, file_v, line_v = (_strip(e) for e in entry.elements[:4])
        text = _c_string(text_v)
        if text is None or not text.startswith("enzyme_"):
            continue  # the user's own annotations
        filename = _c_string(file_v) or (module.source_filename or "<input>")
        line = line_v.value if isinstance(line_v, ir.ConstantInt) else 0
        loc = annotation_location(filename, line, text.split("=", 1)[0])
        if text == "enzyme_shadow":  # read by irgrad.ad.core.shadow_globals
            _check_shadow_annotation(target, entry.elements[4:], loc)
            continue
        _annotation(target, text, loc, reg)


def _check_shadow_annotation(target: ir.Value, extra: list[ir.Value],
                             loc: SourceLocation) -> None:
    """``__attribute__((enzyme_shadow(G_d))) double G;``: the user's shadow of ``G``."""
    shadow = annotated_shadow(extra[0]) if extra else None
    if not isinstance(target, ir.GlobalVariable):
        raise DifferentiationError("the attribute enzyme_shadow applies to global variables, "
                                   f"not to {getattr(target, 'name', '?')}", loc)
    if shadow is None:
        raise DifferentiationError(
            f"enzyme_shadow on {target.name} must name its shadow, a global variable of "
            "the same type: __attribute__((enzyme_shadow(shadow_variable)))", loc)
    if shadow.value_type != target.value_type:
        raise DifferentiationError(
            f"the shadow {shadow.name} of {target.name} has type {shadow.value_type}, not "
            f"{target.value_type}", loc)


def _c_string(v: ir.Value) -> str | None:
    if isinstance(v, ir.GlobalVariable) and isinstance(v.initializer, ir.ConstantDataString):
        return v.initializer.data.split(b"\0", 1)[0].decode("utf-8", "replace")
    return None


def _annotation(target: ir.Value, text: str, loc: SourceLocation,
                reg: Registrations) -> None:
    def fail(message: str) -> DifferentiationError:
        return DifferentiationError(message, loc)

    name = getattr(target, "name", "?")
    if isinstance(target, ir.Function):
        if text in ("enzyme_inactive", "enzyme_inactivefn", "enzyme_inactive_noblock",
                    "enzyme_inactivenoblockfn"):
            reg.inactive.add(name)
            reg.keep(target)
            return
        if text == "enzyme_nofree":
            reg.keep(target, "nofree")
            return
        if text.startswith("enzyme_function_like="):
            make_like(target, text.split("=", 1)[1], reg, fail)
            return
    elif isinstance(target, ir.GlobalVariable):
        if text in ("enzyme_inactive", "enzyme_inactive_noblock"):
            reg.inactive_globals.add(name)
            return
        if text in ("enzyme_nofree", "enzyme_inactivefn") or text.startswith(
                "enzyme_function_like"):
            raise fail(f"the attribute {text.split('=')[0]} applies to functions, not to "
                       f"the global variable {name}")
    raise fail(f"irgrad does not support the attribute {text.split('=')[0]} (on {name}); "
               "it would be ignored, so it is an error (supported: enzyme_inactive, "
               "enzyme_function_like(\"name\"), enzyme_nofree)")


__all__ = ["Registrations", "has_registrations", "make_like", "read_registrations"]
