"""Calls in reverse mode.

* intrinsics and C library functions with a rule (``llvm.fmuladd``, ``sin``...): the
  rule's partials;
* memory intrinsics (memcpy/memmove/memset) and allocation functions: shadow memory;
* calls to functions defined in the module: differentiated as calls, like Enzyme.
  :func:`forward_call` (run on the forward pass, in program order, so that the shadow of
  a returned pointer exists before its uses) replaces an active call to ``g`` by a call
  to g's *augmented primal* (it runs g, fills g's shadows and returns g's result, a tape
  and, for a pointer result the caller reads derivatives through, the result's shadow);
  the reverse pass calls g's *reverse* with that tape (looked up like any forward value,
  so it is kept on the caller's own tape inside loops). Both come from
  ``ctx.augmented_pair`` (:mod:`irgrad.ad.reverse.augmented`), so recursion works. When
  re-running g is provably exact (:func:`irgrad.ad.reverse.call_effects.cheap_call_is_exact`:
  g writes nothing outside its frame and what it reads cannot change before the reverse
  pass) and no shadow of its result is needed, the plain call stays and the reverse pass
  calls g's combined gradient instead;
* calls through function pointers: :mod:`irgrad.ad.reverse.indirect_calls`;
* inactive calls (printf, ...) stay in the forward pass only;
* calls to a function with a custom derivative (``__enzyme_register_gradient_*``, defined
  or only declared) always take the augmented path: the user's augmented forward pass
  runs in the forward pass, the user's reverse pass with its tape in the reverse pass
  (the context answers with wrappers of them, :mod:`irgrad.ad.core.custom_wrappers`);
* calls to a function declared like a math function (``__enzyme_function_like``) use
  that function's rule;
* anything else with active arguments: ``No derivative found for``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from irgrad import ir
from irgrad.ad.core.config import (
    DISTINCT_ARGUMENTS_KEY,
    NOT_OVERWRITTEN_KEY,
    TAPE_ON_CALLER_STACK_KEY,
    DerivativeMode,
    DiffeType,
    FnConfig,
)
from irgrad.ad.core.diagnostics import located_at
from irgrad.ad.core.signatures import gradient_signature
from irgrad.ad.reverse.adjoints import zero_of
from irgrad.ad.reverse.call_effects import cheap_call_is_exact
from irgrad.ad.reverse.call_sites import (
    AugmentedCall,
    augmented_calls,
    call_config,
    distinct_arguments,
    emit_augmented,
    is_active_call,
    kept_arguments,
    rereadable_arguments,
    shadow_result_needed,
)
from irgrad.ad.reverse.indirect_calls import forward_indirect_call
from irgrad.ad.reverse.input_calls import reverse_input_call
from irgrad.ad.reverse.instructions import apply_rule
from irgrad.ad.reverse.library_writes import mirror_library_writes
from irgrad.ad.reverse.memory import (
    reverse_allocation,
    reverse_memset,
    reverse_memtransfer,
)
from irgrad.ad.reverse.tape import on_caller_stack
from irgrad.ad.reverse.vector_intrinsics import is_vector_intrinsic, reverse_vector_intrinsic
from irgrad.ad.rules import lookup_call, lookup_intrinsic
from irgrad.ad.rules.complex_calls import (
    Abi,
    adjoints_of,
    complex_base,
    complex_derivatives,
    operand_slots,
)
from irgrad.analysis.blas import missing_rule
from irgrad.analysis.fortran_runtime import fortran_routine
from irgrad.analysis.input_formats import INPUT_FUNCTIONS
from irgrad.analysis.known_functions import (
    allocator,
    callee_name,
    is_allocation,
    is_free,
    is_inactive_call,
    is_shadow_mirrored,
    math_function_like,
)
from irgrad.ir.builder import IRBuilder

if TYPE_CHECKING:
    from irgrad.ad.reverse.gradient_utils import GradientUtils

# intrinsics whose pointer result is their first argument, adjusted (the shadow is the
# same call on the argument's shadow)
_POINTER_INTRINSICS = ("llvm.ptrmask", "llvm.launder.invariant.group",
                       "llvm.strip.invariant.group", "llvm.ssa.copy")


# -- the forward pass --------------------------------------------------------------------
def forward_call(gu: GradientUtils, call: ir.CallBase) -> None:
    """The forward pass of one call that is not an allocation, a free or a memory
    transfer (those are handled with the shadows)."""
    if isinstance(call.callee, ir.InlineAsm):
        return
    name = callee_name(call)
    if name is None:
        if is_active_call(gu, call):
            forward_indirect_call(gu, call)
        return
    if is_inactive_call(name):  # the pointers it wrote (a string's characters)
        mirror_library_writes(gu, call)
        return
    if name in INPUT_FUNCTIONS:  # (input: the primal's call)
        return
    fn = call.called_function
    assert fn is not None
    library = gu.ctx.has_library_rule(fn)  # BLAS/LAPACK: derivatives from the rule table
    custom = gu.ctx.custom.has(fn) or library  # a custom derivative: always augmented
    if not custom and (name.startswith("llvm.") or fn.is_declaration):
        _forward_known_call(gu, call, name)
        return
    if not custom and math_function_like(name):  # its rule, in the reverse pass
        return
    if not is_active_call(gu, call):
        return
    config = call_config(gu, fn, call.args, call, DerivativeMode.REVERSE_PRIMAL)
    if library:  # what the rule need not copy to its tape
        config = replace(config, extra=((NOT_OVERWRITTEN_KEY, kept_arguments(gu, call)),))
        if fortran_routine(name) is not None:  # its tape and deferred frees: our state
            config = replace(config, extra=(*config.extra, (TAPE_ON_CALLER_STACK_KEY, True)))
    elif kept := rereadable_arguments(gu, call, fn):  # re-read in the callee's reverse
        config = replace(config, extra=(*config.extra, (NOT_OVERWRITTEN_KEY, kept)))
    if not custom and (distinct := distinct_arguments(gu, call.args, fn)):
        config = replace(config, extra=(*config.extra, (DISTINCT_ARGUMENTS_KEY, distinct)))
    if not custom and config.return_type is not DiffeType.DUP and \
            cheap_call_is_exact(gu, call, fn):
        return
    if not isinstance(call, ir.CallInst):
        raise gu.error(f"No derivative found for {fn.name}: an invoke of a function "
                       "that writes or reads overwritten memory is not supported", call)
    if not custom:  # a derivative of ours: its tape goes onto this derivative's stack
        config = replace(config, extra=(*config.extra, (TAPE_ON_CALLER_STACK_KEY, True)))
    with located_at(call):
        aug, rev = gu.ctx.augmented_pair(config)
    emit_augmented(gu, call, AugmentedCall(config, call.args, rev), aug, aug.function_type)


def _forward_known_call(gu: GradientUtils, call: ir.CallBase, name: str) -> None:
    """An intrinsic or external function whose pointer result needs a shadow, or that
    relinks a pointer structure (mirrored on the shadows)."""
    if is_shadow_mirrored(name):
        if is_active_call(gu, call):
            _mirror_on_shadows(gu, call)
        return
    if not shadow_result_needed(gu, call):
        return
    if name.startswith(_POINTER_INTRINSICS) and call.args and gu.is_shadowed(call.args[0]):
        fwd = gu.vmap[call]
        assert isinstance(fwd, ir.Instruction)
        b = IRBuilder()
        b.position_after(fwd)
        args = [gu.invert_pointer(call.args[0], call), *map(gu.primal, call.args[1:])]
        s = b.call(call.callee, args, call.function_type, name=gu.fresh("s." + name[5:]))
        gu.shadow[call] = s
        gu.shadow_primal[s] = fwd
        return
    raise gu.error(f"No derivative found for {name}: it returns a pointer through which "
                   "active data is read or written, and irgrad does not know the shadow of "
                   "its result", call)


def _mirror_on_shadows(gu: GradientUtils, call: ir.CallBase) -> None:
    """The same call on the shadows of the pointer arguments (the shadow structure does
    what the primal structure does); its result is the shadow of the call's."""
    args: list[ir.Value] = []
    for a in call.args:
        if not a.type.is_pointer or isinstance(a, ir.ConstantPointerNull):
            args.append(gu.primal(a))
        elif gu.is_shadowed(a):
            args.append(gu.invert_pointer(a, call))
        else:
            raise gu.error(f"{callee_name(call)} links memory that has a shadow with memory "
                           "that has none (an enzyme_const or inactive structure)", call)
    fwd = gu.vmap[call]
    assert isinstance(fwd, ir.Instruction)
    b = IRBuilder()
    b.position_after(fwd)
    s = b.call(call.callee, args, call.function_type,
               name=None if call.type.is_void else gu.fresh("s.call"))
    if call.type.is_pointer:
        gu.shadow[call] = s
        gu.shadow_primal[s] = fwd


