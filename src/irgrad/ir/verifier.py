"""Verifier: what LLVM's verifier misses and what would abort llvmlite, checked on our IR.

Checks: structure (one terminator per block, at the end; parent pointers), phis (first in
their block, one entry per predecessor, matching types), operand types of the common
instructions, ``ret`` against the function's return type, calls against the callee's
declaration (LLVM accepts a call whose type differs from the declaration), dominance of
every use by its definition, and no use of another function's values. The type rules,
one method per opcode, are in :mod:`irgrad.ir.verifier_types`; dominance comes from
:class:`irgrad.ir.dominators.DominatorTree`.

Errors are :class:`irgrad.errors.IRVerifyError` naming the function and the instruction:
``in function 'f': call to 'g' passes 1 argument(s), declaration takes 2:
%3 = call double @g(double %x)``.
"""

from __future__ import annotations

import re

from irgrad.errors import IRVerifyError, SourceLocation
from irgrad.ir.dominators import DominatorTree

from .constants import Constant
from .control import InvokeInst
from .function import Argument, BasicBlock, Function
from .instructions import Instruction, PHINode
from .module import Module
from .values import MetadataAsValue, Value
from .verifier_types import InstructionTypeChecks


def verify_module(module: Module, *, all_functions: bool = False) -> None:
    """Verify every function of ``module`` whose body has been parsed or built.

    Bodies still held as unparsed text are LLVM's own output, unchanged, and are skipped
    unless ``all_functions=True`` (which parses them).
    """
    for fn in list(module.functions):
        if fn.is_materialized or all_functions:
            verify_function(fn)


def verify_function(fn: Function) -> None:
    """Raise IRVerifyError on the first broken rule in ``fn`` (declarations pass)."""
    if fn.is_declaration:
        return
    _FunctionVerifier(fn).run()


def _same_value(a: Value, b: Value) -> bool:
    """The same value, or equal constants (parsed constants are separate objects)."""
    if a is b:
        return True
    if isinstance(a, Constant) and isinstance(b, Constant) and type(a) is type(b):
        from .printer import print_value

        return print_value(a) == print_value(b)
    return False


def _name_of(v: Value) -> str:
    return v.name if v.name else "<unnamed>"


