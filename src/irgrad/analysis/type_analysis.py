"""Type analysis (Enzyme's TypeAnalysis): which bytes of each value, and of the memory it
points to, hold floats, integers or pointers.

A fixed point over the instructions of a function, propagating :class:`TypeTree` facts in
both directions: seeds from IR types (floats, pointers), integer arithmetic, GEP indices,
TBAA tags and known library calls; transfer through GEP (constant and variable offsets),
load/store, memcpy/memmove, casts, phi, select, aggregates; and interprocedurally through
calls to defined functions (memoized per argument trees).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from irgrad.analysis.blas import is_blas_function
from irgrad.analysis.fortran_descriptors import descriptor_trees
from irgrad.analysis.known_functions import (
    allocator,
    enzyme_hint,
    is_allocation,
    is_free,
    is_math_function,
    is_math_intrinsic,
)
from irgrad.analysis.layout import aggregate_offset, alloc_size
from irgrad.analysis.named_objects import NamedObjects
from irgrad.analysis.overflow_intrinsics import is_overflow_intrinsic, overflow_result_tree
from irgrad.analysis.tbaa import module_tbaa
from irgrad.analysis.type_library_calls import HINT_TYPES, visit_blas_call, visit_type_hint
from irgrad.analysis.type_offsets import (
    SlotMap,
    any_offset,
    array_elements,
    array_of_records,
    inner_array_index,
    is_pointer_recurrence,
    linear_offset,
    minus_one_only,
    periodic,
    rotated,
    struct_field_offset,
    walk_step,
)
from irgrad.analysis.type_results import (
    CopiedContents,
    TypeResults,
    _from_memory,
    _to_memory,
    constant_tree,
    default_arg_trees,
    fits_llvm_type,
    is_narrow_integer,
    is_scalar_type,
    seed_tree,
)
from irgrad.analysis.type_tree import (
    INTEGER,
    POINTER,
    ConcreteType,
    TypeTree,
)
from irgrad.ir.constants import ConstantInt
from irgrad.ir.control import CallBase, ReturnInst
from irgrad.ir.function import Function
from irgrad.ir.instructions import (
    AllocaInst,
    BinaryOperator,
    CastInst,
    CmpInst,
    ExtractElementInst,
    ExtractValueInst,
    FreezeInst,
    GetElementPtrInst,
    InsertElementInst,
    InsertValueInst,
    Instruction,
    LoadInst,
    PHINode,
    SelectInst,
    ShuffleVectorInst,
    StoreInst,
)
from irgrad.ir.module import Module
from irgrad.ir.types import Type, VectorType
from irgrad.ir.values import Value

MAX_ITERATIONS = 200
#: distinct argument-tree variants analyzed per callee (interprocedural calls)
MAX_VARIANTS = 8
#: path depth passed to callees (keeps memo keys stable on recursive structures)
CALL_DEPTH = 3
_MEMCPY_RE = re.compile(r"^(?:llvm\.memcpy|llvm\.memmove|llvm\.memcpy\.inline)(?:\.|$)|^mem(?:cpy|move)$")
_MEMSET_RE = re.compile(r"^(?:llvm\.memset(?:\.inline)?(?:\.|$)|memset$)")


class _FunctionTypeAnalysis:
    def __init__(self, owner: TypeAnalysis, fn: Function, arg_trees: Sequence[TypeTree],
                 return_tree: TypeTree) -> None:
        self.owner = owner
        self.fn = fn
        self.trees: dict[Value, TypeTree] = {}
        self.return_tree = return_tree.copy()
        self.changed = False
        for k, a in enumerate(fn.args):
            t = seed_tree(a.type)
            if k < len(arg_trees):
                t.or_in(arg_trees[k])
            self.trees[a] = t
        self.insts = list(fn.instructions())
        self._recurrence: dict[Instruction, bool] = {}
        self._slots: list[SlotMap] = []  # the function's stored pointers, when needed
        self._bounds: dict[Value, int | None] = {}  # see pointee_bound
        # trees of constants (they depend on the constant alone and are never updated)
        self._constants: dict[Value, TypeTree] = {}
        # pure conversions of a value's tree: (value, what) -> (tree version, result)
        self._derived: dict[tuple[Value, object], tuple[int, TypeTree]] = {}
        for inst in self.insts:
            if not inst.type.is_void:
                self.trees[inst] = seed_tree(inst.type)
                if is_narrow_integer(inst.type):
                    self.trees[inst].insert((-1,), INTEGER)
        # a visit reads only the trees of the instruction and its operands (and of the
        # return, for ``ret``); the versions of those trees at a visit that changed
        # nothing: while they stay the same, visiting again cannot change anything (a
        # call's callee answer is memoized by the same trees)
        self._inputs: dict[Instruction, tuple[TypeTree, ...]] = {}
        for inst in self.insts:
            inputs = [t for v in (inst, *inst.operands) if (t := self.trees.get(v)) is not None]
            if isinstance(inst, ReturnInst):
                inputs.append(self.return_tree)
            self._inputs[inst] = tuple(inputs)
        self._quiet: dict[Instruction, tuple[int, ...]] = {}
        self.named = NamedObjects(self.insts)

    # -- tree access -------------------------------------------------------------------
    def get(self, v: Value) -> TypeTree:
        """The tree of ``v``; callers read it and never change it (only :meth:`update`)."""
        t = self.trees.get(v)
        if t is not None:
            return t
        t = self._constants.get(v)
        if t is None:
            t = self._constants[v] = constant_tree(v)
        return t

    def version(self, v: Value) -> int:
        t = self.trees.get(v)
        return t.version if t is not None else -1

    def derived(self, v: Value, what: object, convert: Callable[[TypeTree], TypeTree]) -> TypeTree:
        """``convert(get(v))``, remembered until the tree of ``v`` changes."""
        key = (v, what)
        version = self.version(v)
        got = self._derived.get(key)
        if got is not None and got[0] == version:
            return got[1]
        out = convert(self.get(v))
        self._derived[key] = (version, out)
        return out

    def update(self, v: Value, tree: TypeTree) -> None:
        t = self.trees.get(v)
        if t is None or not tree:
            return  # constants, globals, values of other functions
        bound = self.pointee_bound(v)
        if bound is not None:
            tree = tree.within(bound)
        if t.or_in(tree):
            self.changed = True

    def pointee_bound(self, v: Value) -> int | None:
        """How many bytes of a stack object of constant size lie at and after pointer
        ``v`` (an ``alloca`` or a constant offset into one); None when unknown. An access
        through ``v`` beyond them would be out of bounds, so no type lives there: without
        this limit a string's pointer to its own inline buffer (``std::string`` in an
        ``initializer_list`` on the stack) fed each fixed-point step's offsets back into
        the object a few bytes further, up to the largest offset tracked, and trees of
        thousands of entries took minutes."""
        got = self._bounds.get(v, False)
        if got is not False:
            return got  # type: ignore[return-value]
        bound: int | None = None
        if isinstance(v, AllocaInst) and v.count is None:
            bound = alloc_size(v.allocated_type)
        elif isinstance(v, GetElementPtrInst):
            off, variable, _ = self.gep_offset(v)
            base = None if variable else self.pointee_bound(v.pointer)
            if base is not None and 0 <= off <= base:
                bound = base - off
        self._bounds[v] = bound
        return bound

    def set_scalar(self, v: Value, ct: ConcreteType) -> None:
        self.update(v, TypeTree.scalar(ct))

    def pointee(self, p: Value) -> TypeTree:
        return self.derived(p, "data0", TypeTree.data0)

    def in_memory(self, v: Value, t: Type) -> TypeTree:
        """The tree of value ``v`` of type ``t`` as the contents of memory at offset 0."""
        return self.derived(v, ("to_memory", t), lambda tree: _to_memory(tree, t))

    def loaded(self, p: Value, t: Type) -> TypeTree:
        """The tree of a value of type ``t`` loaded from pointer ``p``."""
        return self.derived(p, ("from_memory", t), lambda tree: _from_memory(tree.data0(), t))

    def update_pointee(self, p: Value, mem: TypeTree) -> None:
        if mem:
            self.update(p, mem.only(-1))

    def same_contents(self, a: Value, b: Value, size: int) -> None:
        """``size`` bytes at ``a`` and ``b`` are the same (a copy; -1: all of them)."""
        self.update_pointee(a, self.pointee(b).shift(0, size))
        self.update_pointee(b, self.pointee(a).shift(0, size))

    # -- the fixed point ---------------------------------------------------------------
    def run(self) -> TypeResults:
        for _ in range(MAX_ITERATIONS):
            self.changed = False
            quiet = self._quiet
            for inst in self.insts:
                inputs = self._inputs[inst]
                before = tuple(t.version for t in inputs)
                if quiet.get(inst) == before:
                    continue
                self.visit(inst)
                if tuple(t.version for t in inputs) == before:
                    quiet[inst] = before
            self.named.step(self.pointee, self.update_pointee)
            if not self.changed:
                break
        conflicts = [f"{v!r}: {p} {a} vs {b}" for v, t in self.trees.items()
                     for p, a, b in t.conflicts]
        return TypeResults(self.fn, self.trees, self.return_tree, conflicts)

    def visit(self, inst: Instruction) -> None:
        if isinstance(inst, BinaryOperator):
            self.visit_binary(inst)
        elif isinstance(inst, CmpInst):
            self.set_scalar(inst, INTEGER)
            if inst.opcode == "icmp" and inst.lhs.type.scalar_type.is_integer:
                self.set_scalar(inst.lhs, INTEGER)
                self.set_scalar(inst.rhs, INTEGER)
        elif isinstance(inst, CastInst):
            self.visit_cast(inst)
        elif isinstance(inst, GetElementPtrInst):
            self.visit_gep(inst)
        elif isinstance(inst, LoadInst):
            self.visit_access(inst, inst, inst.pointer, inst.type)
        elif isinstance(inst, StoreInst):
            self.visit_access(inst, inst.value, inst.pointer, inst.value.type)
        elif isinstance(inst, PHINode):
            for v, _ in inst.incoming:
                self.both_ways(inst, v)
        elif isinstance(inst, SelectInst):
            self.set_scalar(inst.condition, INTEGER)
            self.both_ways(inst, inst.true_value)
            self.both_ways(inst, inst.false_value)
        elif isinstance(inst, FreezeInst):
            self.both_ways(inst, inst.operands[0])
        elif isinstance(inst, AllocaInst):
            if inst.count is not None:
                self.set_scalar(inst.count, INTEGER)
        elif isinstance(inst, CallBase):
            self.visit_call(inst)
        elif isinstance(inst, ReturnInst):
            if inst.value is not None:
                self.update(inst.value, self.return_tree)
                self.return_tree.or_in(self.get(inst.value))
        elif isinstance(inst, ExtractValueInst):
            off, t = aggregate_offset(inst.aggregate.type, inst.indices)
            size = max(alloc_size(t), 1)
            sub = self.get(inst.aggregate).shift(off, size)
            self.update(inst, sub.as_scalar() if is_scalar_type(t) else sub)
            self.update(inst.aggregate, _to_memory(self.get(inst), t).shift(0, size, off))
        elif isinstance(inst, InsertValueInst):
            off, t = aggregate_offset(inst.type, inst.indices)
            size = max(alloc_size(t), 1)
            self.update(inst, _to_memory(self.get(inst.value), t).shift(0, size, off))
            self.update(inst, self.get(inst.aggregate))
            sub = self.get(inst).shift(off, size)
            self.update(inst.value, sub.as_scalar() if is_scalar_type(t) else sub)
        elif isinstance(inst, ExtractElementInst | InsertElementInst | ShuffleVectorInst):
            for op in inst.operands:
                if op.type == inst.type or (isinstance(inst.type, VectorType)
                                            and op.type == inst.type.element) or \
                        (isinstance(op.type, VectorType) and op.type.element == inst.type):
                    self.both_ways(inst, op)
                elif op.type.is_integer:
                    self.set_scalar(op, INTEGER)

    def both_ways(self, a: Value, b: Value) -> None:
        self.update(a, self.get(b))
        self.update(b, self.get(a))

    def visit_binary(self, inst: BinaryOperator) -> None:
        op = inst.opcode
        if op.startswith("f"):
            return  # seeded from the floating-point type
        lhs, rhs = inst.lhs, inst.rhs
        if op in ("and", "or", "xor"):
            # bit tricks on floats (fabs/fneg through integers) keep the type
            for x in (lhs, rhs):
                if not isinstance(x, ConstantInt):
                    self.both_ways(inst, x)
            return
        if op in ("add", "sub"):
            lt, rt = self.get(lhs).scalar_type(), self.get(rhs).scalar_type()
            if op == "add" and (lt.is_pointer or rt.is_pointer):
                self.set_scalar(inst, POINTER)
                self.set_scalar(rhs if lt.is_pointer else lhs, INTEGER)
                return
            if op == "sub" and lt.is_pointer and rt.is_pointer:
                self.set_scalar(inst, INTEGER)
                return
            if lt.is_pointer or rt.is_pointer or self.get(inst).scalar_type().is_pointer:
                return
        for x in (inst, lhs, rhs):
            self.set_scalar(x, INTEGER)

    def visit_cast(self, inst: CastInst) -> None:
        op = inst.opcode
        src = inst.value
        if op in ("trunc", "zext", "sext"):
            self.set_scalar(inst, INTEGER)
            self.set_scalar(src, INTEGER)
        elif op in ("fptosi", "fptoui"):
            self.set_scalar(inst, INTEGER)
        elif op in ("sitofp", "uitofp"):
            self.set_scalar(src, INTEGER)
        elif op in ("bitcast", "addrspacecast", "ptrtoint", "inttoptr"):
            if op == "bitcast" and isinstance(src.type, VectorType) != isinstance(inst.type, VectorType):
                return  # lanes change meaning
            self.both_ways(inst, src)

    def gep_offset(self, inst: GetElementPtrInst) -> tuple[int, bool, bool]:
        """(constant offset, some index is variable, only the first index is variable)."""
        t = inst.source_type
        indices = inst.indices
        off = 0
        variable = False
        only_first = True
        for k, idx in enumerate(indices):
            if k == 0:
                step = alloc_size(t)
            elif t.is_struct:
                field = idx.value if isinstance(idx, ConstantInt) else 0
                off += struct_field_offset(t, field)
                t = t.elements[field]  # type: ignore[attr-defined]
                continue
            else:
                t = t.element  # type: ignore[attr-defined]
                step = alloc_size(t)
            if isinstance(idx, ConstantInt):
                off += idx.signed_value * step
            else:
                variable = True
                if k > 0:
                    only_first = False
        return off, variable, only_first

    def visit_gep(self, inst: GetElementPtrInst) -> None:
        self.set_scalar(inst.pointer, POINTER)
        for idx in inst.indices:
            if idx.type.is_integer:
                self.set_scalar(idx, INTEGER)
        off, variable, only_first = self.gep_offset(inst)
        if not variable and off != 0 and is_pointer_recurrence(inst, self._recurrence,
                                                                         self._slots):
            self.visit_pointer_walk(inst, abs(off))  # p = p + c in a loop
            return
        src_mem = self.pointee(inst.pointer)
        dst_mem = self.pointee(inst)
        if not variable:  # `p + off`; `p - 8` keeps what lies at and after p
            ahead, back = max(off, 0), max(-off, 0)
            self.update_pointee(inst, src_mem.shift(ahead, -1, back))
            self.update_pointee(inst.pointer, dst_mem.shift(back, -1, ahead))
            step = off < 0 and walk_step(inst.pointer, self._recurrence, self._slots)
            if step:  # p walks records of `step` bytes: `p - 8` ends the previous one
                self.update_pointee(inst, rotated(src_mem, back, step))
                self.update_pointee(inst.pointer, rotated(dst_mem, off, step))
            return
        elem = inst.source_type
        if alloc_size(elem) == 1:
            # ``gep i8, p, 176 + 24 * i``: byte arithmetic, a field of the i-th element of
            # an array of 24-byte records at offset 176 (LLVM writes every constant-plus-
            # variable GEP this way): element offsets map onto the record's fields
            start, stride = (linear_offset(inst.indices[0]) if len(inst.indices) == 1
                             else (0, 1))
            if stride > 1 and start + off >= 0:
                start += off
                rec, back = periodic(src_mem, start, stride), dst_mem.shift(0, stride, start)
                if start == 0:  # `p + 8*i`: maybe an array of doubles
                    rec, back = array_of_records(rec, stride), array_of_records(back, stride)
                self.update_pointee(inst, rec)
                self.update_pointee(inst.pointer, back)
                return
            self.update_pointee(inst, minus_one_only(src_mem))
            self.update_pointee(inst.pointer, minus_one_only(dst_mem))
            return
        if only_first and is_scalar_type(elem) and off == 0:
            # x[i] into an array of scalars: every element has the same type
            size = max(alloc_size(elem), 1)
            self.update_pointee(inst.pointer, any_offset(dst_mem.shift(0, size)))
            self.update_pointee(inst, any_offset(src_mem.shift(0, size)))
            return
        if only_first and off >= 0:
            size = max(alloc_size(elem), 1)
            # p[i].field: periodic with the element size; map within one element
            self.update_pointee(inst, periodic(src_mem, off, size).shift(0, size - off))
            self.update_pointee(inst.pointer, dst_mem.shift(0, size - off, off))
            return
        inner = inner_array_index(inst)
        if inner is not None and off >= 0:
            # ``a[k][i]``, ``s.v[i].x``: the i-th element of an array of ``stride``-byte
            # elements, ``count`` of them, inside the object at ``start`` bytes: what one
            # element says holds for each of them, and what they say holds for the one
            start, stride, count = inner
            within = off - start
            rec = periodic(src_mem.shift(start, stride * count), 0, stride)
            self.update_pointee(inst, array_of_records(rec, stride).shift(within, stride - within))
            self.update_pointee(inst.pointer, array_elements(
                dst_mem.shift(0, stride - within, within), start, stride, count))
            return
        self.update_pointee(inst, minus_one_only(src_mem))
        self.update_pointee(inst.pointer, minus_one_only(dst_mem))

    def visit_pointer_walk(self, inst: GetElementPtrInst, step: int) -> None:
        """``p = p + step`` bytes in a loop (``*p++``, ``b++`` over records; LLVM writes
        both as ``getelementptr i8, p, step``): ``p`` and its successor point into the
        same array of ``step``-byte records, each seen from the start of one record. When
        every field of that record has one type (doubles walked by a ``double *``, a
        struct of doubles), that type is at every offset of the array."""
        for dst, src in ((inst, inst.pointer), (inst.pointer, inst)):
            self.update_pointee(dst, array_of_records(self.pointee(src).shift(0, step), step))

    def visit_access(self, inst: Instruction, value: Value, ptr: Value, t: Type) -> None:
        self.set_scalar(ptr, POINTER)
        tbaa = inst.get_metadata("tbaa")
        if tbaa is not None and is_scalar_type(t):
            ct = self.owner.tbaa.access_type(tbaa)
            if ct is not None and fits_llvm_type(ct, t):
                self.set_scalar(value, ct)
            if t.is_pointer:  # "p1 double": the pointer's elements are doubles
                pointee = self.owner.tbaa.pointer_tree(tbaa)
                if pointee is not None:
                    self.update(value, pointee)
        self.update(value, self.loaded(ptr, t))
        self.update_pointee(ptr, self.in_memory(value, t))

    def visit_call(self, call: CallBase) -> None:
        fn = call.called_function
        name = fn.name if fn is not None else None
        args = list(call.args)
        if name is None:
            return
        if is_allocation(name):
            self.set_scalar(call, POINTER)
            for a in args:
                if a.type.is_integer:
                    self.set_scalar(a, INTEGER)
            alloc = allocator(name)
            if alloc is not None and alloc.reallocates is not None:  # moves the old bytes
                self.same_contents(call, args[alloc.reallocates], -1)
            return
        if is_free(name):
            return
        hint = HINT_TYPES.get(enzyme_hint(name) or "")
        if hint is not None and args and args[0].type.is_pointer:
            visit_type_hint(self, args, *hint)
            return
        if _MEMCPY_RE.match(name) and len(args) >= 3:
            dst, src, n = args[0], args[1], args[2]
            self.set_scalar(n, INTEGER)
            self.same_contents(dst, src, n.unsigned_value if isinstance(n, ConstantInt) else -1)
            fields = self.owner.tbaa.struct_fields(call.get_metadata("tbaa.struct"))
            if fields:  # clang's description of a struct copy: {offset, size, tag}...
                described = TypeTree({(off,): ct for off, _, ct in fields})
                self.update_pointee(dst, described)
                self.update_pointee(src, described)
            return
        if _MEMSET_RE.match(name) and len(args) >= 3:
            self.set_scalar(args[2], INTEGER)
            return
        if is_overflow_intrinsic(name):  # -fsanitize's `add nsw`: integers
            address = any(self.get(a).scalar_type().is_pointer for a in args)
            self.update(call, overflow_result_tree(call.type, address))
            for a in args if not address else ():
                self.set_scalar(a, INTEGER)
            return
        if fn is not None and fn.is_declaration and is_blas_function(name):
            visit_blas_call(self, call)
            return
        if fn is not None and fn.is_declaration and (descriptors := descriptor_trees(call)):
            for a, tree in descriptors:  # flang's runtime: what its descriptors hold
                self.set_scalar(a, POINTER)
                self.update_pointee(a, tree)
            return
        if fn is not None and fn.is_declaration:
            if is_math_function(name) or is_math_intrinsic(name):
                for a in args:
                    if a.type.is_integer:
                        self.set_scalar(a, INTEGER)
            return
        if fn is not None and not fn.is_declaration and len(fn.args) == len(args):
            res = self.owner.analyze_call(fn, [self.get(a) for a in args], self.get(call))
            if res is None:
                return
            if not call.type.is_void:
                self.update(call, res.return_tree)
            for a, t in zip(args, res.arg_trees, strict=True):
                self.update(a, t)


def _trim(t: TypeTree) -> TypeTree:
    return TypeTree({p: ct for p, ct in t.mapping.items() if len(p) <= CALL_DEPTH})


class TypeAnalysis:
    """Type analysis over a module; :meth:`analyze` is memoized per argument trees."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.tbaa = module_tbaa(module)  # parsed once, shared with memory_writes
        self._cache: dict[tuple, TypeResults] = {}
        self._in_progress: set[tuple] = set()
        self._variants: dict[Function, int] = {}
        # the argument trees the analysed call sites passed to each function (merged)
        self._call_trees: dict[Function, list[TypeTree]] = {}

    def analyze(self, fn: Function, arg_trees: Sequence[TypeTree] | None = None,
                return_tree: TypeTree | None = None) -> TypeResults:
        """Type trees for every value of ``fn`` given its arguments' (and return's) trees."""
        if arg_trees is None:
            arg_trees, default_ret = default_arg_trees(fn)
            if return_tree is None:
                return_tree = default_ret
        ret = return_tree if return_tree is not None else TypeTree()
        key = (fn, tuple(str(t) for t in arg_trees), str(ret))
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        self._in_progress.add(key)
        try:
            result = _FunctionTypeAnalysis(self, fn, arg_trees, ret).run()
        finally:
            self._in_progress.discard(key)
        self._cache[key] = result
        return result

    def function_types(self, fn: Function, like: Function | None = None) -> TypeResults:
        """The types of ``fn`` in this module, as the AD engine uses them: what each
        argument's IR type says, merged with what the call sites analysed so far passed
        to ``fn`` (or to ``like``, the function ``fn`` is a copy of). An integer argument
        nobody said anything about is an integer."""
        trees, ret = default_arg_trees(fn)
        hints = self._call_trees.get(like if like is not None else fn)
        if hints is not None and len(hints) == len(trees):
            for k, (a, h) in enumerate(zip(fn.args, hints, strict=True)):
                if h:
                    trees[k] = seed_tree(a.type)
                    trees[k].or_in(h)
        return self.analyze(fn, trees, ret)

    def _record_call(self, fn: Function, arg_trees: Sequence[TypeTree]) -> None:
        got = self._call_trees.get(fn)
        if got is None:
            self._call_trees[fn] = [t.copy() for t in arg_trees]
            return
        for g, t in zip(got, arg_trees, strict=False):
            g.or_in(t)

    def analyze_call(self, fn: Function, arg_trees: Sequence[TypeTree],
                     return_tree: TypeTree) -> TypeResults | None:
        """Interprocedural step; None while ``fn`` is being analyzed (recursion)."""
        trimmed = [_trim(t) for t in arg_trees]
        self._record_call(fn, trimmed)
        if any(k[0] is fn for k in self._in_progress):
            return None
        variants = self._variants.get(fn, 0)
        if variants >= MAX_VARIANTS:
            return None
        key = (fn, tuple(str(t) for t in trimmed), str(_trim(return_tree)))
        if key not in self._cache:
            self._variants[fn] = variants + 1
        return self.analyze(fn, trimmed, _trim(return_tree))


__all__ = [
    "CopiedContents",
    "TypeAnalysis",
    "TypeResults",
    "constant_tree",
    "default_arg_trees",
    "seed_tree",
]