# -- the reverse pass ----------------------------------------------------------------------
def reverse_call(gu: GradientUtils, call: ir.CallBase, b: IRBuilder) -> None:
    name = callee_name(call)
    if isinstance(call.callee, ir.InlineAsm):
        if is_active_call(gu, call):
            raise gu.error("cannot differentiate inline assembly on an active value", call)
        return
    rec = augmented_calls(gu).get(call)
    if rec is not None:
        reverse_augmented_call(gu, call, rec, b)
        return
    if name is None:
        if is_active_call(gu, call):  # (forward_call handled every active one)
            raise gu.error("No derivative found for an indirect call with active arguments",
                           call)
        return
    if is_inactive_call(name):
        return
    if name in INPUT_FUNCTIONS:  # sscanf, fread into memory with derivatives
        reverse_input_call(gu, call, name, b)
        return
    if name.startswith(("llvm.memcpy", "llvm.memmove")):
        reverse_memtransfer(gu, call, b)
        return
    if name.startswith("llvm.memset"):
        reverse_memset(gu, call, b)
        return
    if is_allocation(name):
        if isinstance(call, ir.CallInst):
            reverse_allocation(gu, call, b)
        return
    if allocator(name) is not None:  # posix_memalign: shadowed in the forward pass
        return
    if is_free(name):
        return
    if is_vector_intrinsic(name):  # reductions, hadd, masked loads/stores/gathers/scatters
        reverse_vector_intrinsic(gu, call, b)
        return
    if name.startswith("llvm.modf"):
        if gu.is_varied(call):  # { frac, int }: d frac / dx = 1, d int / dx = 0
            d = gu.diffe(call, b)
            gu.add_to_diffe(call.args[0], b.extract_value(d, [0]), b)
        return
    fn = call.called_function
    base = complex_base(call, name)
    if base is not None and (fn is None or fn.is_declaration):
        if gu.is_varied(call):
            _reverse_complex_call(gu, call, base, b)
        return
    like = math_function_like(name)
    rule = lookup_intrinsic(name) if name.startswith("llvm.") else lookup_call(like or name)
    if rule is not None and (like or name.startswith("llvm.") or fn is None
                             or fn.is_declaration):
        if gu.is_varied(call):
            d = gu.diffe(call, b)
            if rule.result_kind == "struct" and rule.result_index is not None:
                d = b.extract_value(d, [rule.result_index])
            if rule.result_kind != "int":
                apply_rule(gu, call, rule, list(call.args), d, b)
        return
    if name.startswith(_POINTER_INTRINSICS) or is_shadow_mirrored(name):
        return
    if fn is not None and not fn.is_declaration:
        _reverse_cheap_call(gu, call, fn, b)
        return
    if is_active_call(gu, call):
        why = missing_rule(name)
        raise gu.error(f"No derivative found for {name}{f': {why}' if why else ''}", call)