class _FunctionVerifier(InstructionTypeChecks):
    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.blocks = list(fn.blocks)
        self.block_set = set(map(id, self.blocks))
        self.index: dict[int, int] = {}  # id(inst) -> position in its block
        self.preds: dict[int, list[BasicBlock]] = {id(b): [] for b in self.blocks}

    # -- reporting ---------------------------------------------------------------------
    def fail(self, message: str, inst: Instruction | None = None) -> None:
        text = f"in function '{self.fn.name}': {message}"
        loc = None
        if inst is not None:
            try:
                printed = str(inst).strip()
            except Exception:  # a badly broken instruction may not print
                printed = repr(inst)
            text += f": {printed}"
            loc = self.source_location(inst)
        raise IRVerifyError(text, loc)

    def source_location(self, inst: Instruction) -> SourceLocation | None:
        ref = inst.debug_loc
        module = self.fn.parent
        if ref is None or module is None:
            return None
        return debug_source_location(module, ref)

    # -- driver --------------------------------------------------------------------------
    def run(self) -> None:
        self.check_structure()
        self.compute_dominators()
        for bb in self.blocks:
            for inst in bb.instructions:
                self.check_operands_local(inst)
                self.check_types(inst)
                if isinstance(inst, PHINode):
                    self.check_phi(inst, bb)
                self.check_dominance(inst, bb)

    # -- structure -----------------------------------------------------------------------
    def check_structure(self) -> None:
        fn = self.fn
        seen: set[int] = set()
        for a in fn.args:
            if a.parent is not fn:
                raise IRVerifyError(f"in function '{fn.name}': argument {a.index} has a "
                                    "wrong parent")
        for bb in self.blocks:
            if id(bb) in seen:
                raise IRVerifyError(f"in function '{fn.name}': block "
                                    f"'{_name_of(bb)}' appears twice")
            seen.add(id(bb))
            if bb.parent is not fn:
                raise IRVerifyError(f"in function '{fn.name}': block '{_name_of(bb)}' "
                                    "belongs to another function")
            insts = bb.instructions
            if not insts:
                raise IRVerifyError(f"in function '{fn.name}': block '{_name_of(bb)}' is "
                                    "empty (no terminator)")
            after_phis = False
            for k, inst in enumerate(insts):
                self.index[id(inst)] = k
                if inst.parent is not bb:
                    self.fail("instruction's parent is not the block that holds it", inst)
                if inst.is_terminator and k != len(insts) - 1:
                    self.fail(f"terminator in the middle of block '{_name_of(bb)}'", inst)
                if inst.opcode == "phi":
                    if after_phis:
                        self.fail("phi node is not at the start of its block", inst)
                else:
                    after_phis = True
            if not insts[-1].is_terminator:
                self.fail(f"block '{_name_of(bb)}' does not end with a terminator", insts[-1])
        for bb in self.blocks:
            for succ in bb.instructions[-1].successors():
                if succ is self.blocks[0]:
                    self.fail("branch to the entry block (it must have no predecessors)",
                              bb.instructions[-1])
                if id(succ) not in self.block_set:
                    self.fail(f"branch to block '{_name_of(succ)}' of another function",
                              bb.instructions[-1])
                plist = self.preds[id(succ)]
                if bb not in plist:
                    plist.append(bb)

    # -- dominators (irgrad.ir.dominators: the one implementation) ----------------
    def compute_dominators(self) -> None:
        self.dom_tree = DominatorTree(self.fn)

    def reachable(self, bb: BasicBlock) -> bool:
        return self.dom_tree.is_reachable(bb)

    def dominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        """Block ``a`` dominates block ``b`` (both reachable)."""
        return self.dom_tree.dominates(a, b)

    # -- operands ------------------------------------------------------------------------
    def check_operands_local(self, inst: Instruction) -> None:
        fn = self.fn
        for op in inst.operands:
            if isinstance(op, MetadataAsValue) and op.value is not None:
                op = op.value
            if isinstance(op, Instruction):
                if op.parent is None:
                    self.fail("operand is an instruction that is not in a block", inst)
                if op.function is not fn:
                    owner = op.function.name if op.function is not None else "?"
                    self.fail(f"uses a value of function '{owner}'", inst)
            elif isinstance(op, Argument) and op.parent is not fn:
                owner = op.parent.name if op.parent is not None else "?"
                self.fail(f"uses an argument of function '{owner}'", inst)
            elif isinstance(op, BasicBlock) and op.parent is not fn:
                self.fail(f"refers to block '{_name_of(op)}' of another function", inst)

    def check_dominance(self, inst: Instruction, bb: BasicBlock) -> None:
        if not self.reachable(bb):
            return  # anything dominates unreachable code
        if isinstance(inst, PHINode):
            for v, pred in inst.incoming:
                if (isinstance(v, Instruction) and self.reachable(pred)
                        and not self._available_at_end(v, pred)):
                    self.fail("phi operand does not dominate the end of incoming block "
                              f"'{_name_of(pred)}'", inst)
            return
        for op in inst.operands:
            if not isinstance(op, Instruction) or op.function is not self.fn:
                continue
            if not self._available_before(op, inst, bb):
                self.fail("instruction does not dominate all its uses "
                          f"(operand defined by: {op.opcode})", inst)

    def _def_block(self, d: Instruction) -> tuple[BasicBlock, bool]:
        """Where a definition becomes available; for invoke: its normal destination."""
        if isinstance(d, InvokeInst):
            return d.normal_dest, True
        return d.parent, False  # type: ignore[return-value]

    def _available_before(self, d: Instruction, use: Instruction, bb: BasicBlock) -> bool:
        dbb, from_start = self._def_block(d)
        if not self.reachable(dbb):
            return False
        if dbb is bb and not from_start:
            return self.index[id(d)] < self.index[id(use)]
        return self.dominates(dbb, bb)

    def _available_at_end(self, d: Instruction, pred: BasicBlock) -> bool:
        dbb, _ = self._def_block(d)
        if isinstance(d, InvokeInst) and d.parent is pred:
            return True  # the normal edge carries the invoke's result
        if not self.reachable(dbb):
            return False
        return self.dominates(dbb, pred)

    # -- phis ------------------------------------------------------------------------------
    def check_phi(self, phi: PHINode, bb: BasicBlock) -> None:
        preds = self.preds[id(bb)]
        seen: dict[int, Value] = {}
        for v, blk in phi.incoming:
            if v.type != phi.type:
                self.fail(f"phi incoming value has type {v.type}, phi has type {phi.type}", phi)
            if not isinstance(blk, BasicBlock):
                self.fail("phi incoming block is not a block", phi)
            if blk not in preds:
                self.fail(f"phi has an entry for '{_name_of(blk)}', which is not a "
                          "predecessor", phi)
            if id(blk) in seen and not _same_value(seen[id(blk)], v):
                self.fail(f"phi has different values for the same block '{_name_of(blk)}'",
                          phi)
            seen[id(blk)] = v
        for p in preds:
            if id(p) not in seen:
                self.fail(f"phi has no entry for predecessor '{_name_of(p)}'", phi)


def debug_source_location(module: Module, ref: str) -> SourceLocation | None:
    """File, line and column of a raw ``!N`` DILocation reference, from the module's metadata."""
    nodes = _metadata_index(module)
    body = nodes.get(ref)
    if body is None or "DILocation(" not in body:
        return None
    line = _field_int(body, "line")
    col = _field_int(body, "column")
    filename = "<input>"
    scope = _field_ref(body, "scope")
    for _ in range(64):  # walk lexical blocks up to something with a file
        if scope is None:
            break
        sbody = nodes.get(scope, "")
        file_ref = _field_ref(sbody, "file")
        if file_ref is not None:
            fbody = nodes.get(file_ref, "")
            m = re.search(r'filename:\s*"((?:[^"\\]|\\.)*)"', fbody)
            if m:
                filename = m.group(1)
            break
        scope = _field_ref(sbody, "scope")
    return SourceLocation(filename, line or 0, col or 0)


def _metadata_index(module: Module) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in module.metadata:
        m = re.match(r"^(!\d+)\s*=\s*(.*)$", line.strip())
        if m:
            out[m.group(1)] = m.group(2)
    return out


def _field_int(body: str, field: str) -> int | None:
    m = re.search(rf"\b{field}:\s*(\d+)", body)
    return int(m.group(1)) if m else None


def _field_ref(body: str, field: str) -> str | None:
    m = re.search(rf"\b{field}:\s*(!\d+)", body)
    return m.group(1) if m else None


__all__ = ["debug_source_location", "verify_function", "verify_module"]
