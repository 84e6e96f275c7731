"""What the reverse pass may recompute instead of caching: instructions as cheap as an
arithmetic operation, and pure intrinsics as cheap as an ``fmul``."""

from __future__ import annotations

from irgrad import ir

RECOMPUTE_OPCODES = frozenset(
    [
        "add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor", "fadd", "fsub",
        "fmul", "fneg", "trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi",
        "uitofp", "sitofp", "ptrtoint", "inttoptr", "bitcast", "addrspacecast",
        "getelementptr", "icmp", "fcmp", "select", "extractvalue", "insertvalue",
        "extractelement", "insertelement", "shufflevector", "freeze",
    ]
)  # fmt: skip
# pure intrinsics as cheap as an fmul (name up to the type suffix)
RECOMPUTE_INTRINSICS = frozenset(
    [
        "llvm.fmuladd", "llvm.fma", "llvm.fabs", "llvm.copysign", "llvm.minnum",
        "llvm.maxnum", "llvm.minimum", "llvm.maximum", "llvm.smax", "llvm.smin",
        "llvm.umax", "llvm.umin", "llvm.abs",
    ]
)  # fmt: skip


def is_constant_division(v: ir.Value) -> bool:
    """An integer division or remainder by a constant that cannot trap (not 0, and not -1
    when signed: ``INT_MIN / -1`` overflows): ``i % 3``, ``j / 2``. Compilers turn it into
    a multiply and shifts, so it is as cheap as arithmetic and safe anywhere."""
    if not isinstance(v, ir.Instruction) or v.opcode not in ("udiv", "sdiv", "urem", "srem"):
        return False
    d = v.operands[1]
    if not isinstance(d, ir.ConstantInt) or d.unsigned_value == 0:
        return False
    return v.opcode in ("udiv", "urem") or d.signed_value != -1


def is_cheap_intrinsic(v: ir.Instruction) -> bool:
    if not isinstance(v, ir.CallInst):
        return False
    fn = v.called_function
    if fn is None or not fn.name.startswith("llvm."):
        return False
    return ".".join(fn.name.split(".")[:2]) in RECOMPUTE_INTRINSICS


__all__ = ["RECOMPUTE_INTRINSICS", "RECOMPUTE_OPCODES", "is_cheap_intrinsic",
           "is_constant_division"]
