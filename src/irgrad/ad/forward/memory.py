"""Forward-mode handlers for memory, calls and returns (shadows, allocation, callees).

A pointer's tangent is its shadow (``invert_pointer``): GEPs and casts of a shadowed
pointer are recomputed on the shadow; allocas and heap allocations get zeroed shadow
allocations; a store of an active value stores its tangent through the shadow pointer
and a load from shadowed memory reads the tangent from the shadow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.allocations import unless_own_shadow
from irgrad.ad.core.config import DerivativeMode, DiffeType, FnConfig
from irgrad.ad.core.diagnostics import (
    located_at,
    mixed_activity_store_message,
    source_location_of,
    variadic_callee_message,
)
from irgrad.ad.core.dispatch import dispatcher, is_table_call
from irgrad.ad.core.failures import table_check
from irgrad.ad.core.function_shadows import (
    canonical_config,
    constant_has_shadow,
    function_of_type,
    shadow_of_constant,
)
from irgrad.ad.core.shadow_globals import (
    constant_data_global,
    memory_global,
    unshadowed_memory,
)
from irgrad.ad.core.signatures import forward_signature
from irgrad.ad.forward.allocations import visit_alloc, visit_out_alloc
from irgrad.ad.forward.complex_calls import visit_complex_call
from irgrad.ad.forward.global_arguments import checked_pointer_shadows, global_args_extra
from irgrad.ad.forward.input_calls import visit_input_call
from irgrad.ad.forward.interleaved_shadows import INTERLEAVED_KEY, widened
from irgrad.ad.forward.library_writes import mirror_library_writes
from irgrad.ad.forward.shadow_copies import (
    copy_shadow,
    holds_own_shadows,
    shadow_name,
    times_width,
)
from irgrad.ad.forward.tangents import Tangent, tangent_type, zero_tangent
from irgrad.ad.forward.vector_intrinsics import is_vector_intrinsic, visit_vector_intrinsic
from irgrad.ad.rules import lookup_call, lookup_intrinsic
from irgrad.ad.rules.complex_calls import complex_base
from irgrad.analysis.activity import has_float, holds_address_type, holds_pointers
from irgrad.analysis.allocating_functions import returns_fresh_allocation
from irgrad.analysis.blas import missing_rule
from irgrad.analysis.function_pointers import (
    points_into_function_table,
    points_to_code,
    value_targets,
)
from irgrad.analysis.input_formats import INPUT_FUNCTIONS
from irgrad.analysis.known_functions import (
    allocator,
    deallocator,
    free_pointer_arg,
    is_inactive_call,
    is_inactive_global,
    is_memory_transfer,
    is_memset,
    is_shadow_mirrored,
    math_function_like,
)
from irgrad.analysis.layout import abi_align
from irgrad.analysis.memory_writes import frees_memory, writes_caller_memory
from irgrad.analysis.release_functions import release_argument
from irgrad.analysis.underlying_objects import is_null_based, underlying_object
from irgrad.errors import DifferentiationError
from irgrad.ir.printer import value_ref

if TYPE_CHECKING:
    from irgrad.ad.core.context import DerivativeContext
    from irgrad.ad.forward.instructions import ForwardPass


def visit_alloca(fp: ForwardPass, inst: ir.AllocaInst) -> None:
    """A shadow alloca next to the primal one, zero-initialized."""
    if inst in fp.interleaved:
        ty = widened(inst.allocated_type, fp.width)
        assert ty is not None
        sh = fp.b.alloca(ty, inst.count, inst.align, name=shadow_name(inst))
        _zero_fill(fp, sh, ty, inst.count)
        fp.tangents[inst] = sh
        return
    shadows = []
    for _ in range(fp.width):
        sh = copy_shadow(fp, inst, {})
        shadows.append(sh)
    for sh in shadows:
        _zero_fill(fp, sh, inst.allocated_type, inst.count)
    fp.tangents[inst] = shadows[0] if fp.width == 1 else shadows


def _zero_fill(fp: ForwardPass, p: ir.Value, ty: ir.Type, count: ir.Value | None) -> None:
    if count is None or (isinstance(count, ir.ConstantInt) and count.value == 1):
        fp.b.store(ir.null_value(ty), p)
        return
    end = fp.b.gep(ty, ir.ConstantPointerNull(ir.ptr), [count])
    size = fp.b.ptrtoint(end, ir.i64)
    fp.b.memset(p, 0, size)


def _pointer_tangent(fp: ForwardPass, p: ir.Value) -> Tangent | None:
    """The shadow of pointer ``p``; a constant pointer into a constant table of functions
    (a vtable, a callback table) has the table of their shadows as its shadow."""
    t = fp.tangent(p)
    if t is None and isinstance(p, ir.Constant) and points_into_function_table(p):
        s = shadow_of_constant(fp.ctx, p, DerivativeMode.FORWARD, fp.width)
        assert s is not None
        t = s if fp.width == 1 else [s] * fp.width
    return t


def visit_gep(fp: ForwardPass, inst: ir.GetElementPtrInst) -> None:
    base = inst.pointer
    if points_to_code(base):
        return  # code (a function's signature): the function's shadow does not mirror it
    t = _pointer_tangent(fp, base)
    if t is None and isinstance(base, ir.GlobalVariable | ir.ConstantExpr) \
            and constant_data_global(base) is not None and _meets_pointers(inst):
        t = fp.tangent_or_zero(base)  # T + i merged with active pointers: on T's zero
    if t is None:
        return
    if inst in fp.interleaved:  # offsets scaled by the width
        ty = widened(inst.source_type, fp.width)
        assert ty is not None and not isinstance(t, list)
        fp.tangents[inst] = fp.b.gep(ty, t, inst.indices, flags=inst.flags,
                                     name=shadow_name(inst))
        return
    lanes = t if isinstance(t, list) else [t]
    out = [copy_shadow(fp, inst, {base: s}) for s in lanes]
    fp.tangents[inst] = out[0] if fp.width == 1 else out


def _meets_pointers(p: ir.Value, depth: int = 0) -> bool:
    """``p`` (or address arithmetic on it) is merged with other pointers (a select, a
    phi), so it needs a shadow although it points into constant data."""
    for u in p.users:
        if isinstance(u, ir.SelectInst | ir.PHINode):
            return True
        if depth < 8 and (isinstance(u, ir.GetElementPtrInst) or (
                isinstance(u, ir.CastInst) and u.opcode in ("bitcast", "addrspacecast"))) \
                and u.operands[0] is p and _meets_pointers(u, depth + 1):
            return True
    return False


def visit_load(fp: ForwardPass, inst: ir.LoadInst) -> None:
    p = inst.pointer
    t = _pointer_tangent(fp, p)
    if t is None or underlying_object(p) in fp.constant_allocas or points_to_code(p):
        return
    if p in fp.interleaved:  # the N tangents side by side: one vector load
        assert not isinstance(t, list)
        fp.tangents[inst] = fp.b.load(tangent_type(inst.type, fp.width), t,
                                      _lane_align(inst, inst.type), name=shadow_name(inst))
        return
    lanes = t if isinstance(t, list) else [t]
    loaded: list[ir.Value] = [copy_shadow(fp, inst, {p: s}) for s in lanes]
    loaded = checked_pointer_shadows(fp, loaded, inst)  # a pointer kept in an active global
    fp.tangents[inst] = fp.pack(loaded, inst.type) if fp.width > 1 else loaded[0]


def _lane_align(inst: ir.LoadInst | ir.StoreInst, ty: ir.Type) -> int:
    """The alignment of an interleaved vector access: the scalar's (an access without
    an explicit one has the scalar's ABI alignment, not the vector's)."""
    return inst.align or abi_align(ty)


def visit_store(fp: ForwardPass, inst: ir.StoreInst) -> None:
    p = inst.pointer
    sp = fp.tangent(p)
    if sp is None:
        v = inst.value
        # an active value stored where no shadow exists (e.g. a global): lost derivative
        if (fp.tangent(v) is not None and v.type.is_fp_or_fp_vector
                and memory_global(p) is not None
                and not is_inactive_global(getattr(underlying_object(p), "name", None))):
            raise fp.error(inst, unshadowed_memory(p, "active value stored"))
        return
    v = inst.value
    tv = fp.tangent(v)
    if p in fp.interleaved:  # a floating-point scalar: one vector store
        assert not isinstance(sp, list)
        t = tv if tv is not None else zero_tangent(v.type, fp.width)
        fp.b.store(t, sp, _lane_align(inst, v.type))  # type: ignore[arg-type]
        return
    if tv is None and v.type.scalar_type.is_integer and not isinstance(v, ir.Constant):
        # an integer computed without a tangent (a count, a size, a stack pointer): the
        # shadow memory holds the same integer, as in Enzyme, so shadow structs keep
        # their bookkeeping (a derivative's tape state differentiated again)
        tv = v if fp.width == 1 else [v] * fp.width
    if tv is None:
        tv = zero_tangent(v.type, fp.width)
        if v.type.is_pointer:
            held: ir.Value = v  # an inactive pointer (or a function pointer the
            # dispatchers compare): the primal
            if constant_has_shadow(v):  # a function: its table of derivatives
                table = shadow_of_constant(fp.ctx, v, DerivativeMode.FORWARD, fp.width)
                assert table is not None
                held = table
            elif not isinstance(v, ir.Constant) and not value_targets(v) and (
                not is_null_based(v)  # null + n: as null, itself
            ) and not fp.is_own_shadow(v) and (
                underlying_object(p) not in fp.constant_allocas):
                raise fp.error(inst, mixed_activity_store_message(v))
            tv = held if fp.width == 1 else [held] * fp.width
    vals = fp.lanes(tv, v.type)
    ptrs = sp if isinstance(sp, list) else [sp]
    for val, ptr in zip(vals, ptrs, strict=True):
        copy_shadow(fp, inst, {v: val, p: ptr})


def visit_return(fp: ForwardPass, inst: ir.ReturnInst) -> None:
    config = fp.config
    ret_ty = fp.fn.return_type
    v = inst.value
    b = fp.b
    if ret_ty.is_void:
        if v is not None:  # f returns a value nobody asked for (`__enzyme_fwddiff<void>`)
            b.insert(ir.ReturnInst())
            inst.erase_from_parent()
        return
    orig_ret = config.function.return_type
    tangent_val: ir.Value | None = None
    if config.return_type is not DiffeType.CONST:
        assert v is not None
        t = fp.tangent_or_zero(v, orig_ret)
        if fp.tangent(v) is None and isinstance(orig_ret, ir.IntType):
            # an address of inactive memory: its shadow is itself (an inactive integer's)
            t = v if config.width == 1 else [v] * config.width
        if config.width == 1:
            tangent_val = t  # type: ignore[assignment]
        else:
            arr: ir.Value = ir.UndefValue(ir.ArrayType(config.width, orig_ret))
            for k, lane in enumerate(fp.lanes(t, orig_ret)):
                arr = b.insert_value(arr, lane, k)
            tangent_val = arr
    if config.return_primal and tangent_val is not None:
        agg: ir.Value = ir.UndefValue(ret_ty)
        agg = b.insert_value(agg, v, 0)  # type: ignore[arg-type]
        agg = b.insert_value(agg, tangent_val, 1)
        out: ir.Value = agg
    elif tangent_val is not None:
        out = tangent_val
    else:
        assert v is not None
        out = v
    new = ir.ReturnInst(out)
    b.insert(new)
    inst.erase_from_parent()


# -- calls ------------------------------------------------------------------------------


def _has_tangents(fp: ForwardPass, call: ir.CallBase) -> bool:
    return any(fp.tangent(a) is not None for a in call.args)


def visit_call(fp: ForwardPass, call: ir.CallBase) -> None:
    callee = call.called_function
    name = callee.name if callee is not None else ""
    # the user's custom derivative (defined or declared), or a BLAS/LAPACK rule
    if fp.ctx.custom.has(callee) or fp.ctx.has_library_rule(callee):
        assert callee is not None
        if _has_tangents(fp, call):
            _visit_defined_call(fp, call, callee)
        return
    if is_inactive_call(name):
        if _has_tangents(fp, call):  # the pointers it wrote (a string's characters)
            mirror_library_writes(fp, call)
        return
    if name in INPUT_FUNCTIONS:  # sscanf, fread: data read from text carries no tangent
        visit_input_call(fp, call, name)
        return
    alloc = allocator(name)
    if alloc is not None and alloc.returns_memory:
        visit_alloc(fp, call, alloc)
        return
    if alloc is not None and not alloc.returns_memory:
        visit_out_alloc(fp, call, alloc)
        return
    k = free_pointer_arg(name)
    if k is None and call.args and call.args[0] not in fp.interleaved:
        k = release_argument(callee)  # aligned_free(p): releases what p leads to
    if k is not None:  # free the shadow too (the freed pointer is argument k)
        args = list(call.args)
        t = fp.tangent(args[k])
        if args[k] in fp.interleaved:  # one shadow; a sized delete frees N times the bytes
            d = deallocator(name)
            size_at = d.size_arg if d is not None else None
            fp.b.call(callee, [t if i == k else times_width(fp, a) if i == size_at  # type: ignore[misc]
                               else a for i, a in enumerate(args)])
        elif t is not None:
            known = free_pointer_arg(name) is not None
            for s in t if isinstance(t, list) else [t]:
                if known:  # a block that is its own shadow (library memory no derivative
                    # reaches, a long std::string's characters) is freed once: free(null)
                    null = ir.ConstantPointerNull(ir.ptr)
                    s = fp.b.select(fp.b.icmp("eq", s, args[k]), null, s)
                # _ZdlPvm: the size is passed as it is
                fp.b.call(callee, [*args[:k], s, *args[k + 1:]])  # type: ignore[arg-type]
        return
    if is_memory_transfer(name) or is_memset(name):
        _visit_mem_intrinsic(fp, call, name)
        return
    if is_vector_intrinsic(name):  # reductions, hadd, masked loads/stores/gathers
        if _has_tangents(fp, call):
            visit_vector_intrinsic(fp, call, name)
        return
    uses_globals = fp.globals.uses_active_globals(callee)
    # an allocator wrapper (xmalloc, an aligned allocator): its block needs a shadow
    fresh = bool(call.uses) and returns_fresh_allocation(callee)
    if not _has_tangents(fp, call) and not uses_globals and not fresh:
        return
    if (callee is not None and not callee.is_declaration and not call.uses
            and not writes_caller_memory(callee) and not frees_memory(callee)):
        return  # a read-only call whose result is unused (and frees no shadow): no tangent
    if is_shadow_mirrored(name):
        _visit_mirrored(fp, call)
        return
    base = complex_base(call, name)
    if base is not None and (callee is None or callee.is_declaration):
        visit_complex_call(fp, call, base)
        return
    like = math_function_like(name)
    if name.startswith("llvm."):
        rule = lookup_intrinsic(name)
    elif callee is not None and (like or callee.is_declaration):
        rule = lookup_call(like or name)
    else:
        rule = None
    if rule is not None:
        if rule.result_kind == "struct":
            t = fp.apply_rule(rule, list(call.args), call)
            if t is not None:
                res_ty = call.type.elements[rule.result_index or 0]  # type: ignore[attr-defined]
                _set_struct_tangent(fp, call, t, rule.result_index or 0, res_ty)
            return
        if rule.result_kind == "int" or not call.type.is_fp_or_fp_vector:
            return
        t = fp.apply_rule(rule, list(call.args), call)
        if t is not None:
            fp.tangents[call] = t
        return
    if callee is None:
        visit_indirect_call(fp, call)
        return
    if callee.is_declaration:
        why = missing_rule(name)
        raise fp.error(call, f"No derivative found for {name}: {why}" if why else
                       f"No derivative found for {name} (an external function without a "
                       "definition or a derivative rule, called with active arguments)")
    _visit_defined_call(fp, call, callee)


def _visit_mirrored(fp: ForwardPass, call: ir.CallBase) -> None:
    """A function that relinks a pointer structure: the same call on the shadows (lane by
    lane); its result is the tangent of the call's."""
    lanes: list[list[ir.Value]] = [[] for _ in range(fp.width)]
    for a in call.args:
        t = fp.tangent(a) if a.type.is_pointer else None
        if a.type.is_pointer and t is None and not isinstance(a, ir.ConstantPointerNull):
            raise fp.error(call, f"{call.called_function.name} links memory that has a "  # type: ignore[union-attr]
                           "shadow with memory that has none (an enzyme_const or inactive "
                           "structure)")
        vals = fp.lanes(t, a.type) if t is not None else [a] * fp.width
        for k in range(fp.width):
            lanes[k].append(vals[k])
    out = [fp.b.call(call.callee, args, call.function_type) for args in lanes]
    if call.type.is_pointer:
        fp.tangents[call] = out[0] if fp.width == 1 else out


