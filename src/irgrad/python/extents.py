"""Array sizes checked against the integer arguments that describe them.

A C signature does not say how long an array is. ``f(const double *x, int n)`` reads
``n`` elements of ``x``; called from Python with a 3-element ``x`` and ``n = 300`` it
would read (or write) far past the array. irgrad knows the relation in two ways:

* **from the code**: when a library is built, :mod:`irgrad.analysis.access_bounds`
  finds, for each pointer parameter, an upper bound of the bytes the function (and the
  functions it calls) may access, as a polynomial in the integer parameters -- the
  loops ``for (i = 0; i < n; i++) ... x[i]``, ``A[i * m + j]``, ``memcpy(y, x, n * 8)``;
* **from the user**: ``lib.function("f", extents="x[n], A[n*m]")`` (or a mapping
  ``{"x": "n"}``) states the number of elements of each array; it replaces what the code
  analysis found for those arrays.

Every call (the function, and each derivative: the shadows too) is checked before it
runs: an array smaller than the extent its integer arguments give is a
:class:`~irgrad.errors.UsageError` naming the array, the arguments and both sizes.
Accesses the analysis cannot bound (``x[idx[i]]``, a ``while`` loop on data, a pointer
stored and reloaded, integers passed by reference as in Fortran) are not checked.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from irgrad.errors import UsageError

Term = tuple[int, tuple[int, ...]]  # (coefficient, integer parameter indices multiplied)
Extent = tuple[Term, ...]  # a number of bytes: sum of coefficient * product of arguments
Extents = tuple[tuple[int, tuple[Extent, ...]], ...]  # pointer parameter -> its extents


def evaluate(extent: Extent, ints: Mapping[int, int]) -> int | None:
    """The extent with integer arguments ``ints``; None when one is not known."""
    total = 0
    for coef, params in extent:
        value = coef
        for i in params:
            if i not in ints:
                return None
            value *= ints[i]
        total += value
    return total


def describe(extent: Extent, names: Sequence[str], itemsize: int) -> str:
    """``8*n*m`` bytes as ``n*m`` elements of ``itemsize`` bytes (when it divides)."""
    scale = itemsize if all(c % itemsize == 0 for c, _ in extent) else 1
    parts = []
    for coef, params in sorted(extent, key=lambda t: (-len(t[1]), t[1])):
        c = coef // scale
        factors = [names[i] for i in params]
        if c != 1 or not factors:
            factors.insert(0, str(c))
        parts.append("*".join(factors))
    text = " + ".join(parts).replace("+ -", "- ") or "0"
    return text if scale == itemsize else f"{text} bytes"


def infer_extents(text: str, filename: str, symbols: Sequence[str]) -> dict[str, Extents]:
    """The extents of the pointer parameters of ``symbols`` in IR ``text``, from the code
    after irgrad's pre-AD optimization (what is differentiated, too)."""
    from irgrad import ir
    from irgrad.analysis.access_bounds import access_extents
    from irgrad.llvm.canonicalize import canonicalize
    from irgrad.llvm.load import parse_llvm

    module = ir.parse_module(str(canonicalize(parse_llvm(text, filename), filename=filename)),
                             filename)
    memo: dict[Any, Any] = {}
    found: dict[str, Extents] = {}
    for symbol in symbols:
        fn = module.get_function(symbol)
        if fn is None or fn.is_declaration:
            continue
        per_arg = access_extents(fn, memo)
        found[symbol] = tuple(
            (k, tuple(tuple((c, tuple(m)) for m, c in p.terms) for p in polys))
            for k, polys in sorted(per_arg.items()))
    return found


def extents_to_json(extents: Extents) -> list[Any]:
    return [[k, [[[c, list(m)] for c, m in e] for e in es]] for k, es in extents]


def extents_from_json(data: list[Any]) -> Extents:
    return tuple((int(k), tuple(tuple((int(c), tuple(int(i) for i in m)) for c, m in e)
                                for e in es)) for k, es in data)


# --- extents the user states -------------------------------------------------------------


