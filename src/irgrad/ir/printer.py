"""LLVM IR text printer: ``print_module(m)``, ``print_instruction(inst)``.

Unnamed locals are numbered per function in order (arguments, then blocks and
instructions); duplicate names are made unique in the output (``x``, ``x1``...). A
function whose body was never parsed re-emits its original body text.
"""

from __future__ import annotations

from collections.abc import Callable

from .constants import (
    BlockAddress,
    ConstantAggregateZero,
    ConstantArray,
    ConstantDataString,
    ConstantExpr,
    ConstantFP,
    ConstantInt,
    ConstantPointerNull,
    ConstantStruct,
    ConstantTargetNone,
    ConstantTokenNone,
    ConstantVector,
    DSOLocalEquivalent,
    InlineAsm,
    NoCFIValue,
    PoisonValue,
    UndefValue,
)
from .function import Argument, BasicBlock, Function
from .globals import GlobalAlias, GlobalValue, GlobalVariable
from .instructions import Instruction
from .lexer import escape_bytes, gc_paused
from .module import Module
from .types import quote_name
from .values import MetadataAsValue, Value


class SlotTracker:
    """Printed names of one function's locals."""

    def __init__(self, fn: Function | None) -> None:
        self.names: dict[int, str] = {}
        if fn is None:
            return
        names = self.names
        used: set[str] = set()
        num = 0

        def assign(v: Value) -> None:
            nonlocal num
            nm = v.name
            if nm is None:
                names[id(v)] = f"%{num}"
                num += 1
                return
            if nm in used:
                k = 1
                while f"{nm}{k}" in used:
                    k += 1
                nm = f"{nm}{k}"
            used.add(nm)
            names[id(v)] = "%" + quote_name(nm)

        for a in fn.args:
            assign(a)
        for bb in fn.blocks:
            assign(bb)
            for inst in bb.instructions:
                if not inst.type.is_void:
                    assign(inst)

    def local(self, v: Value) -> str:
        n = self.names.get(id(v))
        if n is not None:
            return n
        return "%" + quote_name(v.name) if v.name else "%<badref>"


