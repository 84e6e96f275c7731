"""A C function's framework view: which arguments are inputs, outputs, sizes, constants.

Shared by :mod:`irgrad.integrations.torch`, ``.jax`` and ``.tensorflow``. A compiled C
function such as ``void f(const double *x, const double *w, double *y, int n)`` becomes a
framework op ``y = f(x, w)`` once the user says

* which pointer (or floating-point scalar) parameters are **inputs** (in call order),
* which pointer parameters are **outputs** and their shapes (``"return"`` names a
  floating-point return value),
* which integer parameters are **sizes** read off the input shapes,
* which parameters are **constants** (fixed values, never differentiated).

Two forms say the same thing::

    function(lib, "f", "x[n], w[n] -> y[n]")                        # signature string
    function(lib, "f", inputs=["x", "w"], outputs={"y": lambda x, w: x.shape},
             sizes={"n": lambda x, w: x.shape[0]})                 # explicit

In the string form a dimension is a name, an integer or ``integer*name`` (``[2*l, 4*b]``);
an integer C parameter with the name of a dimension receives its value (an integer
constant, ``constants={"steps": 50}``, can be a dimension, e.g. of an output); ``a`` (no
brackets) is a floating-point scalar parameter, ``a[]`` a pointer to one element, and
``return`` (outputs only) the function's floating-point return value. Input ranks are
known in the string form (or from ``inputs={"x": 1, ...}``), so an input with one extra
leading dimension is a **batch**: the C function runs once per batch item, inputs without
the extra dimension are shared by every item (their gradients are summed).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

import numpy as np

from irgrad.errors import UsageError
from irgrad.integrations.csig import CParam, CSignature, c_signature

RETURN = "return"


@dataclass(frozen=True)
class Dim:
    """One declared dimension: ``factor * name`` (``name`` None: the literal ``factor``)."""

    name: str | None
    factor: int = 1

    def __str__(self) -> str:
        if self.name is None:
            return str(self.factor)
        return self.name if self.factor == 1 else f"{self.factor}*{self.name}"


@dataclass(frozen=True)
class ShapeInfo:
    """What the shape callables see for one input: ``.shape``, ``.ndim``, ``.dtype``."""

    shape: tuple[int, ...]
    dtype: np.dtype[Any]

    @property
    def ndim(self) -> int:
        return len(self.shape)


ShapeFn = Callable[..., Any]


@dataclass(frozen=True)
class Binding:
    """Everything one call needs that follows from the input shapes."""

    sizes: dict[str, int]
    batch: int | None  # number of batch items, None when unbatched
    batched: tuple[bool, ...]  # per input: has the leading batch dimension
    out_shapes: tuple[tuple[int, ...], ...]  # per output, batch dimension included
    out_dtype: np.dtype[Any]


@dataclass
class FunctionSpec:
    """The validated framework view of one C function (see the module docstring)."""

    name: str
    function: Any  # lib[name]: the primal callable
    library: Any
    signature: CSignature
    inputs: list[str]
    outputs: list[str]
    input_dims: dict[str, tuple[Dim, ...] | None]
    output_dims: dict[str, tuple[Dim, ...]] = field(default_factory=dict)
    output_fns: dict[str, ShapeFn | None] = field(default_factory=dict)
    size_fns: dict[str, ShapeFn] = field(default_factory=dict)
    constants: dict[str, Any] = field(default_factory=dict)
    nondiff: frozenset[str] = frozenset()
    convert: bool = False
    # Set when a derivative with Const pointer inputs failed ("mixed activity": e.g. a
    # select between a constant input and an active buffer); from then on every
    # floating-point pointer input gets a shadow (a scratch one when no gradient is wanted).
    shadow_all_inputs: bool = False
    _bindings: dict[Any, Binding] = field(default_factory=dict, repr=False)

    # ---- parameter facts

    def param(self, name: str) -> CParam:
        return self.signature.param(name)

    def c_dtype(self, name: str) -> np.dtype[Any]:
        if name == RETURN:
            assert self.signature.ret is not None
            return self.signature.ret.dtype
        return self.param(name).dtype

    def differentiable(self, name: str) -> bool:
        """Can a gradient flow into input ``name`` (floating-point and not marked nondiff)?"""
        return name not in self.nondiff and self.c_dtype(name).kind == "f"

    def where(self) -> str:
        return f"irgrad op '{self.name}'"

    def check_arity(self, args: Sequence[Any]) -> None:
        """A framework op is called with exactly one value per declared input."""
        if len(args) != len(self.inputs):
            raise UsageError(f"{self.where()}: expected {len(self.inputs)} inputs "
                             f"({', '.join(self.inputs)}), got {len(args)}")

    # ---- shapes

    def bind(self, infos: Sequence[ShapeInfo]) -> Binding:
        """Check the inputs' count, ranks and dtypes; derive sizes, batch, output shapes.

        Cached per (shapes, dtypes): a training loop binds once.
        """
        key = tuple((tuple(i.shape), np.dtype(i.dtype).str) for i in infos)
        found = self._bindings.get(key)
        if found is None:
            found = self._bind(infos)
            if len(self._bindings) >= 64:
                self._bindings.clear()
            self._bindings[key] = found
        return found

    def _bind(self, infos: Sequence[ShapeInfo]) -> Binding:
        if len(infos) != len(self.inputs):
            raise UsageError(
                f"{self.where()}: expected {len(self.inputs)} inputs "
                f"({', '.join(self.inputs)}), got {len(infos)}"
            )
        self._check_dtypes(infos)
        batched, batch = self._batch(infos)
        items = [
            ShapeInfo(i.shape[1:] if b else i.shape, i.dtype)
            for i, b in zip(infos, batched, strict=True)
        ]
        dims = self._bind_dims(items)
        sizes = self._sizes(items, dims)
        out_shapes = []
        for out in self.outputs:
            shape = self._out_shape(out, items, dims)
            out_shapes.append(((batch,) if batch is not None else ()) + shape)
        return Binding(sizes, batch, tuple(batched), tuple(out_shapes), self._out_dtype(infos))

    def _check_dtypes(self, infos: Sequence[ShapeInfo]) -> None:
        for name, info in zip(self.inputs, infos, strict=True):
            want = self.c_dtype(name)
            got = np.dtype(info.dtype)
            if got == want:
                continue
            if self.convert and got.kind in "fiub" and want.kind in "fiu":
                continue
            hint = "" if self.convert else "; pass convert=True to cast"
            raise UsageError(
                f"{self.where()}: input '{name}' must be {want.name} (C parameter "
                f"'{self.param(name).c_type}'), got {got.name}{hint}"
            )

    def _out_dtype(self, infos: Sequence[ShapeInfo]) -> np.dtype[Any]:
        c_types = [self.c_dtype(o) for o in self.outputs]
        c_out = c_types[0] if c_types else np.dtype(np.float64)
        if self.convert:
            floats = [np.dtype(i.dtype) for i in infos if np.dtype(i.dtype).kind == "f"]
            if floats:
                return np.result_type(*floats)
        return c_out

    def _batch(self, infos: Sequence[ShapeInfo]) -> tuple[list[bool], int | None]:
        batched: list[bool] = []
        batch: int | None = None
        first = ""
        for name, info in zip(self.inputs, infos, strict=True):
            dims = self.input_dims[name]
            if dims is None:
                batched.append(False)
                continue
            if info.ndim == len(dims):
                batched.append(False)
                continue
            if info.ndim != len(dims) + 1:
                decl = "[" + ", ".join(map(str, dims)) + "]"
                raise UsageError(
                    f"{self.where()}: input '{name}' must have {len(dims)} dimension(s) "
                    f"{decl} (or {len(dims) + 1} with a leading batch dimension), got "
                    f"shape {tuple(info.shape)}"
                )
            batched.append(True)
            if batch is None:
                batch, first = info.shape[0], name
            elif info.shape[0] != batch:
                raise UsageError(
                    f"{self.where()}: batch sizes differ: '{first}' has {batch} items, "
                    f"'{name}' has {info.shape[0]}"
                )
        return batched, batch

    def _bind_dims(self, items: Sequence[ShapeInfo]) -> dict[str, int]:
        values: dict[str, int] = {
            k: int(v) for k, v in self.constants.items() if self.param(k).kind == "int"}
        origin: dict[str, str] = {k: f"constant {k}" for k in values}
        for name, info in zip(self.inputs, items, strict=True):
            for axis, (dim, extent) in enumerate(
                zip(self.input_dims[name] or (), info.shape, strict=False)
            ):
                if dim.name is None:
                    if extent != dim.factor:
                        raise UsageError(
                            f"{self.where()}: input '{name}' axis {axis} must have length "
                            f"{dim.factor}, got shape {tuple(info.shape)}"
                        )
                    continue
                if extent % dim.factor:
                    raise UsageError(
                        f"{self.where()}: input '{name}' axis {axis} is {dim} but its "
                        f"length {extent} is not a multiple of {dim.factor}"
                    )
                value = extent // dim.factor
                if dim.name in values and values[dim.name] != value:
                    source = origin[dim.name]
                    source = source if source.startswith("constant") else f"input '{source}'"
                    raise UsageError(
                        f"{self.where()}: dimension '{dim.name}' is {values[dim.name]} from "
                        f"{source} but {value} from input '{name}' "
                        f"(shape {tuple(info.shape)})"
                    )
                values[dim.name] = value
                origin.setdefault(dim.name, name)
        return values

    def _sizes(self, items: Sequence[ShapeInfo], dims: dict[str, int]) -> dict[str, int]:
        sizes: dict[str, int] = {}
        for p in self.signature.params:
            if p.name in self.size_fns:
                sizes[p.name] = int(self.size_fns[p.name](*items))
            elif p.kind == "int" and p.name in dims and p.name not in self.constants:
                sizes[p.name] = dims[p.name]
        return sizes

    def _out_shape(
        self, out: str, items: Sequence[ShapeInfo], dims: dict[str, int]
    ) -> tuple[int, ...]:
        if out in self.output_dims:
            return tuple(
                d.factor if d.name is None else d.factor * dims[d.name]
                for d in self.output_dims[out]
            )
        fn = self.output_fns.get(out)
        if fn is None:
            return ()
        shape = fn(*items)
        return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(
            int(s) for s in shape
        )


# --------------------------------------------------------------------------- building


_ARG = re.compile(r"\s*([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*(?:,|$)")
_DIM = re.compile(r"^\s*(?:(\d+)\s*\*\s*)?([A-Za-z_]\w*)\s*$|^\s*(\d+)\s*$")


def parse_signature(text: str) -> tuple[list[tuple[str, tuple[Dim, ...] | None]], ...]:
    """``"x[n], w[n] -> y[n]"`` -> ([(x, dims), (w, dims)], [(y, dims)]) (scalars: None)."""
    if text.count("->") != 1:
        raise UsageError(f"signature {text!r}: expected 'inputs -> outputs' with one '->'")
    lhs, rhs = text.split("->")
    return _parse_args(lhs, text), _parse_args(rhs, text)


def _parse_args(part: str, text: str) -> list[tuple[str, tuple[Dim, ...] | None]]:
    args: list[tuple[str, tuple[Dim, ...] | None]] = []
    pos, part = 0, part.strip()
    while pos < len(part):
        m = _ARG.match(part, pos)
        if m is None or m.end() == pos:
            raise UsageError(
                f"signature {text!r}: cannot read an argument at {part[pos:]!r} "
                "(expected name, name[] or name[d1, d2, ...])"
            )
        name, brackets = m.group(1), m.group(2)
        dims = None if brackets is None else _parse_dims(brackets[1:-1], name, text)
        args.append((name, dims))
        pos = m.end()
    return args


def _parse_dims(body: str, name: str, text: str) -> tuple[Dim, ...]:
    if not body.strip():
        return ()
    dims = []
    for token in body.split(","):
        m = _DIM.match(token)
        if m is None:
            raise UsageError(
                f"signature {text!r}: dimension {token.strip()!r} of '{name}' must be a "
                "name, an integer or integer*name"
            )
        if m.group(3) is not None:
            dims.append(Dim(None, int(m.group(3))))
        else:
            dims.append(Dim(m.group(2), int(m.group(1) or 1)))
    return tuple(dims)


class SpecOptions(TypedDict, total=False):
    """The keyword options of :func:`make_spec`, which every framework's ``function``
    passes through unchanged (``**options: Unpack[SpecOptions]``)."""

    inputs: Sequence[str] | Mapping[str, int | None] | None
    outputs: Sequence[str] | Mapping[str, ShapeFn | tuple[int, ...] | None] | None
    sizes: Mapping[str, ShapeFn] | None
    constants: Mapping[str, Any] | None
    nondiff: Sequence[str]
    convert: bool


def make_spec(
    lib: Any,
    name: str,
    signature: str | None = None,
    *,
    inputs: Sequence[str] | Mapping[str, int | None] | None = None,
    outputs: Sequence[str] | Mapping[str, ShapeFn | tuple[int, ...] | None] | None = None,
    sizes: Mapping[str, ShapeFn] | None = None,
    constants: Mapping[str, Any] | None = None,
    nondiff: Sequence[str] = (),
    convert: bool = False,
) -> FunctionSpec:
    """Validate a framework view of ``lib[name]`` (see the module docstring)."""
    csig = c_signature(lib, name)
    spec = FunctionSpec(
        name=name, function=lib[name], library=lib, signature=csig, inputs=[], outputs=[],
        input_dims={}, constants=dict(constants or {}), nondiff=frozenset(nondiff),
        convert=convert, size_fns=dict(sizes or {}),
    )
    if signature is not None:
        if inputs is not None or outputs is not None:
            raise UsageError(f"{spec.where()}: give a signature string or inputs=/outputs=, "
                             "not both")
        ins, outs = parse_signature(signature)
        for arg, dims in ins:
            spec.inputs.append(arg)
            spec.input_dims[arg] = dims if dims is not None else ()
        for arg, dims in outs:
            spec.outputs.append(arg)
            if arg != RETURN:
                if dims is None:
                    raise UsageError(f"{spec.where()}: output '{arg}' needs a shape "
                                     f"('{arg}[]' for one element)")
                spec.output_dims[arg] = dims
        _check_output_dims(spec)
    else:
        if inputs is None or outputs is None:
            raise UsageError(f"{spec.where()}: give a signature string, or inputs= and "
                             "outputs=")
        if isinstance(inputs, Mapping):
            for arg, ndim in inputs.items():
                spec.inputs.append(arg)
                spec.input_dims[arg] = None if ndim is None else tuple(
                    Dim(f"_{arg}{i}") for i in range(ndim))
        else:
            spec.inputs.extend(inputs)
            spec.input_dims.update({arg: None for arg in inputs})
        out_map = outputs if isinstance(outputs, Mapping) else {o: None for o in outputs}
        for arg, shape in out_map.items():
            spec.outputs.append(arg)
            if shape is None or callable(shape):
                spec.output_fns[arg] = shape
            else:
                fixed = tuple(shape) if not isinstance(shape, int) else (shape,)
                spec.output_fns[arg] = lambda *_, s=fixed: s
    _check_coverage(spec)
    return spec


def as_op(spec: FunctionSpec, op: Callable[..., Any], doc: str) -> Callable[..., Any]:
    """``op`` named after the C function, documented with ``doc``, its spec in ``op.spec``."""
    op.__name__ = spec.name
    op.__doc__ = doc
    op.spec = spec  # type: ignore[attr-defined]
    return op


def _check_output_dims(spec: FunctionSpec) -> None:
    known = {d.name for dims in spec.input_dims.values() for d in dims or () if d.name}
    known |= set(spec.constants)  # integer constants may be dimensions too
    for out, dims in spec.output_dims.items():
        for d in dims:
            if d.name is not None and d.name not in known:
                raise UsageError(
                    f"{spec.where()}: dimension '{d.name}' of output '{out}' does not "
                    "appear in any input"
                )


def _check_coverage(spec: FunctionSpec) -> None:
    """Every C parameter has exactly one role; every named role is a C parameter."""
    csig = spec.signature
    params = {p.name: p for p in csig.params}
    roles: dict[str, str] = {}
    dims = {d.name for ds in spec.input_dims.values() for d in ds or () if d.name}

    def claim(arg: str, role: str) -> None:
        if arg == RETURN and role == "output":
            if csig.ret is None or csig.ret.dtype.kind != "f":
                raise UsageError(f"{spec.where()}: 'return' is an output but '{spec.name}' "
                                 "does not return a floating-point value")
            return
        if arg not in params:
            raise UsageError(
                f"{spec.where()}: '{arg}' ({role}) is not a parameter of '{spec.name}'; its "
                f"parameters are {', '.join(params) or '(none)'}"
            )
        if arg in roles:
            raise UsageError(f"{spec.where()}: parameter '{arg}' is both {roles[arg]} and "
                             f"{role}")
        roles[arg] = role

    for arg in spec.inputs:
        claim(arg, "input")
    for arg in spec.outputs:
        claim(arg, "output")
    for arg in spec.size_fns:
        claim(arg, "size")
    for arg in spec.constants:
        claim(arg, "constant")
    for arg in dims:
        if arg in params and arg not in roles and params[arg].kind == "int":
            roles[arg] = "size"
    _check_kinds(spec, params, roles)
    missing = [p for p in params if p not in roles]
    if missing:
        raise UsageError(
            f"{spec.where()}: parameter(s) {', '.join(missing)} of '{spec.name}' have no "
            "role: list them as inputs, outputs, sizes (or dimension names) or constants"
        )
    if csig.ret is not None and csig.ret.dtype.kind == "f" and RETURN not in spec.outputs:
        raise UsageError(f"{spec.where()}: '{spec.name}' returns {csig.ret.c_type}: list "
                         "'return' among the outputs")
    for arg in spec.nondiff:
        if arg not in spec.inputs:
            raise UsageError(f"{spec.where()}: nondiff '{arg}' is not an input")


def _check_kinds(spec: FunctionSpec, params: Mapping[str, CParam], roles: dict[str, str]) -> None:
    for arg, role in roles.items():
        p = params[arg]
        if role == "output" and p.kind != "pointer":
            raise UsageError(f"{spec.where()}: output '{arg}' must be a pointer parameter, "
                             f"it is '{p.c_type}'")
        if role == "size" and p.kind != "int":
            raise UsageError(f"{spec.where()}: size '{arg}' must be an integer parameter, "
                             f"it is '{p.c_type}'")
        if role == "input":
            dims = spec.input_dims.get(arg)
            if p.kind == "pointer":
                continue
            if p.kind == "int":
                raise UsageError(f"{spec.where()}: input '{arg}' is '{p.c_type}': integers "
                                 "are sizes or constants, not inputs")
            if dims:  # a scalar parameter declared with dimensions
                raise UsageError(f"{spec.where()}: input '{arg}' is the scalar '{p.c_type}', "
                                 "declare it without dimensions")