def _set_struct_tangent(
    fp: ForwardPass, call: ir.CallBase, t: object, index: int, elem_ty: ir.Type
) -> None:
    agg_ty = call.type
    if fp.width == 1:
        zero = ir.null_value(agg_ty)
        fp.tangents[call] = fp.b.insert_value(zero, t, index)  # type: ignore[arg-type]
    else:
        lanes = fp.lanes(t, elem_ty)  # type: ignore[arg-type]
        fp.tangents[call] = [
            fp.b.insert_value(ir.null_value(agg_ty), lane, index) for lane in lanes
        ]


def _visit_mem_intrinsic(fp: ForwardPass, call: ir.CallBase, name: str) -> None:
    dst = call.args[0]
    dst_t = fp.tangent(dst)
    if dst_t is None:
        if (is_memory_transfer(name) and fp.tangent(call.args[1]) is not None
                and memory_global(dst) is not None and not fp.points_into_float_free(dst)
                and not fp.points_to_integers(dst)):
            # (characters copied into a global message log's strings carry nothing)
            raise fp.error(call, unshadowed_memory(dst, "active data copied"))
        return
    if dst in fp.interleaved and name.startswith("llvm.memset."):
        copy_shadow(fp, call, {dst: dst_t, call.args[1]: ir.ConstantInt(ir.i8, 0),  # type: ignore[dict-item]
                         call.args[2]: times_width(fp, call.args[2])})
        return
    dsts = dst_t if isinstance(dst_t, list) else [dst_t]
    n = call.args[2]
    if name.startswith("llvm.memset."):
        for d in dsts:
            copy_shadow(fp, call, {dst: d, call.args[1]: ir.ConstantInt(ir.i8, 0),
                                   n: unless_own_shadow(fp.b, d, dst, n)})
        return
    src = call.args[1]
    src_t = fp.tangent(src)
    if dst in fp.interleaved:  # both sides interleaved (decided together): bytes x N
        copy_shadow(fp, call, {dst: dst_t, src: src_t,  # type: ignore[dict-item]
                         n: times_width(fp, n)})
        return
    if src_t is None and holds_own_shadows(src):  # string literals: their own shadows
        for d in dsts:
            copy_shadow(fp, call, {dst: d, n: unless_own_shadow(fp.b, d, dst, n)})
        return
    if src_t is None:  # copying constant data: the destination's tangent becomes zero
        for d in dsts:
            fp.b.memset(d, 0, unless_own_shadow(fp.b, d, dst, n))
        return
    srcs = src_t if isinstance(src_t, list) else [src_t]
    for d, s in zip(dsts, srcs, strict=True):
        copy_shadow(fp, call, {dst: d, src: s, n: unless_own_shadow(fp.b, d, dst, n)})


