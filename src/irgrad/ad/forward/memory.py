"""Forward-mode handlers for memory, calls and returns (shadows, allocation, callees).

A pointer's tangent is its shadow (``invert_pointer``): GEPs and casts of a shadowed
pointer are recomputed on the shadow; allocas and heap allocations get zeroed shadow
allocations; a store of an active value stores its tangent through the shadow pointer
and a load from shadowed memory reads the tangent from the shadow.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.allocations import allocation_bytes
from irgrad.ad.core.config import DerivativeMode, DiffeType, FnConfig
from irgrad.ad.core.diagnostics import mixed_activity_store_message
from irgrad.ad.core.shadow_globals import (
    memory_global,
    shadow_globals_of,
    unshadowed_memory,
)
from irgrad.ad.forward.interleaved_shadows import INTERLEAVED_KEY, widened
from irgrad.ad.forward.tangents import tangent_type, zero_tangent
from irgrad.ad.rules import lookup_call, lookup_intrinsic
from irgrad.analysis.known_functions import (
    Allocator,
    allocator,
    is_free,
    is_inactive_call,
    is_memory_transfer,
    is_memset,
)
from irgrad.analysis.layout import abi_align
from irgrad.analysis.memory_writes import writes_caller_memory
from irgrad.analysis.underlying_objects import underlying_object
from irgrad.ir.clone import clone_instruction

if TYPE_CHECKING:
    from irgrad.ad.forward.instructions import ForwardPass


def _copy(fp: ForwardPass, inst: ir.Instruction, mapping: dict[ir.Value, ir.Value],
          suffix: str = "'") -> ir.Instruction:
    new = clone_instruction(inst, mapping)
    new.name = None
    new.metadata = [(k, v) for k, v in inst.metadata if k == "dbg"]
    fp.b.insert(new, _shadow_name(inst, suffix) if not inst.type.is_void else None)
    return new


def _shadow_name(v: ir.Value, prefix: str = "'") -> str | None:
    return f"{prefix}{v.name}" if v.name else None


def _times_width(fp: ForwardPass, v: ir.Value) -> ir.Value:
    """``v * N``: a byte count of interleaved shadow memory."""
    return fp.b.mul(v, ir.ConstantInt(v.type, fp.width))


def visit_alloca(fp: ForwardPass, inst: ir.AllocaInst) -> None:
    """A shadow alloca next to the primal one, zero-initialized."""
    if inst in fp.interleaved:
        ty = widened(inst.allocated_type, fp.width)
        assert ty is not None
        sh = fp.b.alloca(ty, inst.count, inst.align, name=_shadow_name(inst))
        _zero_fill(fp, sh, ty, inst.count)
        fp.tangents[inst] = sh
        return
    shadows = []
    for _ in range(fp.width):
        sh = _copy(fp, inst, {})
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


def visit_gep(fp: ForwardPass, inst: ir.GetElementPtrInst) -> None:
    base = inst.pointer
    t = fp.tangent(base)
    if t is None:
        return
    if inst in fp.interleaved:  # offsets scaled by the width
        ty = widened(inst.source_type, fp.width)
        assert ty is not None and not isinstance(t, list)
        fp.tangents[inst] = fp.b.gep(ty, t, inst.indices, flags=inst.flags,
                                     name=_shadow_name(inst))
        return
    lanes = t if isinstance(t, list) else [t]
    out = [_copy(fp, inst, {base: s}) for s in lanes]
    fp.tangents[inst] = out[0] if fp.width == 1 else out


def visit_load(fp: ForwardPass, inst: ir.LoadInst) -> None:
    p = inst.pointer
    t = fp.tangent(p)
    if t is None or underlying_object(p) in fp.constant_allocas:
        return
    if p in fp.interleaved:  # the N tangents side by side: one vector load
        assert not isinstance(t, list)
        fp.tangents[inst] = fp.b.load(tangent_type(inst.type, fp.width), t,
                                      _lane_align(inst, inst.type), name=_shadow_name(inst))
        return
    lanes = t if isinstance(t, list) else [t]
    loaded: list[ir.Value] = [_copy(fp, inst, {p: s}) for s in lanes]
    if inst.type.is_pointer and fp.globals.is_active(underlying_object(p) or p):
        shadows = shadow_globals_of(fp.ctx)  # a pointer kept in an active global
        loaded = [shadows.check_pointer_shadow(fp.b, s, inst, p) for s in loaded]
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
                and memory_global(p) is not None):
            raise fp.error(inst, unshadowed_memory(p, "active value stored"))
        return
    v = inst.value
    tv = fp.tangent(v)
    if p in fp.interleaved:  # a floating-point scalar: one vector store
        assert not isinstance(sp, list)
        t = tv if tv is not None else zero_tangent(v.type, fp.width)
        fp.b.store(t, sp, _lane_align(inst, v.type))  # type: ignore[arg-type]
        return
    if tv is None:
        tv = zero_tangent(v.type, fp.width)
        if v.type.is_pointer:
            if not isinstance(v, ir.Constant) and (
                underlying_object(p) not in fp.constant_allocas
            ):
                raise fp.error(inst, mixed_activity_store_message(v))
            tv = v if fp.width == 1 else [v] * fp.width  # an inactive pointer: the primal
    vals = fp.lanes(tv, v.type)
    ptrs = sp if isinstance(sp, list) else [sp]
    for val, ptr in zip(vals, ptrs, strict=True):
        _copy(fp, inst, {v: val, p: ptr})


def visit_return(fp: ForwardPass, inst: ir.ReturnInst) -> None:
    config = fp.config
    ret_ty = fp.fn.return_type
    v = inst.value
    if ret_ty.is_void:
        return
    b = fp.b
    orig_ret = config.function.return_type
    tangent_val: ir.Value | None = None
    if config.return_type is not DiffeType.CONST:
        assert v is not None
        t = fp.tangent_or_zero(v, orig_ret)
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
    if is_inactive_call(name):
        return
    alloc = allocator(name)
    if alloc is not None:
        _visit_alloc(fp, call, alloc)
        return
    if is_free(name):
        t = fp.tangent(call.args[0])
        if call.args[0] in fp.interleaved:
            sized = [_times_width(fp, a) for a in call.args[1:]]
            fp.b.call(callee, [t, *sized])  # type: ignore[list-item, arg-type]
        elif t is not None:
            for s in t if isinstance(t, list) else [t]:
                fp.b.call(callee, [s, *call.args[1:]])  # type: ignore[arg-type]  # _ZdlPvm: size
        return
    if is_memory_transfer(name) or is_memset(name):
        _visit_mem_intrinsic(fp, call, name)
        return
    uses_globals = fp.globals.uses_active_globals(callee)
    if not _has_tangents(fp, call) and not uses_globals:
        return
    if (callee is not None and not callee.is_declaration and not call.uses
            and not writes_caller_memory(callee)):
        return  # a read-only call whose result is unused: no tangent is needed
    if name.startswith("llvm."):
        rule = lookup_intrinsic(name)
    else:
        rule = lookup_call(name) if callee is not None and callee.is_declaration else None
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
        raise fp.error(call, "No derivative found for an indirect call with active arguments")
    if callee.is_declaration:
        raise fp.error(
            call,
            f"No derivative found for {name} (an external function without a definition "
            "or a derivative rule, called with active arguments)",
        )
    _visit_defined_call(fp, call, callee)


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


def _visit_alloc(fp: ForwardPass, call: ir.CallBase, alloc: Allocator) -> None:
    """malloc/calloc/new/realloc: a shadow allocation of the same size, zeroed."""
    assert isinstance(call, ir.CallInst)
    if call in fp.interleaved:
        fp.tangents[call] = _interleaved_alloc(fp, call, alloc)
        return
    shadows: list[ir.Value] = []
    for _ in range(fp.width):
        if alloc.reallocates is not None:
            base = fp.tangent(call.args[alloc.reallocates])
            lanes = base if isinstance(base, list) else [base]
            src = lanes[len(shadows)] if base is not None else ir.ConstantPointerNull(ir.ptr)
            sh = _realloc_shadow(fp, call, src)  # type: ignore[arg-type]
        else:
            sh = _copy(fp, call, {})
        if not alloc.zeroed and alloc.reallocates is None:
            size = allocation_bytes(fp.b, alloc, call.args)
            if fp.ctx.module.get_function("realloc") is not None:
                # a later realloc copies the whole usable block: zero all of it
                size = fp.b.call(_usable_size(fp), [sh], name="'malloc.usable")
            fp.b.memset(sh, 0, size)
        shadows.append(sh)
    fp.tangents[call] = shadows[0] if fp.width == 1 else shadows


def _interleaved_alloc(fp: ForwardPass, call: ir.CallInst, alloc: Allocator) -> ir.Value:
    """One zeroed shadow buffer ``width`` times the size of the primal allocation."""
    b = fp.b
    args = list(call.args)
    size_at = alloc.size_args[-1]
    args[size_at] = _times_width(fp, args[size_at])
    shadow = b.call(call.callee, args, call.function_type, name=_shadow_name(call))
    if not alloc.zeroed:
        b.memset(shadow, 0, allocation_bytes(b, alloc, args))
    return shadow


def _usable_size(fp: ForwardPass) -> ir.Function:
    return fp.b.get_or_insert_function("malloc_usable_size",
                                       ir.FunctionType(ir.i64, [ir.ptr]))


def _realloc_shadow(fp: ForwardPass, call: ir.CallInst, old: ir.Value) -> ir.Value:
    """``realloc`` of the shadow whose grown part is zeroed: realloc copies the old bytes
    and leaves the rest undefined, but a tangent must start at zero. The old and new sizes
    are the allocations' usable sizes (``malloc_usable_size``; 0 for null), so
    ``[old usable, new usable)`` is cleared after the call. Shadows irgrad allocates with
    malloc are zeroed over their usable size when the module reallocs; a shadow the user
    allocates should be zeroed the same way (calloc does in glibc)."""
    b = fp.b
    usable = _usable_size(fp)
    old_size = b.call(usable, [old], name="'realloc.old.size")
    sh = _copy(fp, call, {call.args[0]: old})
    new_size = b.call(usable, [sh], name="'realloc.new.size")
    grown = b.icmp("ugt", new_size, old_size)
    length = b.select(grown, b.sub(new_size, old_size), ir.ConstantInt(ir.i64, 0),
                      name="'realloc.grown")
    tail = b.gep(ir.i8, sh, [old_size], name="'realloc.tail")
    b.memset(tail, 0, length)
    return sh


def _visit_mem_intrinsic(fp: ForwardPass, call: ir.CallBase, name: str) -> None:
    dst = call.args[0]
    dst_t = fp.tangent(dst)
    if dst_t is None:
        if (is_memory_transfer(name) and fp.tangent(call.args[1]) is not None
                and memory_global(dst) is not None):
            raise fp.error(call, unshadowed_memory(dst, "active data copied"))
        return
    if dst in fp.interleaved and name.startswith("llvm.memset."):
        _copy(fp, call, {dst: dst_t, call.args[1]: ir.ConstantInt(ir.i8, 0),  # type: ignore[dict-item]
                         call.args[2]: _times_width(fp, call.args[2])})
        return
    dsts = dst_t if isinstance(dst_t, list) else [dst_t]
    if name.startswith("llvm.memset."):
        for d in dsts:
            _copy(fp, call, {dst: d, call.args[1]: ir.ConstantInt(ir.i8, 0)})
        return
    src = call.args[1]
    src_t = fp.tangent(src)
    if dst in fp.interleaved:  # both sides interleaved (decided together): bytes x N
        _copy(fp, call, {dst: dst_t, src: src_t,  # type: ignore[dict-item]
                         call.args[2]: _times_width(fp, call.args[2])})
        return
    if src_t is None:  # copying constant data: the destination's tangent becomes zero
        for d in dsts:
            fp.b.memset(d, 0, call.args[2])
        return
    srcs = src_t if isinstance(src_t, list) else [src_t]
    for d, s in zip(dsts, srcs, strict=True):
        _copy(fp, call, {dst: d, src: s})


def _visit_defined_call(fp: ForwardPass, call: ir.CallBase, callee: ir.Function) -> None:
    """Replace the call by a call to the callee's forward derivative (primal + tangent)."""
    if not isinstance(call, ir.CallInst):
        raise fp.error(call, "invoke of a function with active arguments is not supported")
    config = callee_config(fp, callee, call.args, bool(call.uses))
    deriv = fp.ctx.get_or_create(config)
    args: list[ir.Value] = []
    for a, act, p in zip(call.args, config.arg_types, callee.function_type.params,
                         strict=False):
        args.append(a)
        if act is DiffeType.DUP:
            t = fp.tangent_or_zero(a, p)
            if a in fp.interleaved:  # the callee takes the interleaved shadow as is
                args.append(t)  # type: ignore[arg-type]
            else:
                args.extend(fp.lanes(t, p))
    args.extend(call.args[len(callee.function_type.params):])
    b = fp.b
    b.position_before(call)
    new = b.call(deriv, args)
    ret = callee.return_type
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
        fp.tangents.pop(call, None)  # tangent lookups of the old call go to the primal
    call.erase_from_parent()


def callee_config(pass_: ForwardPass, callee: ir.Function, args: Sequence[ir.Value],
                  result_used: bool) -> FnConfig:
    acts = []
    interleaved = []
    for i, (a, p) in enumerate(zip(args, callee.function_type.params, strict=False)):
        t = pass_.tangent(a)
        if t is not None and (p.is_pointer or p.is_fp_or_fp_vector):
            acts.append(DiffeType.DUP)
            if a in pass_.interleaved:
                interleaved.append(i)
        else:
            acts.append(DiffeType.CONST)
    ret = callee.return_type
    ret_act = DiffeType.DUP if (ret.is_fp_or_fp_vector or ret.is_pointer) else DiffeType.CONST
    return FnConfig(
        function=callee,
        mode=DerivativeMode.FORWARD,
        arg_types=tuple(acts),
        return_type=ret_act,
        width=pass_.width,
        return_primal=not ret.is_void,
        extra=((INTERLEAVED_KEY, tuple(interleaved)),) if interleaved else (),
    )
