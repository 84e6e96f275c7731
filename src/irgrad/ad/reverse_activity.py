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
FREE_FUNCTIONS = frozenset(["free", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm"])
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
        # allocas whose contents may carry derivatives (an active value stored into them,
        # or their address escapes); see _alloca_holds_active
        self._active_allocas: set[ir.AllocaInst] = set()
        self._alloca_accesses: dict[ir.AllocaInst, list[ir.Instruction] | None] = {}
        for arg, dt in zip(fn.args, arg_types, strict=True):
            if dt is DiffeType.OUT and has_float(arg.type):
                self.varied.add(arg)
            elif dt in (DiffeType.DUP, DiffeType.DUP_NONEED) and arg.type.is_pointer:
                self.shadowed.add(arg)
            elif dt in (DiffeType.DUP, DiffeType.DUP_NONEED) and has_float(arg.type):
                self.varied.add(arg)
        self._solve()
        # (writing instruction, underlying object written or None for anything)
        self.writes: list[tuple[ir.Instruction, ir.Value | None]] = self._written_objects()
        self._reach: dict[ir.BasicBlock, frozenset[ir.BasicBlock]] = {}

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
                return "shadowed" if self._loads_active(inst.operands[0]) else None
            if isinstance(inst, ir.CallInst) and callee_name(inst) in ALLOCATION_FUNCTIONS:
                return "shadowed"
            return None
        if not has_float(t):
            return None
        if op == "load":
            return "varied" if self._loads_active(inst.operands[0]) else None
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

    def _loads_active(self, pointer: ir.Value) -> bool:
        """Can a load through ``pointer`` give a value with a derivative / a shadow?

        Unoptimized IR keeps every argument and local in an alloca (``%x.addr``): a local
        that only ever holds constant values (a pointer argument marked ``enzyme_const``, a
        loop counter) gives constant loads, as Enzyme's activity analysis decides; treating
        them as shadowed would read a shadow nobody wrote (null) and accumulate there."""
        if pointer not in self.shadowed:
            return False
        base = underlying_object(pointer)
        if not isinstance(base, ir.AllocaInst):
            return True
        return self._alloca_holds_active(base)

    def _alloca_holds_active(self, alloca: ir.AllocaInst) -> bool:
        if alloca in self._active_allocas:
            return True
        if alloca not in self._alloca_accesses:
            self._alloca_accesses[alloca] = _alloca_writes(alloca)
        accesses = self._alloca_accesses[alloca]
        if accesses is None or any(self._writes_active(w) for w in accesses):
            self._active_allocas.add(alloca)
            return True
        return False

    def _writes_active(self, inst: ir.Instruction) -> bool:
        if isinstance(inst, ir.StoreInst):
            v = inst.value
            if v.type.is_pointer:
                return v in self.shadowed
            if has_float(v.type):
                return v in self.varied
            return not isinstance(v.type, ir.IntType)  # aggregates: conservatively active
        assert isinstance(inst, ir.CallBase)  # memcpy/memmove into the alloca
        return inst.args[1] in self.shadowed

    # -- memory writes -----------------------------------------------------------------
    def _written_objects(self) -> list[tuple[ir.Instruction, ir.Value | None]]:
        """The writing instructions and the underlying objects they may write (None:
        anything)."""
        out: list[tuple[ir.Instruction, ir.Value | None]] = []
        for inst in self.fn.instructions():
            base = _written_object(inst)
            if base is not _NO_WRITE:
                out.append((inst, base))  # type: ignore[arg-type]
        return out

    def exclude_writes(self, insts: set[ir.Instruction]) -> None:
        """Forget writes that the forward pass performs after the reverse pass (sunk
        stores): they cannot clobber what the reverse pass reloads."""
        self.writes = [(i, b) for i, b in self.writes if i not in insts]

    def reachable_after(self, bb: ir.BasicBlock) -> frozenset[ir.BasicBlock]:
        """Blocks that can execute after ``bb`` (``bb`` itself only on a cycle)."""
        got = self._reach.get(bb)
        if got is None:
            seen: set[ir.BasicBlock] = set()
            stack = list(bb.successors())
            while stack:
                b = stack.pop()
                if b not in seen:
                    seen.add(b)
                    stack.extend(b.successors())
            got = self._reach[bb] = frozenset(seen)
        return got

    def _may_follow(self, write: ir.Instruction, inst: ir.Instruction) -> bool:
        """Can ``write`` execute after ``inst`` (in the same call of the function)?"""
        wb, ib = write.parent, inst.parent
        if wb is None or ib is None:
            return True
        if wb in self.reachable_after(ib):
            return True
        if wb is ib:
            insts = ib.instructions
            return insts.index(write) > insts.index(inst)
        return False

    def may_be_overwritten(self, pointer: ir.Value, after: ir.Instruction | None = None
                           ) -> bool:
        """Whether a write of the function may alias the memory ``pointer`` points to
        (only writes that can execute after ``after`` count, when it is given)."""
        base = underlying_object(pointer)
        writes = self.writes if after is None else [
            (i, w) for i, w in self.writes if self._may_follow(i, after)]
        if base is None:
            return bool(writes)
        for _, w in writes:
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


_NO_WRITE = object()


def alloca_may_hold(pointer: ir.Value, varied: set[ir.Value]) -> bool:
    """Forward mode's check: can a load through ``pointer`` carry a tangent? False for a
    local (``%x.addr`` of unoptimized IR) that only ever receives values outside
    ``varied`` (an ``enzyme_const`` pointer argument, a counter)."""
    base = underlying_object(pointer)
    if not isinstance(base, ir.AllocaInst):
        return True
    writes = _alloca_writes(base)
    if writes is None:
        return True
    for w in writes:
        if isinstance(w, ir.StoreInst):
            v = w.value
            if v in varied or not (v.type.is_pointer or has_float(v.type)
                                   or isinstance(v.type, ir.IntType)):
                return True
        elif w.args[1] in varied:  # type: ignore[attr-defined]
            return True
    return False


def _alloca_writes(alloca: ir.AllocaInst) -> list[ir.Instruction] | None:
    """The stores and memcpys into ``alloca`` (through GEPs and casts); None when its
    address escapes (stored, passed to a call, merged by a phi/select...)."""
    writes: list[ir.Instruction] = []
    work: list[ir.Value] = [alloca]
    seen: set[int] = set()
    while work:
        p = work.pop()
        if id(p) in seen:
            continue
        seen.add(id(p))
        for use in p.uses:
            u = use.user
            if isinstance(u, ir.GetElementPtrInst) or (
                    isinstance(u, ir.CastInst) and u.opcode in ("bitcast", "addrspacecast")):
                work.append(u)
            elif isinstance(u, ir.LoadInst | ir.CmpInst):
                continue
            elif isinstance(u, ir.StoreInst):
                if u.value is p:
                    return None  # the address itself is stored
                writes.append(u)
            elif isinstance(u, ir.CallBase):
                name = callee_name(u)
                if is_ignored_intrinsic(name) or (name or "").startswith("llvm.memset"):
                    continue
                if (name or "").startswith(("llvm.memcpy", "llvm.memmove")):
                    if u.args[0] is p and u.args[1] is not p:
                        writes.append(u)
                    elif u.args[0] is not p:
                        continue  # only read
                    else:
                        return None
                    continue
                return None
            else:
                return None
    return writes


def _written_object(inst: ir.Instruction) -> object:
    """The underlying object ``inst`` may write, None for anything, _NO_WRITE if none."""
    if isinstance(inst, ir.StoreInst | ir.AtomicRMWInst | ir.AtomicCmpXchgInst):
        return underlying_object(inst.pointer)
    if not isinstance(inst, ir.CallBase):
        return _NO_WRITE
    name = callee_name(inst)
    fn = inst.called_function
    if name is None or fn is None:
        return None
    if name.startswith("llvm.lifetime.end"):  # the contents are dead afterwards
        ptrs = [a for a in inst.args if a.type.is_pointer]
        return underlying_object(ptrs[-1]) if ptrs else None
    if is_ignored_intrinsic(name) or name in ALLOCATION_FUNCTIONS:
        return _NO_WRITE
    if name in FREE_FUNCTIONS and inst.args:
        base = underlying_object(inst.args[0])
        if isinstance(base, ir.CallInst) and callee_name(base) in ALLOCATION_FUNCTIONS:
            return _NO_WRITE  # the function's own allocation: freed after the reverse pass
        return base
    if name.startswith(("llvm.memcpy", "llvm.memmove", "llvm.memset")):
        return underlying_object(inst.args[0])
    if (name in INACTIVE_FUNCTIONS or name.startswith("llvm.")
            or (fn.is_declaration and is_libm(name))
            or (not fn.is_declaration and _readonly(fn))):
        return _NO_WRITE
    return None


def is_libm(name: str) -> bool:
    from irgrad.ad.rules import lookup_call

    return lookup_call(name) is not None