class Printer:
    def __init__(self) -> None:
        self.slots = SlotTracker(None)

    # -- operands ------------------------------------------------------------------------
    def ref(self, v: Value) -> str:
        """The operand spelling of ``v`` (without type)."""
        if isinstance(v, (Instruction, Argument, BasicBlock)):
            return self.slots.local(v)
        if isinstance(v, GlobalValue):
            return "@" + quote_name(v.name)
        f = _CONST_PRINTERS.get(type(v))
        if f is not None:
            return f(self, v)
        if isinstance(v, MetadataAsValue):
            if v.value is None:
                return v.raw
            return f"{v.raw} {self.ref(v.value)}"
        if isinstance(v, InlineAsm):
            flags = "".join(
                f" {w}" for w, on in (("sideeffect", v.side_effect), ("alignstack", v.align_stack),
                                      ("inteldialect", v.dialect == "intel"),
                                      ("unwind", v.can_throw)) if on
            )
            return f'asm{flags} "{v.asm}", "{v.constraints}"'
        if v.name:
            return "%" + quote_name(v.name)
        return "<badref>"

    def typed(self, v: Value) -> str:
        return f"{v.type} {self.ref(v)}"

    # -- constants -----------------------------------------------------------------------
    def c_int(self, c: ConstantInt) -> str:
        t = c.type
        if t.width == 1:  # type: ignore[attr-defined]
            return "true" if c.value & 1 else "false"
        return str(c.signed_value)

    def c_fp(self, c: ConstantFP) -> str:
        return c.spelling()

    def c_agg(self, c: Value) -> str:
        ops = c._operands  # type: ignore[attr-defined]
        if isinstance(c, ConstantArray):
            return "[" + ", ".join(self.typed(e) for e in ops) + "]"
        if isinstance(c, ConstantVector):
            if c.splat:
                return f"splat ({self.typed(ops[0])})"
            return "<" + ", ".join(self.typed(e) for e in ops) + ">"
        body = ", ".join(self.typed(e) for e in ops)
        packed = getattr(c.type, "packed", False)
        if not ops:
            return "<{}>" if packed else "{}"
        return f"<{{ {body} }}>" if packed else f"{{ {body} }}"

    def c_string(self, c: ConstantDataString) -> str:
        return f'c"{escape_bytes(c.data)}"'

    def c_expr(self, c: ConstantExpr) -> str:
        ops = c._operands
        flags = "".join(f" {f}" for f in c.flags if not f.startswith("inrange"))
        if c.opcode == "getelementptr":
            inr = "".join(f" {f}" for f in c.flags if f.startswith("inrange"))
            body = ", ".join(self.typed(o) for o in ops)
            return f"getelementptr{flags}{inr} ({c.source_type}, {body})"
        if len(ops) == 1:
            return f"{c.opcode}{flags} ({self.typed(ops[0])} to {c.type})"
        if c.predicate:
            return f"{c.opcode} {c.predicate} ({self.typed(ops[0])}, {self.typed(ops[1])})"
        return f"{c.opcode}{flags} ({self.typed(ops[0])}, {self.typed(ops[1])})"

    def c_blockaddress(self, c: BlockAddress) -> str:
        fn = c.function
        b = c.block
        if isinstance(b, BasicBlock):
            if b.name:
                bn = "%" + quote_name(b.name)
            else:
                bn = SlotTracker(fn).local(b) if isinstance(fn, Function) else "%<badref>"
        elif b.isdigit():
            bn = "%" + b  # a numbered block of a body that is still text
        else:
            bn = "%" + quote_name(b)
        return f"blockaddress({self.ref(fn)}, {bn})"

    # -- instructions --------------------------------------------------------------------
    def instruction(self, inst: Instruction) -> str:
        body = _INST_PRINTERS[inst.opcode](self, inst)
        if inst.metadata:
            body += "".join(f", !{k} {v}" for k, v in inst.metadata)
        if not inst.type.is_void:
            return f"{self.slots.local(inst)} = {body}"
        return body

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

    # -- functions and module ------------------------------------------------------------
    def function(self, fn: Function) -> str:
        lazy = fn._lazy
        decl = lazy is None and not fn._blocks
        out = ["declare" if decl else "define"]
        if decl and fn.metadata:
            out += [f"!{k} {v}" for k, v in fn.metadata]
        out += _global_prefix(fn)
        if fn.calling_conv:
            out.append(fn.calling_conv)
        out += fn.return_attrs
        ft = fn.function_type
        params = []
        keys = getattr(lazy, "arg_keys", None) or []
        numbered = 0
        for a in fn.args:
            p = str(a.type)
            if a.attrs:
                p += " " + " ".join(a.attrs)
            if not decl:
                if a.name is not None:
                    p += " %" + quote_name(a.name)
                elif lazy is not None:
                    p += f" %{keys[numbered] if numbered < len(keys) else numbered}"
                    numbered += 1
            params.append(p)
        if ft.var_arg:
            params.append("...")
        self.slots = SlotTracker(None if (decl or lazy is not None) else fn)
        if not decl and lazy is None:
            params = []
            for a in fn.args:
                p = str(a.type)
                if a.attrs:
                    p += " " + " ".join(a.attrs)
                params.append(f"{p} {self.slots.local(a)}")
            if ft.var_arg:
                params.append("...")
        out.append(f"{ft.return_type} @{quote_name(fn.name)}({', '.join(params)})")
        if fn.unnamed_addr:
            out.append(fn.unnamed_addr)
        if fn.addrspace:
            out.append(f"addrspace({fn.addrspace})")
        out += fn.fn_attrs
        if fn.section is not None:
            out.append(f'section "{fn.section}"')
        if fn.partition is not None:
            out.append(f'partition "{fn.partition}"')
        if fn.comdat is not None:
            out.append(f"comdat({fn.comdat})" if fn.comdat else "comdat")
        if fn.align is not None:
            out.append(f"align {fn.align}")
        if fn.gc is not None:
            out.append(f'gc "{fn.gc}"')
        for key in ("prefix", "prologue", "personality"):
            v = getattr(fn, key)
            if v is not None:
                out.append(f"{key} {self.typed(v)}")
        if not decl and fn.metadata:
            out += [f"!{k} {v}" for k, v in fn.metadata]
        header = " ".join(out)
        if decl:
            return header
        if lazy is not None:
            return header + " " + lazy.body  # type: ignore[attr-defined]
        return header + " {\n" + self.body(fn) + "}"

    def body(self, fn: Function) -> str:
        lines: list[str] = []
        slots = self.slots
        first = True
        for bb in fn.blocks:
            if not first:
                lines.append("")
            if bb.name is not None:
                label = quote_name(bb.name)
                if label[0] in "$-":  # would lex as a comdat name / number
                    label = f'"{label}"'
                lines.append(label + ":")
            elif not first:
                lines.append(slots.local(bb)[1:] + ":")
            first = False
            for inst in bb.instructions:
                for rec in inst.debug_records:
                    lines.append("    " + rec.render(self._record_ref))
                lines.append("  " + self.instruction(inst))
        for u in fn.uselistorder:
            lines.append("  " + u)
        return "\n".join(lines) + "\n"

    def _record_ref(self, v: Value) -> str:
        if isinstance(v, Instruction) and v.parent is None:
            return "poison"
        return self.ref(v)

    def global_variable(self, g: GlobalVariable) -> str:
        out = [f"@{quote_name(g.name)} ="]
        ext = g.initializer is None
        prefix = _global_prefix(g)
        if ext and not g.linkage:
            prefix.insert(0, "external")
        out += prefix
        if g.addrspace:
            out.append(f"addrspace({g.addrspace})")
        if g.externally_initialized:
            out.append("externally_initialized")
        out.append("constant" if g.is_constant_global else "global")
        out.append(str(g.value_type))
        if not ext:
            out.append(self.ref(g.initializer))  # type: ignore[arg-type]
        s = " ".join(out)
        if g.section is not None:
            s += f', section "{g.section}"'
        if g.partition is not None:
            s += f', partition "{g.partition}"'
        for e in g.extra:
            s += f", {e}"
        if g.comdat is not None:
            s += f", comdat({g.comdat})" if g.comdat else ", comdat"
        if g.align is not None:
            s += f", align {g.align}"
        for k, v in g.metadata:
            s += f", !{k} {v}"
        if g.attrs:
            s += " " + " ".join(g.attrs)
        return s

    def alias(self, a: GlobalAlias) -> str:
        out = [f"@{quote_name(a.name)} =", *_global_prefix(a)]
        if a.kind == "alias" and a.addrspace:
            pass
        out.append(a.kind)
        s = " ".join(out) + f" {a.value_type}, {self.typed(a.aliasee)}"
        if a.partition is not None:
            s += f', partition "{a.partition}"'
        for k, v in a.metadata:
            s += f", !{k} {v}"
        return s

    def module(self, m: Module) -> str:
        parts: list[str] = []
        head = []
        if m.source_filename is not None:
            head.append(f'source_filename = "{m.source_filename}"')
        if m.data_layout is not None:
            head.append(f'target datalayout = "{m.data_layout}"')
        if m.triple is not None:
            head.append(f'target triple = "{m.triple}"')
        if head:
            parts.append("\n".join(head))
        if m.module_asm:
            parts.append("\n".join(f'module asm "{a}"' for a in m.module_asm))
        if m.struct_types:
            parts.append("\n".join(f"{t} = type {t.definition()}" for t in m.struct_types.values()))
        if m.comdats:
            parts.append("\n".join(m.comdats))
        if m.globals:
            parts.append("\n".join(self.global_variable(g) for g in m.globals))
        if m.aliases or m.ifuncs:
            parts.append("\n".join(self.alias(a) for a in (*m.aliases, *m.ifuncs)))
        for fn in m.functions:
            parts.append(self.function(fn))
        if m.uselistorder:
            parts.append("\n".join(m.uselistorder))
        if m.attribute_groups:
            parts.append("\n".join(f"attributes #{k} = {{ {v} }}"
                                   for k, v in m.attribute_groups.items()))
        md = [*m.named_metadata, *m.metadata]
        if md:
            parts.append("\n".join(md))
        return "\n\n".join(parts) + "\n"