def _visit_defined_call(fp: ForwardPass, call: ir.CallBase, callee: ir.Function,
                        args: Sequence[ir.Value] | None = None,
                        config: FnConfig | None = None) -> None:
    """Replace the call by a call to the callee's forward derivative (primal + tangent).
    ``args``: what the callee takes (default: the call's arguments)."""
    if not isinstance(call, ir.CallInst):
        raise fp.error(call, "invoke of a function with active arguments is not supported")
    if callee.function_type.var_arg:
        raise fp.error(call, variadic_callee_message(callee))
    args = list(call.args) if args is None else list(args)
    if config is None:
        config = callee_config(fp, callee, args, bool(call.uses))
    with located_at(call):
        deriv = fp.ctx.get_or_create(config)
    fp.b.position_before(call)  # the lanes of vector tangents are taken apart before it
    values = with_tangents(fp, args, config, callee.function_type.params)
    fp.b.position_before(call)
    emit_forward_call(fp, call, fp.b.call(deriv, values), config)


def with_tangents(fp: ForwardPass, args: Sequence[ir.Value], config: FnConfig,
                  params: Sequence[ir.Type]) -> list[ir.Value]:
    """The arguments of a forward derivative: each DUP argument followed by its shadows."""
    values: list[ir.Value] = []
    for a, act, p in zip(args, config.arg_types, params, strict=False):
        values.append(a)
        if act is DiffeType.DUP:
            t = fp.tangent_or_zero(a, p)
            if a in fp.interleaved:  # the callee takes the interleaved shadow as is
                values.append(t)  # type: ignore[arg-type]
            else:
                values.extend(fp.lanes(t, p))
    values.extend(args[len(params):])
    return values


