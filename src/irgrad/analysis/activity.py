"""Activity analysis (Enzyme's ActivityAnalysis): which values may carry a derivative.

A value is **active** when all of these hold:

* it can hold a floating-point number: a float / float vector / aggregate with floats, an
  integer that type analysis says carries a float (clang copies doubles through ``i64``),
  or a pointer that may point to active memory;
* it depends on an active input (forward propagation through data flow and through
  memory: storing an active value makes the pointed-to objects active; loading from an
  active object gives an active value);
* for non-pointer values: it may influence an active output (backward usefulness from
  the returned value when the return is active, from stores into active memory and from
  calls with side effects).

Pointers are tracked by their underlying objects (arguments, allocas, allocation calls,
globals, loaded pointers) through GEPs, casts, phis and selects.
Inactive by fiat: integers (unless type analysis says float), printf-family and other
I/O calls, errno, allocation bookkeeping, debug/lifetime intrinsics.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from irgrad.analysis.cfg import reverse_postorder
from irgrad.ir.constants import Constant
from irgrad.ir.function import Argument, BasicBlock, Function
from irgrad.ir.globals import GlobalValue
from irgrad.ir.instructions import (
    AllocaInst,
    CallBase,
    CmpInst,
    GetElementPtrInst,
    Instruction,
    LoadInst,
    PHINode,
    ReturnInst,
    SelectInst,
    StoreInst,
)
from irgrad.ir.types import ArrayType, StructType, Type, VectorType

if TYPE_CHECKING:
    from irgrad.analysis.type_analysis import TypeResults
    from irgrad.ir.values import Value

INACTIVE_CALLS = frozenset(["printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "puts", "fputs", "putchar", "fputc", "putc", "fwrite", "fflush", "fopen", "fclose", "perror", "__errno_location", "__error", "exit", "abort", "_exit", "time", "clock", "rand", "srand", "random", "srandom", "gettimeofday", "clock_gettime", "getenv", "malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc", "_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "__cxa_guard_acquire", "__cxa_guard_release", "__assert_fail", "__cxa_atexit", "memset_pattern16", "strlen", "strcmp", "strcpy"])
INACTIVE_PREFIXES = (
    "llvm.lifetime.", "llvm.dbg.", "llvm.assume", "llvm.experimental.noalias.scope.decl",
    "llvm.invariant.", "llvm.stacksave", "llvm.stackrestore", "llvm.prefetch",
    "llvm.trap", "llvm.donothing", "llvm.var.annotation", "llvm.objectsize",
    "NRT_", "numba_gil_", "Py", "_Py",
)
ALLOCATION_CALLS = frozenset(
    ["malloc", "calloc", "realloc", "aligned_alloc", "_Znwm", "_Znam", "posix_memalign"]
)
MEMORY_TRANSFER_PREFIXES = ("llvm.memcpy.", "llvm.memmove.", "llvm.memcpy.inline.")
LIBM_BASES = frozenset(["sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp", "exp2", "exp10", "expm1", "log", "log10", "log2", "log1p", "pow", "sqrt", "cbrt", "fabs", "fmin", "fmax", "fma", "hypot", "erf", "erfc", "tgamma", "lgamma", "floor", "ceil", "round", "trunc", "rint", "nearbyint", "copysign", "fmod", "remainder", "ldexp", "scalbn", "j0", "j1", "y0", "y1", "jn", "yn"])


def is_pure_math(name: str) -> bool:
    """libm functions and floating-point intrinsics: their result follows the operands."""
    if name.startswith("llvm."):
        base = name[5:].split(".")[0]
        return base in LIBM_BASES or base in {"fmuladd", "powi", "minnum", "maxnum",
                                              "minimum", "maximum", "exp10", "sincos"}
    if name in LIBM_BASES:
        return True
    if name[-1:] in ("f", "l") and name[:-1] in LIBM_BASES:
        return True
    try:
        from irgrad.ad.rules import lookup_call
    except ImportError:  # pragma: no cover - rules are part of the package
        return False
    return lookup_call(name) is not None


def is_inactive_call(name: str) -> bool:
    return name in INACTIVE_CALLS or name.startswith(INACTIVE_PREFIXES)


def type_has_float(t: Type) -> bool:
    if t.is_float:
        return True
    if isinstance(t, VectorType | ArrayType):
        return type_has_float(t.element)
    if isinstance(t, StructType) or t.is_struct:
        return any(type_has_float(e) for e in t.elements)  # type: ignore[attr-defined]
    return False


def underlying_objects(ptr: Value) -> set[Value]:
    """The objects a pointer may be based on (through GEP, casts, phi, select)."""
    out: set[Value] = set()
    seen: set[int] = set()
    work = [ptr]
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, GetElementPtrInst):
            work.append(v.pointer)
        elif isinstance(v, Instruction) and v.opcode in ("bitcast", "addrspacecast", "freeze"):
            work.append(v.operands[0])
        elif isinstance(v, PHINode):
            work.extend(val for val, _ in v.incoming)
        elif isinstance(v, SelectInst):
            work.extend((v.true_value, v.false_value))
        elif isinstance(v, Instruction) and v.opcode == "call" and _returns_arg(v):
            work.append(v.operands[0])
        else:
            out.add(v)
    return out


def _returns_arg(call: Instruction) -> bool:
    return isinstance(call, CallBase) and any("returned" in a for a in call.arg_attrs[:1])


def _callee_name(call: CallBase) -> str | None:
    fn = call.called_function
    return fn.name if fn is not None else None


class ActivityAnalysis:
    """Activity of the values and instructions of ``fn``.

    ``arg_activity[i]`` is True when argument i is active (float: differentiated; pointer:
    duplicated, its memory carries derivatives). ``return_active``: the return value is an
    active output. ``types``: optional :class:`TypeResults` for integers carrying floats.
    """

    def __init__(self, fn: Function, arg_activity: Sequence[bool], return_active: bool,
                 types: TypeResults | None = None) -> None:
        self.function = fn
        self.arg_activity = list(arg_activity) + [False] * (len(fn.args) - len(arg_activity))
        self.return_active = return_active
        self.types = types
        self._roots: dict[int, set[Value]] = {}
        self.active_memory: set[Value] = set()
        self._forward: set[Value] = set()
        self._useful: set[Value] = set()
        self._order = [i for bb in reverse_postorder(fn) for i in bb.instructions] if fn.blocks else []
        self._solve()

    # -- helpers ---------------------------------------------------------------------
    def _roots_of(self, ptr: Value) -> set[Value]:
        r = self._roots.get(id(ptr))
        if r is None:
            r = underlying_objects(ptr)
            self._roots[id(ptr)] = r
        return r

    def _points_to_active(self, ptr: Value) -> bool:
        return not self.active_memory.isdisjoint(self._roots_of(ptr))

    def carries_float(self, v: Value) -> bool:
        """Can ``v`` (a non-pointer) hold a floating-point number?"""
        if type_has_float(v.type):
            return True
        if v.type.is_integer and self.types is not None:
            return self.types.carries_float(v)
        return False

    def _activate_memory(self, ptr: Value) -> bool:
        roots = self._roots_of(ptr)
        new = roots - self.active_memory
        if not new:
            return False
        self.active_memory |= new
        return True

    def _fwd(self, v: Value) -> bool:
        if v.type.is_pointer:
            return self._points_to_active(v)
        return v in self._forward

    # -- the fixed point -------------------------------------------------------------
    def _solve(self) -> None:
        fn = self.function
        for a, act in zip(fn.args, self.arg_activity, strict=False):
            if not act:
                continue
            if a.type.is_pointer:
                self.active_memory.add(a)
            elif self.carries_float(a):
                self._forward.add(a)
        changed = True
        while changed:
            changed = False
            for inst in self._order:
                if self._visit_forward(inst):
                    changed = True
        self._solve_useful()

    def _visit_forward(self, inst: Instruction) -> bool:
        changed = False
        if isinstance(inst, StoreInst):
            v = inst.value
            if self._fwd(v) and (v.type.is_pointer or self.carries_float(v)):
                changed |= self._activate_memory(inst.pointer)
            return changed
        if isinstance(inst, CallBase):
            return self._visit_call(inst)
        if isinstance(inst, LoadInst):
            if self._points_to_active(inst.pointer):
                if inst.type.is_pointer:
                    if inst not in self.active_memory:
                        self.active_memory.add(inst)
                        changed = True
                elif self.carries_float(inst) and inst not in self._forward:
                    self._forward.add(inst)
                    changed = True
            return changed
        if inst.type.is_void or inst.type.is_pointer or isinstance(inst, CmpInst):
            if inst.opcode == "inttoptr" and self._fwd(inst.operands[0]) and inst not in self.active_memory:
                self.active_memory.add(inst)
                return True
            return False
        if inst in self._forward or not self.carries_float(inst):
            return False
        ops = [op for op in inst.operands if not isinstance(op, BasicBlock)]
        if isinstance(inst, SelectInst):
            ops = ops[1:]
        if any(self._fwd(op) for op in ops):
            self._forward.add(inst)
            return True
        return False

    def _visit_call(self, call: CallBase) -> bool:
        name = _callee_name(call)
        changed = False
        args = list(call.args)
        if name is not None and name.startswith(MEMORY_TRANSFER_PREFIXES):
            if len(args) >= 2 and self._points_to_active(args[1]):
                changed |= self._activate_memory(args[0])
            return changed
        if name is not None and (is_inactive_call(name) or name.startswith("llvm.memset.")):
            return False
        any_active = any(self._fwd(a) for a in args)
        if not any_active:
            return False
        if name is None or not is_pure_math(name):
            for k, a in enumerate(args):
                attrs = call.arg_attrs[k] if k < len(call.arg_attrs) else []
                if a.type.is_pointer and not any(x in ("readonly", "readnone") for x in attrs):
                    changed |= self._activate_memory(a)
        if call.type.is_pointer:
            if call not in self.active_memory:
                self.active_memory.add(call)
                changed = True
        elif not call.type.is_void and self.carries_float(call) and call not in self._forward:
            self._forward.add(call)
            changed = True
        return changed

    def _solve_useful(self) -> None:
        useful = self._useful
        work: list[Value] = []

        def mark(vals: Iterable[Value]) -> None:
            for v in vals:
                if isinstance(v, Instruction | Argument) and v not in useful:
                    useful.add(v)
                    work.append(v)

        for inst in self._order:
            if (isinstance(inst, ReturnInst) and inst.value is not None and self.return_active) or (isinstance(inst, StoreInst) and self._points_to_active(inst.pointer)):
                mark([inst.value])
            elif isinstance(inst, CallBase):
                name = _callee_name(inst)
                if name is not None and (is_inactive_call(name) or is_pure_math(name)):
                    continue
                if any(self._fwd(a) for a in inst.args):
                    mark(inst.args)
        while work:
            v = work.pop()
            if isinstance(v, Instruction) and not isinstance(v, LoadInst | AllocaInst):
                mark(op for op in v.operands if not isinstance(op, BasicBlock))

    # -- queries ---------------------------------------------------------------------
    def is_constant_value(self, v: Value) -> bool:
        """True when ``v`` cannot carry a derivative."""
        if isinstance(v, Argument):
            if v.parent is not self.function:
                return True
            return not (self.arg_activity[v.index] and (v.type.is_pointer or self.carries_float(v)))
        if isinstance(v, Constant | GlobalValue | BasicBlock) and not isinstance(v, Instruction):
            return not (v.type.is_pointer and v in self.active_memory)
        if not isinstance(v, Instruction) or v.type.is_void:
            return True
        if v.type.is_pointer:
            return not self._points_to_active(v)
        return not (v in self._forward and v in self._useful)

    def is_constant_instruction(self, inst: Instruction) -> bool:
        """True when ``inst`` needs no derivative code."""
        if inst.is_terminator:
            return True
        if isinstance(inst, StoreInst):
            v = inst.value
            return not (self._points_to_active(inst.pointer)
                        and (v.type.is_pointer or self.carries_float(v)))
        if isinstance(inst, CallBase):
            name = _callee_name(inst)
            if name is not None and is_inactive_call(name):
                return True
            if name is not None and name.startswith((*MEMORY_TRANSFER_PREFIXES, "llvm.memset.")):
                return not self._points_to_active(inst.args[0])
            if not inst.type.is_void and not self.is_constant_value(inst):
                return False
            if name is not None and is_pure_math(name):
                return True
            return not any(self._fwd(a) for a in inst.args)
        if inst.type.is_void:
            return True
        if inst.type.is_pointer:
            # pointer arithmetic of active pointers is needed for their shadows
            return self.is_constant_value(inst)
        return self.is_constant_value(inst)


def default_activity(fn: Function) -> tuple[list[bool], bool]:
    """Enzyme's defaults without markers: pointers duplicated, floats active, ints constant;
    a floating-point return is active."""
    args = [a.type.is_pointer or type_has_float(a.type) for a in fn.args]
    return args, type_has_float(fn.return_type)


def print_activity(fn: Function, analysis: ActivityAnalysis) -> str:
    """Per argument ``<arg>: icv:N`` and per instruction ``<inst>: icv:N ici:N`` (Enzyme's
    ``-print-activity``), with block names on their own lines."""
    from irgrad.analysis.printers import ValuePrinter

    vp = ValuePrinter(fn)
    lines = []
    for a in fn.args:
        lines.append(f"{vp.typed(a)}: icv:{int(analysis.is_constant_value(a))}")
    for bb in fn.blocks:
        lines.append(vp.ref(bb).lstrip("%"))
        for inst in bb.instructions:
            icv = int(analysis.is_constant_value(inst))
            ici = int(analysis.is_constant_instruction(inst))
            lines.append(f"  {vp.instruction(inst)}: icv:{icv} ici:{ici}")
    return "\n".join(lines) + "\n"


__all__ = [
    "ActivityAnalysis",
    "default_activity",
    "is_inactive_call",
    "is_pure_math",
    "print_activity",
    "type_has_float",
    "underlying_objects",
]
