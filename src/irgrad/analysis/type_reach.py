"""Which mutable globals can never hold floating-point data: the types reachable from them.

A mutable global whose address escapes into code irgrad cannot follow by its own uses
alone (passed to a callee, merged in a phi) is active (:mod:`irgrad.analysis.
global_activity`). Yet a ``std::vector<std::string>`` kept as a message log holds
pointers to blocks of strings, which hold pointers to characters: no derivative can ever
be stored there. This module decides that from every memory access of the code that runs
inside derivatives, by a unification of pointers in the manner of Steensgaard's points-to
analysis, flow- and context-insensitively:

* pointers derived from one another (GEPs, casts, phis, selects, a callee's parameter and
  its arguments, a callee's returned value and the call) are in one class, and so are a
  pointer stored into memory (or loaded from it) and the pointer to that memory: the
  memory that holds a pointer into a class is in the class too (coarser than Steensgaard's
  pointee classes, never less sound);
* both ends of a memory copy are in one class; an integer stored into memory joins the
  memory it was loaded from or the pointer it was converted from (``ptrtoint``);
* a pointer irgrad cannot follow -- passed to a function it does not know, called through a
  pointer, made from an integer of unknown origin, a parameter of a differentiated
  function (the caller's data) or of a function called through a pointer -- joins the
  class :data:`_ANY`.

A global is *float free* when its class is not :data:`_ANY`'s and no access through a
pointer of its class loads or stores a floating-point value (nor an integer that holds a
float's bits). Library functions that carry no derivative (string operations, printing)
are trusted: what they write is not a derivative.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from irgrad import ir
from irgrad.analysis.known_functions import (
    allocator,
    callee_name,
    is_free,
    is_inactive_call,
    is_memory_transfer,
    is_memset,
)

_ANY = object()  # the class of pointers irgrad cannot follow
_DERIVED = ("getelementptr", "bitcast", "addrspacecast", "freeze")
# intrinsics that return their pointer argument (or one based on it)
_SAME_POINTER = ("llvm.launder.invariant.group", "llvm.strip.invariant.group",
                 "llvm.ptrmask", "llvm.threadlocal.address")
_TRACE_BUDGET = 64


def _has_float(t: ir.Type) -> bool:
    if isinstance(t, ir.FloatType):
        return True
    if isinstance(t, ir.VectorType | ir.ArrayType):
        return _has_float(t.element)
    return t.is_struct and any(_has_float(e) for e in t.elements)  # type: ignore[attr-defined]


def _has_pointer(t: ir.Type) -> bool:
    if t.is_pointer:
        return True
    if isinstance(t, ir.VectorType | ir.ArrayType):
        return _has_pointer(t.element)
    return t.is_struct and any(_has_pointer(e) for e in t.elements)  # type: ignore[attr-defined]


def _is_wide_integer(t: ir.Type) -> bool:
    """An integer (vector) wide enough to hold a float's bits."""
    if isinstance(t, ir.VectorType | ir.ArrayType):
        t = t.element
    return isinstance(t, ir.IntType) and t.width >= 16


class _Returned:
    """The values a function returns, as one node."""

    def __init__(self, fn: ir.Function) -> None:
        self.fn = fn


class _Classes:
    """Union-find over values (and :data:`_ANY`, :class:`_Returned` nodes)."""

    def __init__(self) -> None:
        self.parent: dict[object, object] = {}

    def find(self, x: object) -> object:
        root = x
        while (up := self.parent.get(root, root)) is not root:
            root = up
        while x is not root:
            up = self.parent.get(x, x)
            self.parent[x] = root
            x = up
        return root

    def union(self, a: object | None, b: object | None) -> None:
        if a is None or b is None:
            return
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[ra] = rb