def reverse_augmented_call(gu: GradientUtils, call: ir.CallBase, rec: AugmentedCall,
                           b: IRBuilder) -> None:
    """``reverse(args, shadows, [d_result], tape)``; the adjoints it returns go to the
    active scalar arguments."""
    bb = call.parent
    assert bb is not None and rec.tape is not None
    args: list[ir.Value] = []
    for a, dt in zip(rec.args, rec.config.arg_types, strict=True):
        args.append(gu.lookup_primal(a, bb))
        if dt is DiffeType.DUP:
            args.append(gu.lookup_shadow(a, bb, call))
    if rec.config.return_type is DiffeType.OUT:
        ret_ty = rec.config.function.return_type
        args.append(gu.diffe(call, b) if gu.is_varied(call) else zero_of(ret_ty))
    if on_caller_stack(rec.config):  # it pops its tape from this derivative's stack
        args.append(gu.ensure_tape().state)
    else:
        args.append(gu.lookup(rec.tape, bb))
    if rec.rev is not None:
        result = b.call(rec.rev, args)
    else:
        assert rec.table is not None
        table = gu.lookup_shadow(rec.table, bb, call)
        slot = b.gep(ir.ptr, table, [ir.ConstantInt(ir.i64, 1)])
        rev = b.load(ir.ptr, slot, name=gu.fresh("reverse.fn"))
        result = b.call(rev, args, gradient_signature(rec.config))
    _distribute(gu, rec.args, rec.config, result, b)


