"""Cloning instructions, function bodies and functions, with operands remapped.

``value_map`` maps values of the source to values of the copy (arguments, blocks,
instructions). Values not in the map (constants, globals, anything from outside) are used
unchanged, as LLVM's ``CloneFunction`` does: a recursive call in a cloned function still
calls the original.

Cloning copies every field of an instruction (flags, alignment, orderings, predicates,
attributes, bundles, raw metadata attachments, debug records), so it works for every
instruction class, present and future, without a case per class.
"""

from __future__ import annotations

from collections.abc import Iterable

from .constants import BlockAddress
from .function import Argument, BasicBlock, DebugRecord, Function
from .instructions import Instruction
from .module import Module
from .values import MetadataAsValue, Use, Value

ValueMap = dict[Value, Value]

# fields of Value/User/Instruction that are rebuilt, not copied
_REBUILT = frozenset(["_uses", "_operands", "_op_uses", "parent", "name", "debug_records",
                      "metadata", "flags"])


def _slots(cls: type) -> list[str]:
    out: list[str] = []
    for klass in reversed(cls.__mro__):
        slots = klass.__dict__.get("__slots__", ())
        if isinstance(slots, str):
            slots = (slots,)
        for s in slots:
            if s not in out and s not in _REBUILT:
                out.append(s)
    return out


_SLOT_CACHE: dict[type, list[str]] = {}


def _copy_field(value: object) -> object:
    # lists of lists (arg_attrs), lists of tuples (bundle tags), plain lists: copy the
    # containers so the clone can be edited independently
    if isinstance(value, list):
        return [_copy_field(v) for v in value]
    return value


def _map_value(v: Value, value_map: ValueMap) -> Value:
    mapped = value_map.get(v)
    if mapped is not None:
        return mapped
    if isinstance(v, MetadataAsValue) and v.value is not None:
        inner = value_map.get(v.value)
        if inner is not None:
            return MetadataAsValue(v.raw, inner)
    if isinstance(v, BlockAddress):
        # an address of a copied block is the address in the copy's function
        blk = value_map.get(_block_of(v))  # type: ignore[arg-type]
        if isinstance(blk, BasicBlock) and blk.parent is not None:
            return BlockAddress(blk.parent, blk)
    return v


def _block_of(ba: BlockAddress) -> BasicBlock | None:
    """The block a ``blockaddress`` names (the parser may keep only its name)."""
    b = ba.block
    if isinstance(b, BasicBlock):
        return b
    fn = ba.function
    if isinstance(fn, Function) and fn.is_materialized:
        for bb in fn.blocks:
            if bb.name == b:
                return bb
    return None


def _map_debug_record(rec: DebugRecord, value_map: ValueMap) -> DebugRecord:
    return DebugRecord(rec.kind, rec.pieces, [_map_value(v, value_map) for v in rec.values])


def clone_instruction(inst: Instruction, value_map: ValueMap | None = None) -> Instruction:
    """An unattached copy of ``inst`` whose operands go through ``value_map``.

    The copy keeps the name (the printer or the caller makes names unique per function).
    """
    vm = value_map if value_map is not None else {}
    cls = type(inst)
    new = cls.__new__(cls)
    slots = _SLOT_CACHE.get(cls)
    if slots is None:
        slots = _SLOT_CACHE[cls] = _slots(cls)
    for s in slots:
        if hasattr(inst, s):
            object.__setattr__(new, s, _copy_field(getattr(inst, s)))
    # Value / User state
    new.type = inst.type
    new.name = inst.name
    new._uses = []
    ops = [_map_value(op, vm) for op in inst._operands]
    new._operands = ops
    uses: list[Use] = []
    for k, v in enumerate(ops):
        u = Use(new, k, v)
        v._uses.append(u)
        uses.append(u)
    new._op_uses = uses
    # Instruction state
    new.parent = None
    new.flags = list(inst.flags)
    new.metadata = list(inst.metadata)
    new.debug_records = [_map_debug_record(r, vm) for r in inst.debug_records]
    return new


def _is_local_to(v: Value, fn: Function) -> bool:
    if isinstance(v, Instruction):
        return v.function is fn
    if isinstance(v, BasicBlock | Argument):
        return v.parent is fn
    if isinstance(v, MetadataAsValue) and v.value is not None:
        return _is_local_to(v.value, fn)
    return False