def parse_user_extents(spec: str | Mapping[str, str], names: Sequence[str],
                       kinds: Sequence[str], itemsizes: Sequence[int], fn: str
                       ) -> dict[int, Extent]:
    """``"x[n], A[n*m]"`` or ``{"x": "n", "A": "n*m"}`` -> pointer parameter index ->
    extent in bytes. Names are parameter names; the sizes use integer parameters."""
    if isinstance(spec, str):
        items: list[tuple[str, str]] = []
        for part in _split_top(spec):
            part = part.strip()
            if not part:
                continue
            if "[" not in part or not part.endswith("]"):
                raise UsageError(f"extents of {fn}: expected 'name[size]', got {part!r}")
            name, _, dims = part[:-1].partition("[")
            items.append((name.strip(), dims))
    elif isinstance(spec, Mapping):
        items = [(str(k), str(v)) for k, v in spec.items()]
    else:
        raise UsageError(f"extents of {fn}: expected a string like 'x[n]' or a mapping, "
                         f"not {type(spec).__name__}")
    out: dict[int, Extent] = {}
    for name, dims in items:
        if name not in names:
            raise UsageError(f"extents of {fn}: no parameter named {name!r} "
                             f"(parameters: {', '.join(names)})")
        k = names.index(name)
        if kinds[k] != "pointer":
            raise UsageError(f"extents of {fn}: {name!r} is not an array parameter")
        poly: dict[tuple[int, ...], int] = {(): 1}
        for dim in _split_top(dims):
            poly = _mul(poly, _parse_size(dim, names, kinds, fn))
        out[k] = tuple((c * itemsizes[k], m) for m, c in sorted(poly.items()) if c)
    return out


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [*parts, cur]


def _mul(a: dict[tuple[int, ...], int], b: dict[tuple[int, ...], int]
         ) -> dict[tuple[int, ...], int]:
    out: dict[tuple[int, ...], int] = {}
    for m1, c1 in a.items():
        for m2, c2 in b.items():
            m = tuple(sorted(m1 + m2))
            out[m] = out.get(m, 0) + c1 * c2
    return out


def _parse_size(text: str, names: Sequence[str], kinds: Sequence[str], fn: str
                ) -> dict[tuple[int, ...], int]:
    """A size expression (integers, integer parameters, + - *) as a polynomial."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise UsageError(f"extents of {fn}: cannot read the size {text.strip()!r}") from None

    def walk(node: ast.AST) -> dict[tuple[int, ...], int]:
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(
                node.value, bool):
            return {(): node.value}
        if isinstance(node, ast.Name):
            if node.id not in names or kinds[names.index(node.id)] != "int":
                raise UsageError(f"extents of {fn}: {node.id!r} in {text.strip()!r} is not an "
                                 "integer parameter")
            return {(names.index(node.id),): 1}
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return {m: -c for m, c in walk(node.operand).items()}
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult):
            a, b = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Mult):
                return _mul(a, b)
            sign = 1 if isinstance(node.op, ast.Add) else -1
            out = dict(a)
            for m, c in b.items():
                out[m] = out.get(m, 0) + sign * c
            return out
        raise UsageError(f"extents of {fn}: cannot read the size {text.strip()!r} (integers, "
                         "integer parameters, + - *)")

    return walk(tree)


# --- the check -------------------------------------------------------------------------------


def check_extents(fn: str, names: Sequence[str], extents: Extents,
                  arrays: Mapping[int, list[tuple[str, np.ndarray | None]]],
                  ints: Mapping[int, int]) -> None:
    """Raise a UsageError when an array passed for a pointer parameter is smaller than its
    extent. ``arrays``: parameter index -> (what it is, e.g. "argument 1 ('x') of f",
    the array passed: primal or shadow)."""
    for k, options in extents:
        passed = arrays.get(k)
        if not passed:
            continue
        need, which = 0, None
        for e in options:
            v = evaluate(e, ints)
            if v is not None and v > need:
                need, which = v, e
        if which is None:
            continue
        for place, array in passed:
            size = 0 if array is None else array.nbytes
            if size >= need:
                continue
            itemsize = array.itemsize if array is not None else 1
            used = sorted({i for _, m in which for i in m})
            bindings = ", ".join(f"{names[i]} = {ints[i]}" for i in used)
            held = "None (a null pointer)" if array is None else (
                f"an array of {array.size} element(s)")
            raise UsageError(
                f"{place}: {held}, but {fn} may access "
                f"{math.ceil(need / itemsize)} element(s) of it "
                f"({names[k]}[{describe(which, names, itemsize)}]"
                + (f" with {bindings}" if bindings else "") + ")")


__all__ = [
    "Extent",
    "Extents",
    "check_extents",
    "evaluate",
    "extents_from_json",
    "extents_to_json",
    "infer_extents",
    "parse_user_extents",
]