def _global_prefix(g: GlobalValue) -> list[str]:
    out = []
    for field in (g.linkage, g.preemption, g.visibility, g.dll_storage, g.thread_local):
        if field:
            out.append(field)
    if not isinstance(g, Function) and g.unnamed_addr:
        out.append(g.unnamed_addr)
    return out


_CONST_PRINTERS: dict[type, Callable[[Printer, Value], str]] = {
    ConstantInt: Printer.c_int,  # type: ignore[dict-item]
    ConstantFP: Printer.c_fp,  # type: ignore[dict-item]
    ConstantPointerNull: lambda p, c: "null",
    UndefValue: lambda p, c: "undef",
    PoisonValue: lambda p, c: "poison",
    ConstantAggregateZero: lambda p, c: "zeroinitializer",
    ConstantTokenNone: lambda p, c: "none",
    ConstantTargetNone: lambda p, c: "none",
    ConstantArray: Printer.c_agg,
    ConstantStruct: Printer.c_agg,
    ConstantVector: Printer.c_agg,
    ConstantDataString: Printer.c_string,  # type: ignore[dict-item]
    ConstantExpr: Printer.c_expr,  # type: ignore[dict-item]
    BlockAddress: Printer.c_blockaddress,  # type: ignore[dict-item]
    DSOLocalEquivalent: lambda p, c: f"dso_local_equivalent {p.ref(c._operands[0])}",  # type: ignore[attr-defined]
    NoCFIValue: lambda p, c: f"no_cfi {p.ref(c._operands[0])}",  # type: ignore[attr-defined]
}

