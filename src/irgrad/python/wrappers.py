"""C-ABI wrapper functions (LLVM IR text) that ask irgrad's AD for one derivative.

For ``lib.autodiff("f", Duplicated(x, dx), Active(y), Const(n))`` the Python API appends

    declare double @__enzyme_autodiff_irgrad_<key>(ptr, ...)
    define void @__irgrad_rev_<key>(ptr %p0, ptr %s0, double %p1, i32 %p2, ptr %out) {
      %r = call double (ptr, ...) @__enzyme_autodiff_irgrad_<key>(ptr @f,
             metadata !"enzyme_dup", ptr %p0, ptr %s0, metadata !"enzyme_out", double %p1,
             metadata !"enzyme_const", i32 %p2)
      store double %r, ptr %out      ; results go to a buffer of doubles
      ret void
    }

to the module; the pipeline then lowers the ``__enzyme_*`` call like any user's call.
Every wrapper has the same shape: each parameter of ``f`` (followed by its shadow when
duplicated), the seed of a floating-point return (reverse mode), then ``ptr %out``: a
buffer of doubles receiving [primal result (when asked)] + [derivatives of the active
scalars (reverse) | tangent of the result (forward)]. Reverse mode seeds the result with a
run-time value by differentiating ``seed * f(...)`` (a small internal function) with the
seed constant: linearity makes that the vector-Jacobian product with the seed.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from irgrad.errors import UsageError
from irgrad.python.signature import Signature

MODES = ("reverse", "forward")
ACTIVITIES = ("out", "const", "dup", "dupnoneed")
_PLAIN_NAME = re.compile(r"[A-Za-z$._][\w$.]*")


@dataclass(frozen=True)
class DerivativeRequest:
    """One derivative: function, mode, activity of each argument, primal result wanted."""

    symbol: str
    mode: str  # "reverse" | "forward"
    activities: tuple[str, ...]  # per argument: "out" | "const" | "dup" | "dupnoneed"
    return_primal: bool = False
    width: int = 1  # vector forward mode: tangents per duplicated argument

    @property
    def key(self) -> str:
        text = f"{self.symbol}|{self.mode}|{','.join(self.activities)}|{self.return_primal}"
        if self.width != 1:
            text += f"|width={self.width}"
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def wrapper_symbol(self) -> str:
        return f"__irgrad_{'rev' if self.mode == 'reverse' else 'fwd'}_{self.key}"


@dataclass(frozen=True)
class WrapperLayout:
    """How to call a wrapper: its parameters and what its ``out`` buffer holds."""

    symbol: str
    params: tuple[tuple[str, int], ...]  # ("primal"|"shadow", arg index) | ("seed", -1) | ("out", -1)
    results: tuple[tuple[str, int], ...]  # ("primal", -1) | ("derivative", arg) | ("tangent", -1)
    seeded: bool


def global_name(name: str) -> str:
    """``@name``, quoted when LLVM needs it."""
    return f"@{name}" if _PLAIN_NAME.fullmatch(name) else f'@"{name}"'


def check_request(sig: Signature, req: DerivativeRequest) -> None:
    """Reject what cannot be differentiated before any IR is built (UsageError)."""
    if req.mode not in MODES:
        raise UsageError(f"mode must be one of {MODES}, not {req.mode!r}")
    if isinstance(req.width, bool) or not isinstance(req.width, int) or req.width < 1:
        raise UsageError(f"width must be a positive integer, not {req.width!r}")
    if req.width > 1 and req.mode != "forward":
        raise UsageError("width (vector mode) is a forward-mode option")
    if len(req.activities) != len(sig.args):
        raise UsageError(
            f"{sig.name} takes {len(sig.args)} argument(s), {len(req.activities)} given"
        )
    for i, (arg, act) in enumerate(zip(sig.args, req.activities, strict=True)):
        where = f"argument {i + 1} ('{arg.name}') of {sig.name}, {arg.describe()}"
        if arg.kind == "unsupported":
            raise UsageError(f"{where}: parameters of type {arg.ir_type} are not supported")
        if act == "const":
            continue
        if arg.kind == "int" or (arg.kind == "pointer" and arg.dtype is not None
                                 and arg.dtype not in ("float64", "float32")):  # fmt: skip
            raise UsageError(f"{where}: an integer cannot be differentiated (use Const)")
        if act == "out" and arg.kind != "float":
            raise UsageError(f"{where}: Active is for floating-point scalars; pass an "
                             "array as Duplicated(x, dx) or Const(x)")  # fmt: skip
        if act == "out" and req.mode == "forward":
            raise UsageError(f"{where}: Active is not valid in forward mode "
                             "(use Duplicated(x, tangent))")  # fmt: skip
        if act in ("dup", "dupnoneed") and arg.kind == "float" and req.mode == "reverse":
            raise UsageError(f"{where}: in reverse mode a floating-point scalar is Active "
                             "or Const, not Duplicated")  # fmt: skip
    if req.return_primal and sig.ret_ir_type not in ("double", "float", "void"):
        raise UsageError(
            f"return_primal: {sig.name} returns {sig.ret_ir_type}; only floating-point (or "
            "void) results can be returned with a derivative"
        )


def build_wrapper(sig: Signature, req: DerivativeRequest) -> tuple[str, WrapperLayout]:
    """IR text to append to the module, and the wrapper's calling layout."""
    check_request(sig, req)
    key = req.key
    params: list[tuple[str, int]] = []
    decls: list[str] = []  # wrapper parameter declarations
    call_args: list[str] = []  # arguments to the __enzyme_* call after the function
    primal_args: list[str] = []  # arguments to a plain call of f
    for i, (arg, act) in enumerate(zip(sig.args, req.activities, strict=True)):
        attrs = "".join(f" {a}" for a in arg.attrs)
        decls.append(f"{arg.ir_type}{attrs} %p{i}")
        params.append(("primal", i))
        primal_args.append(f"{arg.ir_type}{attrs} %p{i}")
        call_args += [f'metadata !"enzyme_{act}"', f"{arg.ir_type} %p{i}"]
        if act in ("dup", "dupnoneed"):
            for j in range(req.width):  # one shadow per tangent (vector forward mode)
                decls.append(f"{arg.ir_type} %s{i}.{j}")
                params.append(("shadow", i))
                call_args.append(f"{arg.ir_type} %s{i}.{j}")
    ret = sig.ret_ir_type
    fret = ret in ("double", "float")
    seeded = req.mode == "reverse" and fret
    target = global_name(sig.symbol)
    extra: list[str] = []
    if seeded:
        decls.append(f"{ret} %seed")
        params.append(("seed", -1))
        call_args += ['metadata !"enzyme_const"', f"{ret} %seed"]
        target = f"@__irgrad_seeded_{key}"
        extra.append(_seeded_function(sig, key, decls[:-1], primal_args))
    decls.append("ptr %out")
    params.append(("out", -1))
    body: list[str] = []
    stores: list[tuple[str, str]] = []  # (type, value) in result order
    results: list[tuple[str, int]] = []
    if req.return_primal and fret and req.mode == "reverse":
        # the combined reverse derivative does not return the primal: run f once more
        body.append(f"  %primal = call {ret} {global_name(sig.symbol)}({', '.join(primal_args)})")
        stores.append((ret, "%primal"))
        results.append(("primal", -1))
    if req.mode == "reverse":
        actives = [i for i, a in enumerate(req.activities) if a == "out"]
        types = [sig.args[i].ir_type for i in actives]
        call_ret = "void" if not types else types[0] if len(types) == 1 else f"{{ {', '.join(types)} }}"
        entry = f"__enzyme_autodiff_irgrad_{key}"
        lead: list[str] = []
        values = _unpack(body, call_ret, [str(j) for j in range(len(types))])
        stores += list(zip(types, values, strict=True))
        results += [("derivative", i) for i in actives]
    else:
        entry = f"__enzyme_fwddiff_irgrad_{key}"
        lead = [f'metadata !"enzyme_width", i64 {req.width}'] if req.width > 1 else []
        if fret:
            n = req.width
            tangents = ret if n == 1 else f"[{n} x {ret}]"
            call_ret = f"{{ {ret}, {tangents} }}" if req.return_primal else tangents
            paths = [str(j) for j in range(n)] if n > 1 else ["0"]
            if req.return_primal:
                lead.append('metadata !"enzyme_primal_return"')
                paths = ["0"] + ([f"1, {j}" for j in range(n)] if n > 1 else ["1"])
                results.append(("primal", -1))
            values = _unpack(body, call_ret, paths)
            stores += [(ret, v) for v in values]
            results += [("tangent", j) for j in range(n)]
        else:
            call_ret = "void"
            _unpack(body, call_ret, [])
    call = f"call {call_ret} (ptr, ...) @{entry}(ptr {target}, {', '.join(lead + call_args)})"
    call = call.replace(", )", ")")
    body = [line.replace("<CALL>", call) for line in body]
    for j, (ty, value) in enumerate(stores):
        if ty == "float":
            body.append(f"  %w{j} = fpext float {value} to double")
            value = f"%w{j}"
        body.append(f"  %o{j} = getelementptr double, ptr %out, i64 {j}")
        body.append(f"  store double {value}, ptr %o{j}")
    lines = [
        f"declare {call_ret} @{entry}(ptr, ...)",
        *extra,
        f"define void @{req.wrapper_symbol}({', '.join(decls)}) {{",
        "entry:",
        *body,
        "  ret void",
        "}",
    ]
    layout = WrapperLayout(req.wrapper_symbol, tuple(params), tuple(results), seeded)
    return "\n".join(lines) + "\n", layout