def emit_forward_call(fp: ForwardPass, call: ir.CallBase, new: ir.Value,
                      config: FnConfig) -> None:
    """``new`` (a call of a forward derivative) replaces ``call``: its primal result takes
    the call's uses and its tangent becomes the tangent."""
    b = fp.b
    ret = config.function.return_type
    if not ret.is_void:  # a constant result comes alone (forward.return_type_of)
        const = config.return_type is DiffeType.CONST
        primal = new if const else b.extract_value(new, 0)
        call.replace_all_uses_with(primal)
        if config.return_type is not DiffeType.CONST:
            tan = b.extract_value(new, 1)
            if config.width == 1:
                fp.tangents[primal] = tan
            else:
                lanes = [b.extract_value(tan, k) for k in range(config.width)]
                fp.tangents[primal] = fp.pack(lanes, ret)
            if holds_address_type(ret):  # an address returned as an integer
                fp.addresses.add(primal)
        fp.tangents.pop(call, None)  # tangent lookups of the old call go to the primal
    call.erase_from_parent()


def visit_indirect_call(fp: ForwardPass, call: ir.CallBase) -> None:
    """A call through a function pointer with active arguments: a call of its
    dispatcher's forward derivative (:mod:`irgrad.ad.core.dispatch`), which compares the
    pointer with the functions it may hold; the pointer's shadow goes along when it and
    every pointer argument have one (the dispatcher's default calls through it)."""
    ctx = fp.ctx
    if is_table_call(ctx, call):
        _visit_table_call(fp, call)
        return
    if not isinstance(call, ir.CallInst):
        raise fp.error(call, "No derivative found for an indirect invoke with active "
                       "arguments")
    fnptr = call.callee
    # (the derivatives in a function's shadow take integers without tangents: not when an
    # integer argument holds an address)
    through = fp.tangent(fnptr) is not None and all(
        fp.tangent(a) is not None for a in call.args if a.type.is_pointer) and not any(
        a in fp.addresses for a in call.args)
    args = [fnptr, *call.args]

    def make_config(d: ir.Function, open_default: bool) -> FnConfig:
        config = callee_config(fp, d, args, bool(call.uses))
        acts = (DiffeType.DUP if open_default else DiffeType.CONST, *config.arg_types[1:])
        return replace(config, arg_types=acts)

    loc = source_location_of(call, ctx.module)
    where = f"at {loc} in {fp.config.function.name} (calling {value_ref(fnptr)})"
    try:
        d, open_default = dispatcher(ctx, call, through_shadow=through,
                                     make_config=make_config, synthesize=ctx.get_or_create,
                                     where=where)
    except DifferentiationError as exc:
        if exc.location is None:
            exc.location = loc
        raise
    _visit_defined_call(fp, call, d, args, make_config(d, open_default))