_INST_PRINTERS: dict[str, Callable[[Printer, Instruction], str]] = {}
for _op in ["add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor", "fadd", "fsub", "fmul", "fdiv", "frem"]:
    _INST_PRINTERS[_op] = Printer.i_binary
for _op in ["trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp", "ptrtoint", "inttoptr", "bitcast", "addrspacecast", "ptrtoaddr"]:
    _INST_PRINTERS[_op] = Printer.i_cast
_INST_PRINTERS.update(
    fneg=Printer.i_fneg, icmp=Printer.i_cmp, fcmp=Printer.i_cmp, alloca=Printer.i_alloca,
    load=Printer.i_load, store=Printer.i_store, getelementptr=Printer.i_gep,
    call=Printer.i_call, invoke=Printer.i_invoke, callbr=Printer.i_callbr, phi=Printer.i_phi,
    select=Printer.i_select, ret=Printer.i_ret, br=Printer.i_br, switch=Printer.i_switch,
    indirectbr=Printer.i_indirectbr, unreachable=Printer.i_unreachable,
    extractvalue=Printer.i_extractvalue, insertvalue=Printer.i_insertvalue,
    extractelement=Printer.i_operands, insertelement=Printer.i_operands,
    shufflevector=Printer.i_operands, freeze=Printer.i_operands,
    atomicrmw=Printer.i_atomicrmw, cmpxchg=Printer.i_cmpxchg, fence=Printer.i_fence,
    va_arg=Printer.i_va_arg, landingpad=Printer.i_landingpad, resume=Printer.i_resume,
    cleanuppad=Printer.i_pad, catchpad=Printer.i_pad, catchswitch=Printer.i_catchswitch,
    catchret=Printer.i_catchret, cleanupret=Printer.i_cleanupret,
)


def print_module(module: Module) -> str:
    with gc_paused():
        return Printer().module(module)


def print_function(fn: Function) -> str:
    return Printer().function(fn)


def print_instruction(inst: Instruction) -> str:
    p = Printer()
    fn = inst.function
    p.slots = SlotTracker(fn) if fn is not None else SlotTracker(None)
    return p.instruction(inst)


def print_value(v: Value) -> str:
    """``type ref`` of a value (locals named within their function)."""
    p = Printer()
    return p.typed(v)


__all__ = [
    "GlobalVariable",
    "Printer",
    "SlotTracker",
    "print_function",
    "print_instruction",
    "print_module",
    "print_value",
]
