"""The instruction half of the LLVM IR printer: one method per instruction kind, mixed
into :class:`irgrad.ir.printer.Printer` (which provides operand references)."""

from __future__ import annotations

from collections.abc import Callable

from .constants import ConstantInt
from .instructions import Instruction
from .values import MetadataAsValue, Value


class InstructionPrinter:
    """Instruction bodies (without the ``%name =`` part); ``ref``/``typed`` come from the
    printer this is mixed into."""

    def ref(self, v: Value) -> str:
        raise NotImplementedError

    def typed(self, v: Value) -> str:
        raise NotImplementedError

    def i_binary(self, i: Instruction) -> str:
        a, b = i._operands
        fl = " ".join(i.flags)
        fl = f" {fl}" if fl else ""
        return f"{i.opcode}{fl} {a.type} {self.ref(a)}, {self.ref(b)}"

    def i_fneg(self, i: Instruction) -> str:
        fl = "".join(f" {f}" for f in i.flags)
        return f"fneg{fl} {self.typed(i._operands[0])}"

    def i_cmp(self, i: Instruction) -> str:
        a, b = i._operands
        fl = "".join(f" {f}" for f in i.flags)
        return f"{i.opcode}{fl} {i.predicate} {a.type} {self.ref(a)}, {self.ref(b)}"  # type: ignore[attr-defined]

    def i_cast(self, i: Instruction) -> str:
        fl = "".join(f" {f}" for f in i.flags)
        return f"{i.opcode}{fl} {self.typed(i._operands[0])} to {i.type}"

    def i_alloca(self, i: Instruction) -> str:
        s = "alloca "
        if i.inalloca:  # type: ignore[attr-defined]
            s += "inalloca "
        if i.swifterror:  # type: ignore[attr-defined]
            s += "swifterror "
        s += str(i.allocated_type)  # type: ignore[attr-defined]
        c = i.count  # type: ignore[attr-defined]
        if c is not None and not (isinstance(c, ConstantInt) and c.value == 1
                                  and c.type.width == 32):  # type: ignore[attr-defined]
            s += f", {self.typed(c)}"
        if i.align is not None:  # type: ignore[attr-defined]
            s += f", align {i.align}"  # type: ignore[attr-defined]
        if i.addrspace:  # type: ignore[attr-defined]
            s += f", addrspace({i.addrspace})"  # type: ignore[attr-defined]
        return s

    @staticmethod
    def _atomic_suffix(i: Instruction) -> str:
        s = ""
        if i.syncscope is not None:  # type: ignore[attr-defined]
            s += f' syncscope("{i.syncscope}")'  # type: ignore[attr-defined]
        return s + f" {i.ordering}"  # type: ignore[attr-defined]

    def i_load(self, i: Instruction) -> str:
        atomic = i.ordering is not None  # type: ignore[attr-defined]
        s = "load atomic " if atomic else "load "
        if i.volatile:  # type: ignore[attr-defined]
            s += "volatile "
        s += f"{i.type}, {self.typed(i._operands[0])}"
        if atomic:
            s += self._atomic_suffix(i)
        if i.align is not None:  # type: ignore[attr-defined]
            s += f", align {i.align}"  # type: ignore[attr-defined]
        return s

    def i_store(self, i: Instruction) -> str:
        atomic = i.ordering is not None  # type: ignore[attr-defined]
        s = "store atomic " if atomic else "store "
        if i.volatile:  # type: ignore[attr-defined]
            s += "volatile "
        v, p = i._operands
        s += f"{v.type} {self.ref(v)}, {p.type} {self.ref(p)}"
        if atomic:
            s += self._atomic_suffix(i)
        if i.align is not None:  # type: ignore[attr-defined]
            s += f", align {i.align}"  # type: ignore[attr-defined]
        return s

    def i_gep(self, i: Instruction) -> str:
        fl = "".join(f" {f}" for f in i.flags)
        ops = ", ".join(f"{o.type} {self.ref(o)}" for o in i._operands)
        return f"getelementptr{fl} {i.source_type}, {ops}"  # type: ignore[attr-defined]

    def _call_common(self, i: Instruction) -> str:
        ft = i.function_type  # type: ignore[attr-defined]
        s = ""
        if i.calling_conv:  # type: ignore[attr-defined]
            s += f" {i.calling_conv}"  # type: ignore[attr-defined]
        if i.return_attrs:  # type: ignore[attr-defined]
            s += " " + " ".join(i.return_attrs)  # type: ignore[attr-defined]
        s += f" {ft if ft.var_arg else ft.return_type} {self.ref(i._operands[-1])}("
        ops = i._operands
        attrs = i.arg_attrs  # type: ignore[attr-defined]
        parts = []
        for k in range(i._nargs):  # type: ignore[attr-defined]
            a = ops[k]
            at = attrs[k] if k < len(attrs) else None
            if isinstance(a, MetadataAsValue):
                parts.append(f"metadata {self.ref(a)}")
            elif at:
                parts.append(f"{a.type} {' '.join(at)} {self.ref(a)}")
            else:
                parts.append(f"{a.type} {self.ref(a)}")
        s += ", ".join(parts) + ")"
        if i.fn_attrs:  # type: ignore[attr-defined]
            s += " " + " ".join(i.fn_attrs)  # type: ignore[attr-defined]
        bundles = i.bundles  # type: ignore[attr-defined]
        if bundles:
            bs = ", ".join(
                f'"{tag}"(' + ", ".join(self.typed(v) for v in vals) + ")" for tag, vals in bundles
            )
            s += f" [ {bs} ]"
        return s

    def i_call(self, i: Instruction) -> str:
        tail = f"{i.tail} " if i.tail else ""  # type: ignore[attr-defined]
        fl = "".join(f" {f}" for f in i.flags)
        return f"{tail}call{fl}{self._call_common(i)}"

    def i_invoke(self, i: Instruction) -> str:
        return (f"invoke{self._call_common(i)}\n          to label {self.ref(i.normal_dest)}"  # type: ignore[attr-defined]
                f" unwind label {self.ref(i.unwind_dest)}")  # type: ignore[attr-defined]

    def i_callbr(self, i: Instruction) -> str:
        ind = ", ".join(f"label {self.ref(b)}" for b in i.indirect_dests)  # type: ignore[attr-defined]
        return (f"callbr{self._call_common(i)}\n          to label "
                f"{self.ref(i.default_dest)} [{ind}]")  # type: ignore[attr-defined]

    def i_phi(self, i: Instruction) -> str:
        fl = "".join(f" {f}" for f in i.flags)
        ops = i._operands
        inc = ", ".join(
            f"[ {self.ref(ops[k])}, {self.ref(ops[k + 1])} ]" for k in range(0, len(ops), 2)
        )
        return f"phi{fl} {i.type} {inc}"

    def i_select(self, i: Instruction) -> str:
        fl = "".join(f" {f}" for f in i.flags)
        return "select" + fl + " " + ", ".join(self.typed(o) for o in i._operands)

    def i_ret(self, i: Instruction) -> str:
        return f"ret {self.typed(i._operands[0])}" if i._operands else "ret void"

    def i_br(self, i: Instruction) -> str:
        ops = i._operands
        if len(ops) == 1:
            return f"br label {self.ref(ops[0])}"
        return f"br {self.typed(ops[0])}, label {self.ref(ops[1])}, label {self.ref(ops[2])}"

    def i_switch(self, i: Instruction) -> str:
        ops = i._operands
        s = f"switch {self.typed(ops[0])}, label {self.ref(ops[1])} ["
        for k in range(2, len(ops), 2):
            s += f"\n    {self.typed(ops[k])}, label {self.ref(ops[k + 1])}"
        return s + "\n  ]"

    def i_indirectbr(self, i: Instruction) -> str:
        ops = i._operands
        dests = ", ".join(f"label {self.ref(b)}" for b in ops[1:])
        return f"indirectbr {self.typed(ops[0])}, [{dests}]"

    def i_unreachable(self, i: Instruction) -> str:
        return "unreachable"

    def i_extractvalue(self, i: Instruction) -> str:
        idx = "".join(f", {k}" for k in i.indices)  # type: ignore[attr-defined]
        return f"extractvalue {self.typed(i._operands[0])}{idx}"

    def i_insertvalue(self, i: Instruction) -> str:
        a, v = i._operands
        idx = "".join(f", {k}" for k in i.indices)  # type: ignore[attr-defined]
        return f"insertvalue {self.typed(a)}, {self.typed(v)}{idx}"

    def i_operands(self, i: Instruction) -> str:
        return f"{i.opcode} " + ", ".join(self.typed(o) for o in i._operands)

    def i_atomicrmw(self, i: Instruction) -> str:
        p, v = i._operands
        vol = "volatile " if i.volatile else ""  # type: ignore[attr-defined]
        s = f"atomicrmw {vol}{i.operation} {self.typed(p)}, {self.typed(v)}"  # type: ignore[attr-defined]
        s += self._atomic_suffix(i)
        if i.align is not None:  # type: ignore[attr-defined]
            s += f", align {i.align}"  # type: ignore[attr-defined]
        return s

    def i_cmpxchg(self, i: Instruction) -> str:
        p, c, n = i._operands
        s = "cmpxchg "
        if i.weak:  # type: ignore[attr-defined]
            s += "weak "
        if i.volatile:  # type: ignore[attr-defined]
            s += "volatile "
        s += f"{self.typed(p)}, {self.typed(c)}, {self.typed(n)}"
        s += self._atomic_suffix(i) + f" {i.failure_ordering}"  # type: ignore[attr-defined]
        if i.align is not None:  # type: ignore[attr-defined]
            s += f", align {i.align}"  # type: ignore[attr-defined]
        return s

    def i_fence(self, i: Instruction) -> str:
        return "fence" + self._atomic_suffix(i)

    def i_va_arg(self, i: Instruction) -> str:
        return f"va_arg {self.typed(i._operands[0])}, {i.type}"

    def i_landingpad(self, i: Instruction) -> str:
        s = f"landingpad {i.type}"
        if i.cleanup:  # type: ignore[attr-defined]
            s += "\n          cleanup"
        for kind, v in i.clauses:  # type: ignore[attr-defined]
            s += f"\n          {kind} {self.typed(v)}"
        return s

    def i_resume(self, i: Instruction) -> str:
        return f"resume {self.typed(i._operands[0])}"

    def i_pad(self, i: Instruction) -> str:
        ops = i._operands
        args = ", ".join(self.typed(a) for a in ops[1:])
        return f"{i.opcode} within {self.ref(ops[0])} [{args}]"

    def i_catchswitch(self, i: Instruction) -> str:
        hs = ", ".join(f"label {self.ref(b)}" for b in i.handlers)  # type: ignore[attr-defined]
        u = i.unwind_dest  # type: ignore[attr-defined]
        unwind = f"label {self.ref(u)}" if u is not None else "to caller"
        return f"catchswitch within {self.ref(i._operands[0])} [{hs}] unwind {unwind}"

    def i_catchret(self, i: Instruction) -> str:
        p, d = i._operands
        return f"catchret from {self.ref(p)} to label {self.ref(d)}"

    def i_cleanupret(self, i: Instruction) -> str:
        ops = i._operands
        unwind = f"label {self.ref(ops[1])}" if len(ops) > 1 else "to caller"
        return f"cleanupret from {self.ref(ops[0])} unwind {unwind}"