def _visit_table_call(fp: ForwardPass, call: ir.CallBase) -> None:
    """A dispatcher's default case: the forward derivative read from the pointer's
    shadow (checked to be a table first), called with the canonical activities."""
    config = canonical_config(function_of_type(call.function_type), DerivativeMode.FORWARD,
                              fp.width)
    table = fp.tangent(call.callee)
    assert table is not None
    if isinstance(table, list):
        table = table[0]
    b = fp.b
    b.position_before(call)
    b.call(table_check(fp.ctx.module), [call.callee, table])
    fwd = b.load(ir.ptr, table, name="'forward.fn")
    values = with_tangents(fp, list(call.args), config, call.function_type.params)
    emit_forward_call(fp, call, b.call(fwd, values, forward_signature(config)), config)


def returns_address(ctx: DerivativeContext, fn: ir.Function) -> bool:
    """``fn`` returns an address as an integer (``uintptr_t align_up(uintptr_t p)``):
    type analysis says a returned ``i64`` is a pointer."""
    if not holds_address_type(fn.return_type) or fn.is_declaration:
        return False
    types = ctx.types(fn)
    return any(isinstance(i, ir.ReturnInst) and i.value is not None
               and types.scalar_type(i.value).is_pointer for i in fn.instructions())


def callee_config(pass_: ForwardPass, callee: ir.Function, args: Sequence[ir.Value],
                  result_used: bool) -> FnConfig:
    acts = []
    interleaved = []
    for i, a in enumerate(args[:len(callee.function_type.params)]):  # (not varargs)
        t = pass_.tangent(a)
        if t is not None:  # (an integer too: a float's bits, or an address in an i64)
            acts.append(DiffeType.DUP)
            if a in pass_.interleaved:
                interleaved.append(i)
        else:
            acts.append(DiffeType.CONST)
    ret = callee.return_type
    ret_act = DiffeType.DUP if (has_float(ret) or holds_pointers(ret)
                                or returns_address(pass_.ctx, callee)) else DiffeType.CONST
    extra = ((INTERLEAVED_KEY, tuple(interleaved)),) if interleaved else ()
    dups = [act is DiffeType.DUP for act in acts]
    return FnConfig(
        function=callee,
        mode=DerivativeMode.FORWARD,
        arg_types=tuple(acts),
        return_type=ret_act,
        width=pass_.width,
        return_primal=not ret.is_void,
        extra=extra + global_args_extra(pass_, args, dups),
    )
