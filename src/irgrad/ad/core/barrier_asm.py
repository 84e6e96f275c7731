"""Empty inline assembly -- the optimization barriers benchmark code wraps values in
(Google Benchmark's ``DoNotOptimize``: ``asm volatile("" : "+r,m"(v) : : "memory")``,
``ClobberMemory``: ``asm volatile("" : : : "memory")``, ``asm("" : "+x"(v))``) --
computes nothing: the value comes out as it went in. In the private copy the AD engine
differentiates (never in the user's function, where the barrier keeps doing its job),
such a call goes: a register result is its tied input, an indirect result (``=*r|m``)
the store of that input to its slot; a barrier without results is removed. Assembly
with instructions (anything but blanks and ``#`` comments) is left alone: a known
instruction is an intrinsic (:mod:`irgrad.ad.core.known_asm`), any other stays an error
when it touches an active value."""

from __future__ import annotations

import re

from irgrad import ir

_EMPTY = re.compile(r"^(\s*(#[^\n]*)?\n?)*$")


def _split(constraints: str) -> tuple[list[str], list[str]] | None:
    """(outputs, inputs) of a constraint string, clobbers dropped; None for forms this
    module does not read (labels of ``asm goto``)."""
    outputs: list[str] = []
    inputs: list[str] = []
    for c in constraints.split(","):
        c = c.strip()
        if c.startswith("~"):
            continue
        if c.startswith("!"):
            return None
        (outputs if c.startswith("=") else inputs).append(c)
    return outputs, inputs


def _barrier(inst: ir.Instruction) -> tuple[list[str], list[str]] | None:
    if not isinstance(inst, ir.CallInst) or not isinstance(inst.callee, ir.InlineAsm):
        return None
    asm = inst.callee
    if not _EMPTY.match(asm.asm):
        return None
    parts = _split(asm.constraints)
    if parts is None:
        return None
    outputs, inputs = parts
    if not outputs:  # inputs only (DoNotOptimize of a const value, ClobberMemory)
        return parts
    if len(outputs) != 1 or len(inputs) != 1:  # (an indirect output's slot is an argument)
        return None
    if outputs[0].startswith("=*"):  # (slot, value): "=*r|m,0" or "=*m,*m" (same slot)
        if inputs[0] == "0" and len(inst.args) == 2:
            return parts
        if inputs[0].startswith("*") and len(inst.args) == 2 and inst.args[0] is inst.args[1]:
            return parts
        return None
    return parts if inputs[0] == "0" and len(inst.args) == 1 else None


def has_barrier_asm(fn: ir.Function) -> bool:
    return not fn.is_declaration and any(_barrier(i) is not None for i in fn.instructions())


def remove_barrier_asm(fn: ir.Function) -> None:
    """Replace each empty inline-assembly barrier of ``fn`` (a copy only the derivative
    synthesis sees) by what it leaves behind."""
    for inst in list(fn.instructions()):
        parts = _barrier(inst)
        if parts is None:
            continue
        assert isinstance(inst, ir.CallInst)
        outputs, inputs = parts
        if outputs and outputs[0].startswith("=*") and inputs[0] == "0":
            b = ir.IRBuilder(position=inst)
            b.debug_loc = inst.debug_loc
            b.store(inst.args[1], inst.args[0])
        elif outputs and not outputs[0].startswith("=*"):
            inst.replace_all_uses_with(inst.args[0])
        inst.erase_from_parent()


__all__ = ["has_barrier_asm", "remove_barrier_asm"]