def _node(v: ir.Value) -> object | None:
    """The node of a pointer value: constants based on a global are the global; other
    constants (null, functions, undef) point to nothing a derivative reaches."""
    if isinstance(v, ir.GlobalVariable):
        return v
    if isinstance(v, ir.Constant):
        for _ in range(32):
            if isinstance(v, ir.GlobalVariable):
                return v
            if isinstance(v, ir.ConstantExpr) and v.operands:
                if v.opcode == "inttoptr":
                    return _ANY
                v = v.operands[0]
                continue
            return None
        return _ANY
    return v


class FloatFreeGlobals:
    """The classes of the pointers of ``reach`` (the functions run inside derivatives;
    ``roots`` the differentiated ones), built once and asked per global."""

    def __init__(self, module: ir.Module, reach: set[ir.Function],
                 roots: Iterable[ir.Function]) -> None:
        self.classes = _Classes()
        self.floats: list[ir.Value] = []  # pointers through which a float is accessed
        self._int_stores: list[tuple[ir.Value, ir.Value]] = []  # (integer, pointer)
        self._int_pointers: list[ir.Instruction] = []  # inttoptr
        self._call_sites: dict[ir.Function, list[ir.CallBase]] = {}
        indirect = False
        for fn in reach:
            for inst in fn.instructions():
                indirect = self._visit(fn, inst) or indirect
        for g in module.globals:  # pointers to other globals in an initializer
            if g.initializer is not None and not g.name.startswith("llvm."):
                for c in _constants_in(g.initializer):
                    if isinstance(c, ir.GlobalVariable | ir.ConstantExpr):
                        self.classes.union(g, _node(c))
        for fn in roots:  # the caller's data
            for a in fn.args:
                if _has_pointer(a.type):
                    self.classes.union(a, _ANY)
        if indirect:  # functions called through a pointer get anything
            for fn in reach:
                if any(not (isinstance(u.user, ir.CallBase) and u.user.callee is fn)
                       for u in fn.uses):
                    for a in fn.args:
                        self.classes.union(a, _ANY)
        for value, ptr in self._int_stores:
            self._join_integer(value, ptr, store=True)
        for inst in self._int_pointers:
            self._join_integer(inst.operands[0], inst, store=False)

    def is_float_free(self, g: ir.GlobalVariable) -> bool:
        """Can no floating-point value be stored into, or loaded from, memory reachable
        from ``g`` by the code of the derivatives?"""
        if _has_float(g.value_type):
            return False
        root = self.classes.find(g)
        if root is self.classes.find(_ANY):
            return False
        return not any(self.classes.find(_node(p)) is root for p in self.floats
                       if _node(p) is not None)

    def in_class_of(self, v: ir.Value, globals_: Iterable[ir.GlobalVariable]) -> bool:
        """Is pointer ``v`` in the class of one of ``globals_``? (``v`` may belong to a
        copy of a function of ``reach``: :func:`_original`.)"""
        n = _node(_original(v) if v not in self.classes.parent else v)
        if n is None or n is _ANY:
            return False
        root = self.classes.find(n)
        return any(self.classes.find(g) is root for g in globals_)

    # -- building ----------------------------------------------------------------------
    def _same(self, a: ir.Value, b: ir.Value) -> None:
        self.classes.union(_node(a), _node(b))

    def _visit(self, fn: ir.Function, inst: ir.Instruction) -> bool:
        """Record ``inst``'s unions and accesses; whether it calls through a pointer."""
        op = inst.opcode
        if isinstance(inst, ir.CallBase):
            return self._visit_call(inst)
        if op in _DERIVED or (op in ("phi", "select", "extractvalue", "insertvalue",
                                     "extractelement", "insertelement", "shufflevector")
                              and _has_pointer(inst.type)):
            for o in inst.operands:
                if _has_pointer(o.type):
                    self._same(inst, o)
            if isinstance(inst, ir.PHINode):
                for v, _ in inst.incoming:
                    self._same(inst, v)
        elif isinstance(inst, ir.LoadInst):
            self._access(inst.type, inst, inst.pointer)
        elif isinstance(inst, ir.StoreInst | ir.AtomicRMWInst):
            self._access(inst.value.type, inst.value, inst.pointer)
            if _is_wide_integer(inst.value.type):
                self._int_stores.append((inst.value, inst.pointer))
        elif isinstance(inst, ir.AtomicCmpXchgInst):
            self._access(inst.new_value.type, inst.new_value, inst.pointer)
            self._access(inst.compare.type, inst.compare, inst.pointer)
            if _is_wide_integer(inst.new_value.type):
                self._int_stores.append((inst.new_value, inst.pointer))
        elif isinstance(inst, ir.ReturnInst):
            if inst.value is not None and _has_pointer(inst.value.type):
                self.classes.union(_node(inst.value), self._returned(fn))
        elif op == "inttoptr":
            self._int_pointers.append(inst)
        elif op == "va_arg" and _has_pointer(inst.type):
            self.classes.union(inst, _ANY)
        return False

    def _access(self, t: ir.Type, value: ir.Value, ptr: ir.Value) -> None:
        if _has_float(t):
            self.floats.append(ptr)
        if _has_pointer(t):
            self._same(value, ptr)

    def _returned(self, fn: ir.Function) -> object:
        key = ("returned", fn)
        if key not in self.classes.parent:
            self.classes.parent[key] = key
        return key

    def _visit_call(self, call: ir.CallBase) -> bool:
        callee = call.called_function
        name = callee_name(call) or ""
        pointers = [a for a in call.args if _has_pointer(a.type)]
        result = call if _has_pointer(call.type) else None
        if callee is None or isinstance(call.callee, ir.InlineAsm):
            for a in pointers:
                self.classes.union(_node(a), _ANY)
            self.classes.union(result, _ANY)
            return callee is None and not isinstance(call.callee, ir.InlineAsm)
        if is_memory_transfer(name):
            self._same(call.args[0], call.args[1])
        elif is_memset(name) or is_free(name):
            pass
        elif name.startswith(_SAME_POINTER) and call.args:
            self._same(call, call.args[0])
        elif (alloc := allocator(name)) is not None:
            if alloc.reallocates is not None and result is not None:
                self._same(call, call.args[alloc.reallocates])
        elif is_inactive_call(name):  # trusted: what it returns may point into its arguments
            for a in pointers:
                if result is not None:
                    self._same(call, a)
        elif not callee.is_declaration:
            self._call_sites.setdefault(callee, []).append(call)
            params = callee.args
            for k, a in enumerate(call.args):
                if k >= len(params):  # variadic: irgrad cannot follow
                    if _has_pointer(a.type):
                        self.classes.union(_node(a), _ANY)
                elif _has_pointer(a.type) or _has_pointer(params[k].type):
                    self._same(a, params[k])
            if result is not None:
                self.classes.union(call, self._returned(callee))
        else:
            for a in pointers:
                self.classes.union(_node(a), _ANY)
            self.classes.union(result, _ANY)
        return False

    def _join_integer(self, value: ir.Value, at: ir.Value, *, store: bool) -> None:
        """An integer stored at pointer ``at`` (``store``) or made a pointer ``at``: join
        the memory it was loaded from and the pointers it was made from; a float's bits
        stored make ``at`` a float access; an origin irgrad cannot follow joins
        :data:`_ANY` (for a store: a possible float's bits)."""
        for leaf in _integer_leaves(value, self._call_sites):
            if leaf is None:
                if store:
                    self.floats.append(at)
                else:
                    self.classes.union(_node(at), _ANY)
            elif isinstance(leaf, ir.ConstantExpr):
                self.classes.union(_node(leaf), _node(at))
            elif isinstance(leaf, ir.LoadInst):
                self._same(leaf.pointer, at)
            elif isinstance(leaf, ir.CastInst) and leaf.opcode == "ptrtoint":
                self._same(leaf.value, at)
            elif isinstance(leaf, ir.CastInst):  # the bits of a float
                if store:
                    self.floats.append(at)
                else:
                    self.classes.union(_node(at), _ANY)


