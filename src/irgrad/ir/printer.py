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
from .printer_insts import INSTRUCTION_PRINTERS, InstructionPrinter
from .types import global_name, quote_name
from .values import MetadataAsValue, Value, set_text_formatter


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


class Printer(InstructionPrinter):
    def __init__(self) -> None:
        self.slots = SlotTracker(None)

    # -- operands ------------------------------------------------------------------------
    def ref(self, v: Value) -> str:
        """The operand spelling of ``v`` (without type)."""
        if isinstance(v, (Instruction, Argument, BasicBlock)):
            return self.slots.local(v)
        if isinstance(v, GlobalValue):
            return "@" + global_name(v.name)
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
        body = INSTRUCTION_PRINTERS[inst.opcode](self, inst)
        if inst.metadata:
            body += "".join(f", !{k} {v}" for k, v in inst.metadata)
        if not inst.type.is_void:
            return f"{self.slots.local(inst)} = {body}"
        return body

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
        out.append(f"{ft.return_type} @{global_name(fn.name)}({', '.join(params)})")
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
                label = slots.local(bb)[1:]  # made unique like every local (x, x1...)
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
        out = [f"@{global_name(g.name)} ="]
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
        out = [f"@{global_name(a.name)} =", *_global_prefix(a)]
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


def _ir_text(obj: object) -> str:
    if isinstance(obj, Module):
        return print_module(obj)
    if isinstance(obj, Instruction):
        return print_instruction(obj)
    if isinstance(obj, BasicBlock):
        return f"label {value_ref(obj)}"
    if isinstance(obj, Value):  # an operand: typed reference (double %x, ptr @g, i32 7)
        return f"{obj.type} {value_ref(obj)}"
    return object.__repr__(obj)


set_text_formatter(_ir_text)


def function_of(v: Value) -> Function | None:
    """The function a local value (instruction, argument, block) belongs to."""
    if isinstance(v, Instruction):
        return v.function
    if isinstance(v, Argument | BasicBlock):
        return v.parent
    return None


class ValuePrinter:
    """Prints values and instructions of one function with stable local names."""

    def __init__(self, fn: Function | None) -> None:
        self.printer = Printer()
        self.printer.slots = SlotTracker(fn)

    def ref(self, v: Value) -> str:
        return self.printer.ref(v)

    def typed(self, v: Value) -> str:
        return self.printer.typed(v)

    def instruction(self, inst: Instruction) -> str:
        return self.printer.instruction(inst).strip()


def value_ref(v: Value) -> str:
    """The operand spelling of ``v`` (``%x``, ``@g``, ``0``) named within its function."""
    return ValuePrinter(function_of(v)).ref(v)


def print_value(v: Value) -> str:
    """``type ref`` of a value (locals named within their function)."""
    p = Printer()
    return p.typed(v)


__all__ = [
    "GlobalVariable",
    "Printer",
    "SlotTracker",
    "ValuePrinter",
    "function_of",
    "print_function",
    "print_instruction",
    "print_module",
    "print_value",
    "value_ref",
]
