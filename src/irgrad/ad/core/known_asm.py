"""Inline assembly that only computes a known operation, replaced by its intrinsic before
differentiation.

Numerical libraries wrap single instructions in ``asm`` to keep compilers from reordering
them: Eigen's AVX/FMA kernels emit ``vfmadd231pd $1, $2, $0`` (``"=x,x,x,0"``: the output
is tied to the third input), which is ``llvm.fma(a, b, c)``. Such a call has no side
effects and its meaning is the instruction's, so it becomes the intrinsic, which irgrad
differentiates like any other; any other inline assembly on an active value stays a
located error (``cannot differentiate inline assembly``).

The table is data: an instruction mnemonic pattern, the operand order it takes in AT&T
syntax, and the intrinsic it computes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from irgrad import ir


@dataclass(frozen=True)
class KnownAsm:
    pattern: re.Pattern[str]  # the whole asm string (AT&T syntax)
    constraints: re.Pattern[str]  # output tied to the last input
    intrinsic: str  # overloaded base name
    order: tuple[int, ...]  # intrinsic operand k = asm input order[k]


_FMA_CONSTRAINTS = re.compile(r"^=[xv],[xv],[xv],0(,~\{[a-z0-9]+\})*$")
KNOWN_ASM: tuple[KnownAsm, ...] = (
    # vfmadd231: dst = src2 * src3 + dst; AT&T lists the sources last to first
    KnownAsm(re.compile(r"^\s*vfmadd231(p[sd]|s[sd])\s+\$1\s*,\s*\$2\s*,\s*\$0\s*$"),
             _FMA_CONSTRAINTS, "llvm.fma", (0, 1, 2)),
    KnownAsm(re.compile(r"^\s*vfmadd231(p[sd]|s[sd])\s+\$2\s*,\s*\$1\s*,\s*\$0\s*$"),
             _FMA_CONSTRAINTS, "llvm.fma", (1, 0, 2)),
)


def _type_suffix(t: ir.Type) -> str | None:
    if isinstance(t, ir.FloatType) and t.kind in ("float", "double"):
        return "f32" if t.kind == "float" else "f64"
    if isinstance(t, ir.VectorType) and isinstance(t.element, ir.FloatType):
        elem = _type_suffix(t.element)
        return None if elem is None else f"v{t.count}{elem}"
    return None


def _known(call: ir.CallBase) -> KnownAsm | None:
    asm = call.callee
    if not isinstance(asm, ir.InlineAsm) or asm.side_effect or asm.dialect != "att":
        return None
    for k in KNOWN_ASM:
        if k.pattern.match(asm.asm) and k.constraints.match(asm.constraints.replace(" ", "")):
            return k
    return None


def replace_known_asm(fn: ir.Function) -> bool:
    """Replace the calls of known inline assembly in ``fn`` by their intrinsics; True when
    something changed."""
    changed = False
    for inst in list(fn.instructions()):
        if not isinstance(inst, ir.CallInst):
            continue
        known = _known(inst)
        if known is None:
            continue
        args = list(inst.args)
        suffix = _type_suffix(inst.type)
        if suffix is None or len(args) != len(known.order) or any(
                a.type != inst.type for a in args):
            continue
        module = fn.parent
        assert module is not None
        ft = ir.FunctionType(inst.type, [inst.type] * len(args))
        callee = module.get_or_insert_function(f"{known.intrinsic}.{suffix}", ft)
        b = ir.IRBuilder(position=inst)
        new = b.call(callee, [args[k] for k in known.order], name=inst.name or None)
        new.metadata = [(key, v) for key, v in inst.metadata if key == "dbg"]
        inst.replace_all_uses_with(new)
        inst.erase_from_parent()
        changed = True
    return changed


__all__ = ["KNOWN_ASM", "KnownAsm", "replace_known_asm"]