def _distribute(gu: GradientUtils, args: tuple[ir.Value, ...], config: FnConfig,
                result: ir.Value, b: IRBuilder) -> None:
    k = 0
    for a, dt in zip(args, config.arg_types, strict=True):
        if dt is DiffeType.OUT:
            gu.add_to_diffe(a, b.extract_value(result, [k]), b)
            k += 1


def _reverse_cheap_call(gu: GradientUtils, call: ir.CallBase, fn: ir.Function,
                        b: IRBuilder) -> None:
    """A call the forward pass kept: the reverse pass runs g's combined gradient."""
    if not is_active_call(gu, call):
        return
    config = call_config(gu, fn, call.args, call, DerivativeMode.REVERSE_COMBINED)
    diffe_fn = gu.ctx.get_or_create(config)
    bb = call.parent
    assert bb is not None
    args: list[ir.Value] = []
    for a, dt in zip(call.args, config.arg_types, strict=True):
        args.append(gu.lookup_primal(a, bb))
        if dt is DiffeType.DUP:
            args.append(gu.lookup_shadow(a, bb, call))
    if config.return_type is DiffeType.OUT:
        args.append(gu.diffe(call, b))
    result = b.call(diffe_fn, args)
    _distribute(gu, call.args, config, result, b)


def _reverse_complex_call(gu: GradientUtils, call: ir.CallBase, name: str,
                          b: IRBuilder) -> None:
    """A complex library call (:mod:`irgrad.ad.rules.complex_calls`): each operand
    receives ``conj(f')`` times the result's adjoint."""
    bb = call.parent
    assert bb is not None
    args = [gu.lookup_primal(a, bb) for a in call.args]
    derivs = complex_derivatives(b, name, call, args, gu.lookup_primal(call, bb))
    adjoints = adjoints_of(b, name, derivs, gu.diffe(call, b))
    for slot, adj in zip(operand_slots(list(call.args)), adjoints, strict=True):
        if len(slot) == 1:  # a <2 x float>
            if gu.is_varied(slot[0]):
                gu.add_to_diffe(slot[0], Abi(adj[0].type, True).pack(b, adj), b)  # type: ignore[arg-type]
            continue
        for operand, part in zip(slot, adj, strict=True):
            if gu.is_varied(operand):
                gu.add_to_diffe(operand, part, b)
