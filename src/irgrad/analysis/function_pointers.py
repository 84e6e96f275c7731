"""Which functions an indirect call may call.

* :func:`call_targets`: the callees the IR itself names -- ``!callees`` metadata, or a
  called value that is a function constant seen through casts, aliases, selects, phis
  and loads from constant globals at constant offsets (a C++ vtable slot, a dispatch table
  ``static void (*const ops[])(...)``). ``None`` when the value comes from memory or an
  argument the analysis cannot see.
* :func:`address_taken_functions`: every function of the module whose address is used
  other than as a direct callee, with a given function type -- what a function pointer of
  that type can point to when it comes from this module (LLVM's indirect call promotion
  uses the same set).
* :func:`functions_in_initializer`: the functions a constant global's initializer holds
  (a vtable, a table of callbacks).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from irgrad import ir
from irgrad.analysis.layout import alloc_size, store_size, struct_offsets

_MAX_STEPS = 256
_FN_REF = re.compile(r"ptr\s+@(\"(?:[^\"\\]|\\.)*\"|[-\w.$]+)")


def strip_pointer_casts(v: ir.Value) -> ir.Value:
    """``v`` without pointer casts, aliases and ``dso_local_equivalent``/``no_cfi``."""
    for _ in range(_MAX_STEPS):
        if isinstance(v, ir.ConstantExpr) and v.opcode in ("bitcast", "addrspacecast"):
            v = v.operands[0]
        elif isinstance(v, ir.CastInst) and v.opcode in ("bitcast", "addrspacecast"):
            v = v.value
        elif isinstance(v, ir.GlobalAlias) and not isinstance(v, ir.GlobalIFunc):
            v = v.aliasee
        elif isinstance(v, ir.DSOLocalEquivalent):
            v = v.global_value
        else:
            return v
    return v


def as_function(v: ir.Value) -> ir.Function | None:
    """The function ``v`` is (through casts and aliases), if it is a constant one."""
    v = strip_pointer_casts(v)
    return v if isinstance(v, ir.Function) else None


def callees_metadata(call: ir.CallBase) -> list[ir.Function] | None:
    """The functions a ``!callees !N`` attachment names (LLVM: the complete set)."""
    raw = call.get_metadata("callees")
    fn = call.function
    module = fn.parent if fn is not None else None
    if raw is None or module is None:
        return None
    text = raw.strip()
    m = re.fullmatch(r"!(\d+)", text)
    if m:
        prefix = f"!{m.group(1)} ="
        node = next((line.split("=", 1)[1] for line in module.metadata
                     if line.lstrip().startswith(prefix)), None)
        if node is None:
            return None
        text = node
    out: list[ir.Function] = []
    for name in _FN_REF.findall(text):
        f = module.get_function(name.strip('"'))
        if f is None:
            return None
        out.append(f)
    return out or None


def call_targets(call: ir.CallBase) -> list[ir.Function] | None:
    """The functions an indirect call may call when the IR says so (see the module
    docstring); None when unknown."""
    named = callees_metadata(call)
    if named is not None:
        return named
    return value_targets(call.callee)


def value_targets(v: ir.Value) -> list[ir.Function] | None:
    """The functions pointer ``v`` may be (constants, selects, phis, constant tables,
    globals the module only loads and stores); None when some path leads to a value the
    analysis cannot see through."""
    return _trace(v)[0]


def single_callee(call: ir.CallBase) -> tuple[ir.Function, bool] | None:
    """The one function an indirect call calls, when the IR says so, and whether that is
    certain (False: it was read from a global that other modules may change too)."""
    named = callees_metadata(call)
    if named is not None:
        return (named[0], True) if len(named) == 1 else None
    targets, exact = _trace(call.callee)
    if targets is None or len(targets) != 1:
        return None
    return targets[0], exact


def _trace(v: ir.Value) -> tuple[list[ir.Function] | None, bool]:
    found: dict[ir.Function, None] = {}
    seen: set[int] = set()
    work = [v]
    steps = 0
    exact = True
    while work:
        steps += 1
        if steps > _MAX_STEPS:
            return None, False
        x = strip_pointer_casts(work.pop())
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, ir.Function):
            found[x] = None
        elif isinstance(x, ir.ConstantPointerNull | ir.UndefValue):
            continue  # calling null / undef is undefined: no target
        elif isinstance(x, ir.SelectInst):
            work.extend((x.true_value, x.false_value))
        elif isinstance(x, ir.PHINode):
            work.extend(val for val, _ in x.incoming)
        elif isinstance(x, ir.LoadInst):
            held = constant_at(x.pointer)
            if held is not None:
                work.append(held)
                continue
            stored = global_contents(x.pointer)
            if stored is None:
                return None, False
            exact = exact and is_exact_global(x.pointer)
            work.extend(stored)
        else:
            return None, False
    return list(found), exact


def global_contents(pointer: ir.Value) -> list[ir.Value] | None:
    """Every value a pointer-sized slot of a (mutable) global variable can hold, when
    ``pointer`` is the global itself or a constant offset into it, and the module only
    loads the global and stores to it at constant offsets: the slot's initial value and
    the values stored into that slot (``static void *(*alloc)(size_t) = malloc;``, or a
    struct field ``{0, malloc}``). None otherwise (the address escapes, or some store
    covers part of the slot). A global that other modules can see may be changed by them
    too: :func:`is_exact_global` says whether this module is the whole story."""
    gv, offset = _base_and_offset(pointer)
    if not isinstance(gv, ir.GlobalVariable) or gv.initializer is None \
            or gv.externally_initialized or offset is None:
        return None
    first = _element_at(gv.initializer, gv.value_type, offset)
    if first is None:
        return None
    stores: list[tuple[int, ir.StoreInst]] = []
    if not _only_loads_and_stores(gv, 0, stores, 0):
        return None
    out: list[ir.Value] = [first]
    for at, st in stores:
        size = store_size(st.value.type)
        if at == offset and st.value.type.is_pointer:
            out.append(st.value)
        elif at < offset + 8 and offset < at + size:
            return None  # part of the slot is overwritten with something else
    return out


def _only_loads_and_stores(v: ir.Value, offset: int, stores: list[tuple[int, ir.StoreInst]],
                           depth: int) -> bool:
    """Every use of ``v`` (an address ``offset`` bytes into a global) loads, stores or
    takes a constant offset; the stores are listed with their offsets."""
    if depth > _MAX_STEPS:
        return False
    for use in v.uses:
        user = use.user
        if isinstance(user, ir.LoadInst) and user.pointer is v:
            continue
        if isinstance(user, ir.StoreInst) and user.pointer is v and user.value is not v:
            stores.append((offset, user))
            continue
        if isinstance(user, ir.GetElementPtrInst) and user.pointer is v:
            k = gep_constant_offset(user.source_type, list(user.indices))
        elif isinstance(user, ir.ConstantExpr) and user.opcode == "getelementptr" and \
                user.operands and user.operands[0] is v:
            k = gep_constant_offset(user.source_type, list(user.operands[1:]))
        elif isinstance(user, ir.CastInst | ir.ConstantExpr) and strip_pointer_casts(
                user) is v and user.type.is_pointer:
            k = 0
        else:
            return False
        if k is None or not _only_loads_and_stores(user, offset + k, stores, depth + 1):
            return False
    return True


def is_exact_global(pointer: ir.Value) -> bool:
    """A global that only this module can write (internal or private linkage)."""
    gv = strip_pointer_casts(pointer)
    return isinstance(gv, ir.GlobalVariable) and gv.has_local_linkage


def constant_at(pointer: ir.Value) -> ir.Value | None:
    """The pointer-sized constant stored at ``pointer`` when it is a constant byte offset
    into a ``constant`` global with an initializer (a vtable slot)."""
    base, offset = _base_and_offset(pointer)
    if not (isinstance(base, ir.GlobalVariable) and base.is_constant
            and base.initializer is not None and offset is not None):
        return None
    return _element_at(base.initializer, base.value_type, offset)


def _base_and_offset(p: ir.Value) -> tuple[ir.Value, int | None]:
    offset = 0
    for _ in range(_MAX_STEPS):
        p = strip_pointer_casts(p)
        if isinstance(p, ir.GetElementPtrInst):
            src, idx, base = p.source_type, list(p.indices), p.pointer
        elif isinstance(p, ir.ConstantExpr) and p.opcode == "getelementptr":
            src, idx, base = p.source_type, list(p.operands[1:]), p.operands[0]
        else:
            return p, offset
        k = gep_constant_offset(src, idx)
        if k is None:
            return p, None
        offset += k
        p = base
    return p, None


def gep_constant_offset(source: ir.Type | None, indices: list[ir.Value]) -> int | None:
    """The byte offset of a GEP with constant indices (None otherwise)."""
    if source is None or not indices:
        return 0 if source is not None else None
    values: list[int] = []
    for i in indices:
        if not isinstance(i, ir.ConstantInt):
            return None
        values.append(i.value)
    off = values[0] * alloc_size(source)
    t = source
    for k in values[1:]:
        if t.is_struct:
            off += struct_offsets(t)[k]
            t = t.elements[k]  # type: ignore[attr-defined]
        elif isinstance(t, ir.ArrayType | ir.VectorType):
            t = t.element
            off += k * alloc_size(t)
        else:
            return None
    return off


def _element_at(c: ir.Value, t: ir.Type, offset: int) -> ir.Value | None:
    for _ in range(_MAX_STEPS):
        if t.is_pointer:
            return c if offset == 0 else None
        if isinstance(c, ir.ConstantAggregateZero):
            return None
        if t.is_struct and isinstance(c, ir.ConstantAggregate):
            offs = struct_offsets(t)
            elems = t.elements  # type: ignore[attr-defined]
            k = max((i for i, o in enumerate(offs) if o <= offset), default=None)
            if k is None:
                return None
            c, t, offset = c.elements[k], elems[k], offset - offs[k]
        elif isinstance(t, ir.ArrayType) and isinstance(c, ir.ConstantAggregate):
            size = alloc_size(t.element)
            k = offset // size if size else 0
            if k >= len(c.elements):
                return None
            c, t, offset = c.elements[k], t.element, offset - k * size
        else:
            return None
    return None


def functions_in_initializer(c: ir.Value) -> Iterator[ir.Function]:
    """Every function a constant (a global's initializer) refers to."""
    work = [c]
    seen: set[int] = set()
    while work:
        x = work.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        f = as_function(x)
        if f is not None:
            yield f
        elif isinstance(x, ir.ConstantAggregate | ir.ConstantExpr):
            work.extend(x.operands)


def holds_functions(gv: ir.GlobalVariable) -> bool:
    """A constant global whose initializer refers to functions (a vtable, a table of
    callbacks)."""
    init = gv.initializer
    return gv.is_constant and init is not None and next(
        iter(functions_in_initializer(init)), None) is not None


def points_to_code(p: ir.Value) -> bool:
    """Pointer ``p`` addresses machine code: it is a function, or the program calls
    through it. Bytes near it are code or its prologue data (the signature that
    ``-fsanitize=function`` reads 8 bytes before an indirectly called function), never
    data with derivatives; and its shadow, the function's table of derivatives, does not
    mirror them, so address arithmetic on it has no shadow and loads through it no
    tangent."""
    p = strip_pointer_casts(p)
    if isinstance(p, ir.Function):
        return True
    return any(isinstance(u, ir.CallBase) and u.callee is p for u in p.users)


def points_into_function_table(c: ir.Value) -> bool:
    """A constant pointer (the global, or a constant GEP/cast of it) into a constant
    global that holds functions."""
    for _ in range(_MAX_STEPS):
        if isinstance(c, ir.GlobalVariable):
            return holds_functions(c)
        if isinstance(c, ir.ConstantExpr) and c.opcode in ("getelementptr", "bitcast",
                                                            "addrspacecast"):
            c = c.operands[0]
        else:
            return False
    return False


def address_taken_functions(module: ir.Module, ftype: ir.FunctionType) -> list[ir.Function]:
    """The functions of ``module`` with type ``ftype`` whose address escapes (a use that
    is not the callee of a call), in module order."""
    out: list[ir.Function] = []
    for fn in module.functions:
        if fn.name.startswith("llvm.") or not _same_type(fn.function_type, ftype):
            continue
        if any(not _is_direct_callee(u) for u in fn.uses):
            out.append(fn)
    return out


def _is_direct_callee(use: ir.Use) -> bool:
    user = use.user
    return isinstance(user, ir.CallBase) and use.index == len(user.operands) - 1


def _same_type(a: ir.FunctionType, b: ir.FunctionType) -> bool:
    return a == b


__all__ = [
    "address_taken_functions",
    "as_function",
    "call_targets",
    "callees_metadata",
    "constant_at",
    "functions_in_initializer",
    "gep_constant_offset",
    "global_contents",
    "holds_functions",
    "is_exact_global",
    "points_into_function_table",
    "points_to_code",
    "single_callee",
    "strip_pointer_casts",
    "value_targets",
]