def _unpack(body: list[str], call_ret: str, paths: list[str]) -> list[str]:
    """Emit the (placeholder) call and extract its result values (``extractvalue``
    index paths; a scalar result is the value itself)."""
    if call_ret == "void":
        body.append("  <CALL>")
        return []
    body.append("  %r = <CALL>")
    if call_ret[0] not in "{[":
        return ["%r"]
    values = []
    for j, path in enumerate(paths):
        body.append(f"  %r{j} = extractvalue {call_ret} %r, {path}")
        values.append(f"%r{j}")
    return values


def _seeded_function(sig: Signature, key: str, decls: list[str], args: list[str]) -> str:
    """``seed * f(args)`` with only the primal parameters (shadows are not in it)."""
    ret = sig.ret_ir_type
    params = [d for d in decls if " %p" in d]
    return "\n".join([
        f"define internal {ret} @__irgrad_seeded_{key}({', '.join([*params, f'{ret} %seed'])}) {{",
        "entry:",
        f"  %r = call {ret} {global_name(sig.symbol)}({', '.join(args)})",
        f"  %m = fmul {ret} %r, %seed",
        f"  ret {ret} %m",
        "}",
    ])  # fmt: skip


__all__ = ["DerivativeRequest", "WrapperLayout", "build_wrapper", "check_request", "global_name"]