def clone_blocks_into(src_fn: Function, dst_fn: Function,
                      value_map: ValueMap | None = None) -> list[BasicBlock]:
    """Append copies of ``src_fn``'s blocks to ``dst_fn`` and return them.

    Map ``src_fn``'s arguments in ``value_map`` first (to ``dst_fn``'s arguments or any
    value); the map is extended with every block and instruction copied. Forward references
    (phis around loops, uses in blocks laid out before their definitions) are resolved once
    all instructions exist.
    """
    vm: ValueMap = value_map if value_map is not None else {}
    src_blocks = list(src_fn.blocks)
    new_blocks: list[BasicBlock] = []
    for bb in src_blocks:
        nb = BasicBlock(bb.name, dst_fn)
        vm[bb] = nb
        new_blocks.append(nb)
    pending: list[Instruction] = []
    for bb, nb in zip(src_blocks, new_blocks, strict=True):
        for inst in bb.instructions:
            ni = clone_instruction(inst, vm)
            nb.append(ni)
            vm[inst] = ni
            if any(_is_local_to(op, src_fn) for op in ni._operands) or any(
                _is_local_to(v, src_fn) for r in ni.debug_records for v in r.values
            ):
                pending.append(ni)
    for ni in pending:
        _remap_operands(ni, vm)
    dst_fn.blocks.extend(new_blocks)
    return new_blocks


def _remap_operands(inst: Instruction, value_map: ValueMap) -> None:
    for k, op in enumerate(inst._operands):
        new = _map_value(op, value_map)
        if new is not op:
            inst.set_operand(k, new)
    for r in inst.debug_records:
        r.values = [_map_value(v, value_map) for v in r.values]


def remap_instructions(insts: Iterable[Instruction], value_map: ValueMap) -> None:
    """Rewrite the operands (and debug record values) of ``insts`` through ``value_map``."""
    for inst in insts:
        _remap_operands(inst, value_map)


_FUNCTION_FIELDS = (
    "linkage", "preemption", "visibility", "dll_storage", "thread_local", "unnamed_addr",
    "section", "partition", "align", "calling_conv", "gc", "personality", "prefix",
    "prologue",
)


def clone_function(fn: Function, new_name: str | None = None, *, module: Module | None = None,
                   value_map: ValueMap | None = None,
                   keep_debug_locations: bool = True) -> tuple[Function, ValueMap]:
    """A copy of ``fn`` added to ``module`` (default: ``fn``'s module), and the value map.

    ``new_name`` defaults to a fresh name derived from ``fn.name`` (``f.1``...). Arguments
    keep their names and attributes; pre-mapped values in ``value_map`` are honoured.
    The function's own ``!dbg`` attachment (a distinct DISubprogram may belong to one
    function only) is not copied, nor is a comdat named after the original. Instructions
    keep their ``!dbg`` locations and debug records (error messages can still name source
    lines) unless ``keep_debug_locations=False``.
    """
    target = module if module is not None else fn.parent
    if new_name is None:
        new_name = target.unique_name(fn.name) if target is not None else fn.name + ".clone"
    vm: ValueMap = value_map if value_map is not None else {}
    new = Function(new_name, fn.function_type, addrspace=fn.addrspace,
                   arg_names=[a.name for a in fn.args])
    for field in _FUNCTION_FIELDS:
        setattr(new, field, getattr(fn, field))
    new.return_attrs = list(fn.return_attrs)
    new.fn_attrs = list(fn.fn_attrs)
    new.attrs = list(fn.attrs)
    new.metadata = [(k, v) for k, v in fn.metadata if k != "dbg"]
    new.comdat = fn.comdat if fn.comdat not in ("", None) else None
    for a, na in zip(fn.args, new.args, strict=True):
        na.attrs = list(a.attrs)
        vm.setdefault(a, na)
    if target is not None:
        target.add_function(new)
    if not fn.is_declaration:
        clone_blocks_into(fn, new, vm)
        if not keep_debug_locations:
            strip_debug_locations(new)
    return new, vm


def strip_debug_locations(fn: Function) -> None:
    """Drop ``!dbg`` locations and debug records (their scope is the original's subprogram)."""
    for inst in fn.instructions():
        if inst.metadata:
            inst.metadata = [(k, v) for k, v in inst.metadata if k != "dbg"]
        inst.debug_records = []



def clone_with_operands(inst: Instruction, operands: list[Value]) -> Instruction:
    """An unattached copy of ``inst`` (without debug records) whose operands are
    ``operands``."""
    new = clone_instruction(inst)
    for k, op in enumerate(operands):
        new.set_operand(k, op)
    new.debug_records = []
    return new

__all__ = ["ValueMap", "clone_blocks_into", "clone_function", "clone_instruction",
           "clone_with_operands",
           "remap_instructions", "strip_debug_locations"]