def _original(v: ir.Value) -> ir.Value:
    """The value of the original function that ``v`` of a copy stands for: derivatives
    are made from private copies (``invoke`` lowered to ``call``, same name, blocks and
    instructions in the same places; :func:`irgrad.ad.core.invoke.nounwind_copy`)."""
    if isinstance(v, ir.Argument):
        fn = v.parent
    elif isinstance(v, ir.Instruction) and v.parent is not None:
        fn = v.parent.parent
    else:
        return v
    module = fn.parent if fn is not None else None
    orig = module.get_function(fn.name) if module is not None and fn is not None else None
    if orig is None or orig is fn:
        return v
    if isinstance(v, ir.Argument):
        return orig.args[v.index] if v.index < len(orig.args) else v
    assert isinstance(v, ir.Instruction) and v.parent is not None
    bb, name = v.parent, v.parent.name
    block = next((b for b in orig.blocks if b.name == name), None) if name else None
    if block is None:
        return v
    k = bb.instructions.index(v)
    got = block.instructions[k] if k < len(block.instructions) else None
    if got is None or got.opcode != v.opcode or got.name != v.name:
        return v
    return got


def _integer_leaves(value: ir.Value, call_sites: dict[ir.Function, list[ir.CallBase]]
                    ) -> Iterator[ir.Value | None]:
    """Where the bits of integer ``value`` come from: loads, ``ptrtoint`` and bitcasts of
    floats (as themselves), None for an origin that cannot be followed. Constants,
    library results and conversions of a float's value (``fptosi``) are integers."""
    work, seen = [value], set()
    while work:
        v = work.pop()
        if id(v) in seen or isinstance(v, ir.Constant | ir.Function):
            if isinstance(v, ir.ConstantExpr):
                yield v  # (``ptrtoint (ptr @g to i64)``: an address)
            continue
        seen.add(id(v))
        if len(seen) > _TRACE_BUDGET:
            yield None
            return
        if isinstance(v, ir.LoadInst):
            yield v
        elif isinstance(v, ir.CastInst):
            if v.opcode == "ptrtoint" or (v.opcode == "bitcast" and _has_float(v.value.type)):
                yield v
            elif v.opcode not in ("fptosi", "fptoui"):
                work.append(v.value)
        elif isinstance(v, ir.PHINode):
            work.extend(x for x, _ in v.incoming)
        elif isinstance(v, ir.BinaryOperator | ir.SelectInst | ir.FreezeInst | ir.CmpInst
                        | ir.ExtractElementInst | ir.InsertElementInst
                        | ir.ShuffleVectorInst | ir.ExtractValueInst | ir.InsertValueInst):
            work.extend(o for o in v.operands if not isinstance(o.type, ir.FloatType))
        elif isinstance(v, ir.Argument):
            fn = v.parent
            sites = call_sites.get(fn) if fn is not None else None
            if not sites:
                yield None
                return
            work.extend(c.args[v.index] for c in sites if v.index < len(c.args))
        elif isinstance(v, ir.CallBase):
            callee = v.called_function
            if callee is None:
                yield None
                return
            if not callee.is_declaration and not is_inactive_call(callee_name(v)):
                work.extend(r.value for bb in callee.blocks
                            for r in [bb.terminator] if isinstance(r, ir.ReturnInst)
                            and r.value is not None)
            elif callee.name.startswith("llvm."):
                work.extend(a for a in v.args if not _has_float(a.type))
            # (a library function's integer result: a count, a size, a flag)
        else:
            yield None
            return


def _constants_in(c: ir.Value, depth: int = 0) -> Iterator[ir.Value]:
    if depth > 16 or not isinstance(c, ir.Constant):
        return
    yield c
    if not isinstance(c, ir.GlobalValue):
        for o in c.operands:
            yield from _constants_in(o, depth + 1)


__all__ = ["FloatFreeGlobals"]
