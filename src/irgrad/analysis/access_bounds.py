"""How much of each pointer parameter a function may access, as a polynomial in its
integer parameters: ``f(const double *x, int n)`` reading ``x[i]`` for ``i < n`` needs
``8 * n`` bytes behind ``x``.

The Python API checks the arrays it passes against these extents, so ``lib["f"](x,
300)`` with a 3-element ``x`` is a clear error instead of a write past the array.

An access is bounded when its byte offset from the parameter is a polynomial in integer
parameters and loop induction variables, and each induction variable belongs to a loop
whose exit test compares it with a loop-invariant bound (``for (i = s; i < n; i += c)``,
counting up or down). Offsets reached through GEPs, ``memcpy``/``memset`` lengths and
calls of defined functions (their own extents, with the call's arguments substituted)
count; an access that is not bounded that way (``x[idx[i]]``, a data-dependent ``while``)
is not checked. Indices are taken to be non-negative (they index arrays) and the result
is an upper bound, evaluated with the actual integer arguments at call time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from irgrad import ir
from irgrad.analysis.layout import alloc_size, store_size, struct_offsets
from irgrad.analysis.loops import Loop, LoopInfo
from irgrad.analysis.trip_count import compute_trip_count, induction_variables

Monomial = tuple[int, ...]  # sorted parameter indices (repeated for powers)


@dataclass(frozen=True)
class Poly:
    """A polynomial with integer coefficients in the function's integer parameters."""

    terms: tuple[tuple[Monomial, int], ...]

    @staticmethod
    def const(c: int) -> Poly:
        return Poly((((), c),)) if c else Poly(())

    @staticmethod
    def param(index: int) -> Poly:
        return Poly((((index,), 1),))

    @staticmethod
    def _of(d: Mapping[Monomial, int]) -> Poly:
        return Poly(tuple(sorted((m, c) for m, c in d.items() if c)))

    def __add__(self, other: Poly) -> Poly:
        d = dict(self.terms)
        for m, c in other.terms:
            d[m] = d.get(m, 0) + c
        return Poly._of(d)

    def __sub__(self, other: Poly) -> Poly:
        return self + other.scale(-1)

    def scale(self, k: int) -> Poly:
        return Poly._of({m: c * k for m, c in self.terms})

    def __mul__(self, other: Poly) -> Poly:
        d: dict[Monomial, int] = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                m = tuple(sorted(m1 + m2))
                d[m] = d.get(m, 0) + c1 * c2
        return Poly._of(d)

    @property
    def constant(self) -> int | None:
        if not self.terms:
            return 0
        if len(self.terms) == 1 and self.terms[0][0] == ():
            return self.terms[0][1]
        return None

    def evaluate(self, values: Mapping[int, int]) -> int:
        total = 0
        for m, c in self.terms:
            v = c
            for i in m:
                v *= values[i]
            total += v
        return total

    def params(self) -> set[int]:
        return {i for m, _ in self.terms for i in m}

    def to_json(self) -> list[list[object]]:
        return [[c, list(m)] for m, c in self.terms]

    @staticmethod
    def from_json(data: list[list[object]]) -> Poly:
        return Poly._of({tuple(m): int(c) for c, m in data})  # type: ignore[arg-type, misc]

    def describe(self, names: Mapping[int, str]) -> str:
        if not self.terms:
            return "0"
        parts = []
        for m, c in sorted(self.terms, key=lambda t: (-len(t[0]), t[0])):
            factors = [names.get(i) or f"arg{i}" for i in m]
            if c != 1 or not factors:
                factors.insert(0, str(c))
            parts.append("*".join(factors))
        return " + ".join(parts).replace("+ -", "- ")


def _max(a: Poly | None, b: Poly | None) -> Poly | None:
    """An upper bound of both (only when they differ by a constant: else unknown)."""
    if a is None or b is None:
        return None
    diff = (a - b).constant
    if diff is None:
        return None
    return a if diff >= 0 else b


