"""Activity for reverse mode: which values carry adjoints and which pointers have shadows.

A forward taint from the active arguments (``OUT`` scalars, ``DUP`` pointers): a
floating-point value is *varied* when it depends on an active value or is loaded from
shadowed memory; a pointer is *shadowed* when it is derived from a shadowed pointer,
loaded from shadowed memory, or freshly allocated (alloca, malloc...). Integers carry no
derivative. It also records which memory a function may write, so the lookup can recompute
loads of memory that nothing overwrites (``may_be_overwritten``).
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.config import DiffeType

ALLOCATION_FUNCTIONS = frozenset(["malloc", "calloc", "realloc", "_Znwm", "_Znam"])
FREE_FUNCTIONS = frozenset(["free", "_ZdlPv", "_ZdaPv", "_ZdlPvm"])
# numba's runtime (NRT_*, numba_gil_*) and the CPython API (Py*, _Py*): bookkeeping that
# never carries derivatives (irgrad.grad of numba functions treats these calls as inactive)
INACTIVE_PREFIXES = ("NRT_", "numba_gil_", "Py", "_Py")


class InactiveNames(frozenset[str]):
    """A set of function names that also contains every name with an inactive prefix."""

    def __contains__(self, name: object) -> bool:
        return super().__contains__(name) or (
            isinstance(name, str) and name.startswith(INACTIVE_PREFIXES))


# External functions that never carry derivatives and never write user data.
INACTIVE_FUNCTIONS = InactiveNames(
    [
        "printf", "fprintf", "puts", "fputs", "putchar", "fputc", "fflush", "sprintf",
        "snprintf", "abort", "exit", "_exit", "rand", "srand", "time", "clock", "strlen",
        "strcmp", "strncmp", "__assert_fail", "__printf_chk", "__fprintf_chk", "perror",
        "fwrite", "write", "getenv", "atoi", "atof", "malloc_usable_size",
    ]
)  # fmt: skip
IGNORED_INTRINSICS = (
    "llvm.dbg.", "llvm.lifetime.", "llvm.assume", "llvm.experimental.noalias.scope.decl",
    "llvm.stacksave", "llvm.stackrestore", "llvm.prefetch", "llvm.invariant.",
    "llvm.var.annotation", "llvm.annotation", "llvm.sideeffect", "llvm.pseudoprobe",
)  # fmt: skip


def has_float(t: ir.Type) -> bool:
    """True for floating-point types and aggregates/vectors that contain them."""
    if isinstance(t, ir.FloatType):
        return True
    if isinstance(t, ir.VectorType | ir.ArrayType):
        return has_float(t.element)
    if t.is_struct:
        return any(has_float(e) for e in t.elements)  # type: ignore[attr-defined]
    return False


def callee_name(call: ir.CallBase) -> str | None:
    fn = call.called_function
    return fn.name if fn is not None else None


def is_ignored_intrinsic(name: str | None) -> bool:
    return name is not None and name.startswith(IGNORED_INTRINSICS)


def underlying_object(v: ir.Value) -> ir.Value | None:
    """Strip GEPs and pointer casts; None when the base is not a single known value."""
    seen = 0
    while seen < 64:
        seen += 1
        if isinstance(v, ir.GetElementPtrInst):
            v = v.pointer
        elif isinstance(v, ir.CastInst) and v.opcode in ("bitcast", "addrspacecast"):
            v = v.value
        elif isinstance(v, ir.ConstantExpr) and v.operands and v.operands[0].type.is_pointer:
            v = v.operands[0]
        elif isinstance(v, ir.PHINode | ir.SelectInst):
            return None
        else:
            return v
    return None


def _is_fresh(v: ir.Value | None) -> bool:
    if isinstance(v, ir.AllocaInst):
        return True
    if isinstance(v, ir.CallInst):
        return callee_name(v) in ALLOCATION_FUNCTIONS
    return False


def _readonly(fn: ir.Function) -> bool:
    for a in fn.attribute_texts():
        if a in ("readnone", "readonly", "memory(none)", "memory(read)") or (
            a.startswith("memory(") and "write" not in a and "readwrite" not in a
        ):
            return True
    return False


class ReverseActivity:
    """Varied values, shadowed pointers and written memory of one function."""

    def __init__(self, fn: ir.Function, arg_types: tuple[DiffeType, ...]) -> None:
        self.fn = fn
        self.varied: set[ir.Value] = set()
        self.shadowed: set[ir.Value] = set()
        for arg, dt in zip(fn.args, arg_types, strict=True):
            if dt is DiffeType.OUT and has_float(arg.type):
                self.varied.add(arg)
            elif dt in (DiffeType.DUP, DiffeType.DUP_NONEED) and arg.type.is_pointer:
                self.shadowed.add(arg)
            elif dt in (DiffeType.DUP, DiffeType.DUP_NONEED) and has_float(arg.type):
                self.varied.add(arg)
        self._solve()
        self.writes: list[ir.Value | None] = self._written_objects()

    # -- the taint ---------------------------------------------------------------------
    def _solve(self) -> None:
        changed = True
        while changed:
            changed = False
            for inst in self.fn.instructions():
                if inst in self.varied or inst in self.shadowed:
                    continue
                kind = self._classify(inst)
                if kind == "varied":
                    self.varied.add(inst)
                    changed = True
                elif kind == "shadowed":
                    self.shadowed.add(inst)
                    changed = True

    def _active_operand(self, v: ir.Value) -> bool:
        return v in self.varied or v in self.shadowed

    def _classify(self, inst: ir.Instruction) -> str | None:
        t = inst.type
        op = inst.opcode
        if t.is_pointer:
            if op == "alloca":
                return "shadowed"
            if op in ("getelementptr", "bitcast", "addrspacecast", "freeze"):
                return "shadowed" if inst.operands[0] in self.shadowed else None
            if op == "phi":
                vals = [v for v, _ in inst.incoming]  # type: ignore[attr-defined]
                return "shadowed" if any(v in self.shadowed for v in vals) else None
            if op == "select":
                return "shadowed" if any(v in self.shadowed for v in inst.operands[1:]) else None
            if op == "load":
                return "shadowed" if inst.operands[0] in self.shadowed else None
            if isinstance(inst, ir.CallInst) and callee_name(inst) in ALLOCATION_FUNCTIONS:
                return "shadowed"
            return None
        if not has_float(t):
            return None
        if op == "load":
            return "varied" if inst.operands[0] in self.shadowed else None
        if op in ("sitofp", "uitofp", "alloca"):
            return None
        if isinstance(inst, ir.CallBase):
            name = callee_name(inst)
            if name in INACTIVE_FUNCTIONS or is_ignored_intrinsic(name):
                return None
            return "varied" if any(self._active_operand(a) for a in inst.args) else None
        if op == "phi":
            vals = [v for v, _ in inst.incoming]  # type: ignore[attr-defined]
            return "varied" if any(v in self.varied for v in vals) else None
        if op == "select":
            return "varied" if any(v in self.varied for v in inst.operands[1:]) else None
        return "varied" if any(v in self.varied for v in inst.operands) else None

    # -- memory writes -----------------------------------------------------------------
    def _written_objects(self) -> list[ir.Value | None]:
        """Underlying objects the function may write (None: anything)."""
        out: list[ir.Value | None] = []
        for inst in self.fn.instructions():
            if isinstance(inst, ir.StoreInst | ir.AtomicRMWInst | ir.AtomicCmpXchgInst):
                out.append(underlying_object(inst.pointer))
            elif isinstance(inst, ir.CallBase):
                name = callee_name(inst)
                fn = inst.called_function
                if name is None or fn is None:
                    out.append(None)
                elif is_ignored_intrinsic(name) or name in ALLOCATION_FUNCTIONS:
                    continue
                elif name.startswith(("llvm.memcpy", "llvm.memmove", "llvm.memset")) or name in FREE_FUNCTIONS:
                    out.append(underlying_object(inst.args[0]))
                elif name in INACTIVE_FUNCTIONS or name.startswith("llvm.") or (fn.is_declaration and _is_libm(name)) or (not fn.is_declaration and _readonly(fn)):
                    continue
                else:
                    out.append(None)
        return out

    def may_be_overwritten(self, pointer: ir.Value) -> bool:
        """Whether any write of the function may alias the memory ``pointer`` points to."""
        base = underlying_object(pointer)
        if base is None:
            return bool(self.writes)
        for w in self.writes:
            if w is None or w is base:
                return True
            if _is_fresh(w) or _is_fresh(base):
                continue  # a fresh allocation aliases nothing else
            if isinstance(w, ir.GlobalVariable) and isinstance(base, ir.GlobalVariable):
                continue
            if isinstance(base, ir.GlobalVariable) and base.is_constant:
                continue
            if isinstance(w, ir.Argument) and isinstance(base, ir.Argument) and (
                "noalias" in w.attrs or "noalias" in base.attrs
            ):
                continue
            return True
        return False


def _is_libm(name: str) -> bool:
    from irgrad.ad.rules import lookup_call

    return lookup_call(name) is not None