INSTRUCTION_PRINTERS: dict[str, Callable[[InstructionPrinter, Instruction], str]] = {}
for _op in ["add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor", "fadd", "fsub", "fmul", "fdiv", "frem"]:
    INSTRUCTION_PRINTERS[_op] = InstructionPrinter.i_binary
for _op in ["trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp", "ptrtoint", "inttoptr", "bitcast", "addrspacecast", "ptrtoaddr"]:
    INSTRUCTION_PRINTERS[_op] = InstructionPrinter.i_cast
INSTRUCTION_PRINTERS.update(
    fneg=InstructionPrinter.i_fneg, icmp=InstructionPrinter.i_cmp, fcmp=InstructionPrinter.i_cmp, alloca=InstructionPrinter.i_alloca,
    load=InstructionPrinter.i_load, store=InstructionPrinter.i_store, getelementptr=InstructionPrinter.i_gep,
    call=InstructionPrinter.i_call, invoke=InstructionPrinter.i_invoke, callbr=InstructionPrinter.i_callbr, phi=InstructionPrinter.i_phi,
    select=InstructionPrinter.i_select, ret=InstructionPrinter.i_ret, br=InstructionPrinter.i_br, switch=InstructionPrinter.i_switch,
    indirectbr=InstructionPrinter.i_indirectbr, unreachable=InstructionPrinter.i_unreachable,
    extractvalue=InstructionPrinter.i_extractvalue, insertvalue=InstructionPrinter.i_insertvalue,
    extractelement=InstructionPrinter.i_operands, insertelement=InstructionPrinter.i_operands,
    shufflevector=InstructionPrinter.i_operands, freeze=InstructionPrinter.i_operands,
    atomicrmw=InstructionPrinter.i_atomicrmw, cmpxchg=InstructionPrinter.i_cmpxchg, fence=InstructionPrinter.i_fence,
    va_arg=InstructionPrinter.i_va_arg, landingpad=InstructionPrinter.i_landingpad, resume=InstructionPrinter.i_resume,
    cleanuppad=InstructionPrinter.i_pad, catchpad=InstructionPrinter.i_pad, catchswitch=InstructionPrinter.i_catchswitch,
    catchret=InstructionPrinter.i_catchret, cleanupret=InstructionPrinter.i_cleanupret,
)


__all__ = ["INSTRUCTION_PRINTERS", "InstructionPrinter"]