class _Bounds:
    """Upper bounds of the integer values of one function."""

    def __init__(self, fn: ir.Function, callee_extents: _Extents) -> None:
        self.fn = fn
        self.params = {a: i for i, a in enumerate(fn.args) if isinstance(a.type, ir.IntType)}
        self.loops = LoopInfo(fn)
        self.callees = callee_extents
        self._memo: dict[ir.Value, Poly | None] = {}

    def upper(self, v: ir.Value) -> Poly | None:
        if v in self._memo:
            return self._memo[v]
        self._memo[v] = None  # cycles are unknown
        got = self._upper(v)
        self._memo[v] = got
        return got

    def _upper(self, v: ir.Value) -> Poly | None:
        if isinstance(v, ir.ConstantInt):
            return Poly.const(v.signed_value)
        if isinstance(v, ir.Argument):
            i = self.params.get(v)
            return Poly.param(i) if i is not None else None
        if not isinstance(v, ir.Instruction):
            return None
        op = v.opcode
        if op in ("sext", "zext", "trunc", "freeze"):
            return self.upper(v.operands[0])
        if op == "add" or (op == "or" and "disjoint" in v.flags):
            a, b = (self.upper(o) for o in v.operands)
            return a + b if a is not None and b is not None else None
        if op == "sub":
            a = self.upper(v.operands[0])
            c = v.operands[1]
            return a - Poly.const(c.signed_value) if (
                a is not None and isinstance(c, ir.ConstantInt)) else None
        if op == "mul":
            a, b = (self.upper(o) for o in v.operands)
            return a * b if a is not None and b is not None else None
        if op == "shl" and isinstance(v.operands[1], ir.ConstantInt):
            a = self.upper(v.operands[0])
            return a.scale(1 << v.operands[1].value) if a is not None else None
        if op == "select":
            return _max(self.upper(v.operands[1]), self.upper(v.operands[2]))
        if isinstance(v, ir.PHINode):
            return self._phi(v)
        if isinstance(v, ir.CallBase):
            name = v.called_function.name if v.called_function is not None else ""
            if name.startswith(("llvm.smin.", "llvm.umin.")):
                a, b = (self.upper(o) for o in v.args[:2])
                return a if a is not None else b
            if name.startswith(("llvm.smax.", "llvm.umax.")):
                return _max(self.upper(v.args[0]), self.upper(v.args[1]))
        return None

    def _phi(self, phi: ir.PHINode) -> Poly | None:
        loop = self.loops.loop_for(phi)
        if loop is not None and loop.header is phi.parent:
            return self._induction_variable(phi, loop)
        found: Poly | None = None
        for value, _ in phi.incoming:
            b = self.upper(value)
            if b is None:
                return None
            found = b if found is None else _max(found, b)
            if found is None:
                return None
        return found

    def _induction_variable(self, phi: ir.PHINode, loop: Loop) -> Poly | None:
        """The largest value an induction variable takes in the loop's body."""
        tc = compute_trip_count(loop)
        if tc is None:
            return None
        if tc.step < 0:  # counting down to a bound: the start is the largest value
            iv = next((v for v in induction_variables(loop) if v.phi is phi), None)
            step = iv.step if iv is not None else None
            return self.upper(iv.start) if isinstance(step, int) and step <= 0 else None
        if not isinstance(tc.start, ir.ConstantInt):
            return None
        bound = self.upper(tc.bound)
        if bound is None:
            return None
        # in the body, the tested variable stays below its bound (inclusive tests: at it),
        # whether it is tested before or after its increment
        tested_max = bound if tc.predicate in ("sle", "ule") else bound - Poly.const(1)
        if tc.step != 1:
            return tested_max if phi is tc.iv.phi else None
        last = tested_max - Poly.const(tc.start.signed_value)  # the last iteration's index
        for iv in induction_variables(loop):
            if iv.phi is not phi:
                continue
            if isinstance(iv.step, int) and iv.step >= 0:
                start = self.upper(iv.start)
                return start + last.scale(iv.step) if start is not None else None
            if isinstance(iv.step, int):  # counting down: the start is the largest
                return self.upper(iv.start)
        return None


Extents = dict[int, list[Poly]]  # pointer parameter -> bounds of the bytes accessed
_Extents = dict[ir.Function, Extents | None]


