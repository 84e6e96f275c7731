"""Inline assembly that only computes a known operation, replaced by its intrinsic before
differentiation.

Numerical libraries wrap single instructions in ``asm`` to keep compilers from reordering
them: Eigen's AVX/FMA kernels emit ``vfmadd231pd $1, $2, $0`` (``"=x,x,x,0"``: the output
is tied to the third input), which is ``llvm.fma(a, b, c)``. Such a call has no side
effects and its meaning is the instruction's, so it becomes the intrinsic, which irgrad
differentiates like any other; any other inline assembly on an active value stays a
located error (``cannot differentiate inline assembly``).

Eigen's SSE ``pmax``/``pmin`` under clang are ``maxpd $1, $0`` (``"=x,x,0"``): x86's
MAXPD keeps the destination where it compares greater and takes the source otherwise (a
NaN on either side, or two zeros, give the source), which is ``fcmp ogt`` and a
``select`` -- the same result bit for bit, NaNs and signed zeros included.

The same instructions reach the IR as x86 intrinsics where Eigen calls them through
``_mm512_max_pd`` and the like (AVX-512 has no generic form): ``llvm.x86.*.max.p[sd]*`` and
``min`` become the same compare-and-select.

The table is data: an instruction mnemonic pattern, the operand order it takes in AT&T
syntax, and the intrinsic it computes (or the comparison whose select it is).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from irgrad import ir


@dataclass(frozen=True)
class KnownAsm:
    pattern: re.Pattern[str]  # the whole asm string (AT&T syntax)
    constraints: re.Pattern[str]  # output tied to the last input
    intrinsic: str  # overloaded base name, or ``select`` for a compare-and-select
    order: tuple[int, ...]  # intrinsic operand k = asm input order[k]
    predicate: str = ""  # select: ``fcmp predicate a, b ? a : b`` (a, b in ``order``)


_FMA_CONSTRAINTS = re.compile(r"^=[xv],[xv],[xv],0(,~\{[a-z0-9]+\})*$")
_TWO_OPERAND = re.compile(r"^=[xv],[xv],0(,~\{[a-z0-9]+\})*$")
_THREE_OPERAND = re.compile(r"^=[xv],[xv],[xv](,~\{[a-z0-9]+\})*$")
KNOWN_ASM: tuple[KnownAsm, ...] = (
    # vfmadd231: dst = src2 * src3 + dst; AT&T lists the sources last to first
    KnownAsm(re.compile(r"^\s*vfmadd231(p[sd]|s[sd])\s+\$1\s*,\s*\$2\s*,\s*\$0\s*$"),
             _FMA_CONSTRAINTS, "llvm.fma", (0, 1, 2)),
    KnownAsm(re.compile(r"^\s*vfmadd231(p[sd]|s[sd])\s+\$2\s*,\s*\$1\s*,\s*\$0\s*$"),
             _FMA_CONSTRAINTS, "llvm.fma", (1, 0, 2)),
    # maxpd src, dst: dst = dst > src ? dst : src (the source on NaN and on equal zeros);
    # the destination is the input tied to the output (the second), the source the first
    KnownAsm(re.compile(r"^\s*max(p[sd])\s+\$1\s*,\s*\$0\s*$"), _TWO_OPERAND, "select",
             (1, 0), "ogt"),
    KnownAsm(re.compile(r"^\s*min(p[sd])\s+\$1\s*,\s*\$0\s*$"), _TWO_OPERAND, "select",
             (1, 0), "olt"),
    # AVX vmaxpd src2, src1, dst (AT&T): dst = src1 > src2 ? src1 : src2
    KnownAsm(re.compile(r"^\s*vmax(p[sd])\s+\$1\s*,\s*\$2\s*,\s*\$0\s*$"), _THREE_OPERAND,
             "select", (1, 0), "ogt"),
    KnownAsm(re.compile(r"^\s*vmax(p[sd])\s+\$2\s*,\s*\$1\s*,\s*\$0\s*$"), _THREE_OPERAND,
             "select", (0, 1), "ogt"),
    KnownAsm(re.compile(r"^\s*vmin(p[sd])\s+\$1\s*,\s*\$2\s*,\s*\$0\s*$"), _THREE_OPERAND,
             "select", (1, 0), "olt"),
    KnownAsm(re.compile(r"^\s*vmin(p[sd])\s+\$2\s*,\s*\$1\s*,\s*\$0\s*$"), _THREE_OPERAND,
             "select", (0, 1), "olt"),
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


#: x86's packed max/min intrinsics (SSE, AVX, AVX-512 with its rounding operand): the
#: first operand where it compares greater (less), else the second
_X86_MIN_MAX = re.compile(r"^llvm\.x86\.(sse2?|avx|avx512)\.(max|min)\.p[sd](\.256|\.512)?$")


def _replace_x86_min_max(inst: ir.CallInst) -> bool:
    fn = inst.called_function
    m = _X86_MIN_MAX.match(fn.name) if fn is not None else None
    if m is None or len(inst.args) < 2:
        return False
    a, b = inst.args[0], inst.args[1]
    builder = ir.IRBuilder(position=inst)
    pred = "ogt" if m.group(2) == "max" else "olt"
    new = builder.select(builder.fcmp(pred, a, b), a, b, name=inst.name or None)
    new.metadata = [(key, v) for key, v in inst.metadata if key == "dbg"]
    inst.replace_all_uses_with(new)
    inst.erase_from_parent()
    return True


def replace_known_asm(fn: ir.Function) -> bool:
    """Replace the calls of known inline assembly in ``fn`` by their intrinsics (and x86's
    max/min intrinsics by compare-and-select); True when something changed."""
    changed = False
    for inst in list(fn.instructions()):
        if not isinstance(inst, ir.CallInst):
            continue
        if _replace_x86_min_max(inst):
            changed = True
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
        b = ir.IRBuilder(position=inst)
        ops = [args[k] for k in known.order]
        new: ir.Instruction
        if known.intrinsic == "select":
            new = b.select(b.fcmp(known.predicate, ops[0], ops[1]), ops[0], ops[1],
                           name=inst.name or None)
        else:
            ft = ir.FunctionType(inst.type, [inst.type] * len(args))
            callee = module.get_or_insert_function(f"{known.intrinsic}.{suffix}", ft)
            new = b.call(callee, ops, name=inst.name or None)
        new.metadata = [(key, v) for key, v in inst.metadata if key == "dbg"]
        inst.replace_all_uses_with(new)
        inst.erase_from_parent()
        changed = True
    return changed


__all__ = ["KNOWN_ASM", "KnownAsm", "replace_known_asm"]