def access_extents(fn: ir.Function, _memo: _Extents | None = None) -> Extents:
    """For each pointer parameter of ``fn`` (by index) with bounded accesses: upper bounds
    of the bytes accessed from it (the largest of them, evaluated with the actual
    arguments, is what a call needs), polynomials in ``fn``'s integer parameters."""
    memo: _Extents = {} if _memo is None else _memo
    if fn in memo:
        return memo[fn] or {}
    memo[fn] = None  # recursion: the recursive call adds nothing
    bounds = _Bounds(fn, memo)
    out: Extents = {}
    for k, arg in enumerate(fn.args):
        if arg.type.is_pointer:
            found = _extents_of(bounds, arg, memo)
            if found:
                out[k] = found
    memo[fn] = out
    return out


def _extents_of(bounds: _Bounds, arg: ir.Argument, memo: _Extents) -> list[Poly]:
    """Bounds of the largest byte offset + access size reached from ``arg``."""
    found: list[Poly] = []

    def note(p: Poly | None) -> None:
        if p is None:
            return
        for k, q in enumerate(found):
            diff = (p - q).constant
            if diff is not None:  # comparable: keep the larger
                if diff > 0:
                    found[k] = p
                return
        found.append(p)

    work: list[tuple[ir.Value, Poly]] = [(arg, Poly.const(0))]
    seen: set[int] = set()
    while work:
        p, offset = work.pop()
        if id(p) in seen:
            continue
        seen.add(id(p))
        for use in p.uses:
            u = use.user
            if isinstance(u, ir.GetElementPtrInst) and use.index == 0:
                step = _gep_offset(bounds, u)
                if step is not None:
                    work.append((u, offset + step))
            elif isinstance(u, ir.CastInst) and u.opcode in ("bitcast", "addrspacecast"):
                work.append((u, offset))
            elif isinstance(u, ir.LoadInst) and u.pointer is p:
                note(offset + Poly.const(store_size(u.type)))
            elif isinstance(u, ir.StoreInst) and u.pointer is p:
                note(offset + Poly.const(store_size(u.value.type)))
            elif isinstance(u, ir.CallBase) and use.index < len(u.args):
                for e in _call_extents(bounds, u, use.index, offset, memo):
                    note(e)
    return found


def _gep_offset(bounds: _Bounds, gep: ir.GetElementPtrInst) -> Poly | None:
    """The byte offset a GEP adds (None when an index is not bounded)."""
    ty: ir.Type = gep.source_type
    total = Poly.const(0)
    for k, idx in enumerate(gep.indices):
        if k == 0:
            size = alloc_size(ty)
        elif isinstance(ty, ir.ArrayType | ir.VectorType):
            ty = ty.element
            size = alloc_size(ty)
        elif ty.is_struct and isinstance(idx, ir.ConstantInt):
            offsets = struct_offsets(ty)  # type: ignore[arg-type]
            total = total + Poly.const(offsets[idx.value])
            ty = ty.elements[idx.value]  # type: ignore[attr-defined]
            continue
        else:
            return None
        b = bounds.upper(idx)
        if b is None:
            return None
        total = total + b.scale(size)
    return total


def _call_extents(bounds: _Bounds, call: ir.CallBase, index: int, offset: Poly,
                  memo: _Extents) -> list[Poly]:
    """Bytes a call may access through its argument ``index`` (pointer + ``offset``)."""
    fn = call.called_function
    if fn is None:
        return []
    if fn.name.startswith(("llvm.memcpy.", "llvm.memmove.", "llvm.memset.")) and index < 2:
        length = bounds.upper(call.args[2])
        return [offset + length] if length is not None else []
    if fn.is_declaration or index >= len(fn.args):
        return []
    out = []
    for inner in access_extents(fn, memo).get(index, []):
        # the callee's parameters replaced by upper bounds of the call's arguments
        total: Poly | None = Poly.const(0)
        for m, c in inner.terms:
            term = Poly.const(c)
            for i in m:
                b = bounds.upper(call.args[i]) if i < len(call.args) else None
                if b is None:
                    total = None
                    break
                term = term * b
            if total is None:
                break
            total = total + term
        if total is not None:
            out.append(offset + total)
    return out


__all__ = ["Extents", "Poly", "access_extents"]
