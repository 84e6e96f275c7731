"""Floating-point values passed to a function as the bits of an integer.

Code reinterprets a ``double`` as a 64-bit integer and hands the integer to a callee that
turns it back (``memcpy(&bits, &x, 8)``; a union; clang's own ``firstprivate`` capture,
which reaches an outlined OpenMP region through ``__kmpc_fork_call``'s integer slots). The
AD engine would see an active value passed as an integer. In the private copy it
differentiates (:mod:`irgrad.ad.core.private_copy`), such a call passes the value itself to
a copy of the callee whose parameter has the floating-point type; the copy's uses of the
integer bits (a bitcast back, a store into a slot it later reads as a float) use the value
directly. The integer argument is recognized as ``bitcast <float> to <int>`` (-O1 and
above) or, at -O0, as a load from a local slot that only floats of its width are stored
into.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ir.clone import clone_blocks_into


def _float_behind(arg: ir.Value) -> ir.Value | None:
    """The floating-point value an integer argument carries the bits of, or None."""
    if isinstance(arg, ir.CastInst) and arg.opcode == "bitcast" and arg.value.type.is_float:
        return arg.value
    if isinstance(arg, ir.LoadInst) and arg.type.is_integer and \
            isinstance(arg.pointer, ir.AllocaInst):
        stores = [u for u in arg.pointer.users if isinstance(u, ir.StoreInst)]
        width = arg.type.width  # type: ignore[attr-defined]
        if stores and all(s.pointer is arg.pointer and s.value.type.is_float
                          and s.value.type.bits == width for s in stores):  # type: ignore[attr-defined]
            b = ir.IRBuilder(position=arg)
            return b.load(stores[0].value.type, arg.pointer)
    return None


def pass_floats_as_floats(outlined: ir.Function, args: list[ir.Value]
                          ) -> tuple[ir.Function, list[ir.Value]]:
    """The function to call and its arguments: ``outlined`` and ``args`` unchanged, or a
    copy of ``outlined`` taking the floating-point values the integer arguments carry."""
    floats: dict[int, ir.Value] = {}
    for k, a in enumerate(args):
        if a.type.is_integer and (v := _float_behind(a)) is not None:
            floats[k] = v
    if not floats:
        return outlined, args
    module = outlined.parent
    assert module is not None
    params = [floats[k].type if k in floats else t
              for k, t in enumerate(outlined.function_type.params)]
    copy = ir.Function(module.unique_name(outlined.name + ".floats"),
                       ir.FunctionType(outlined.return_type, params), "internal",
                       [a.name for a in outlined.args])
    copy.fn_attrs = list(outlined.fn_attrs)
    module.add_function(copy)
    bits: dict[int, ir.Instruction] = {}
    vm: dict[ir.Value, ir.Value] = {}
    for k, (old, new) in enumerate(zip(outlined.args, copy.args, strict=True)):
        if k in floats:
            bits[k] = ir.CastInst("bitcast", new, old.type)
            vm[old] = bits[k]
        else:
            new.attrs = list(old.attrs)
            vm[old] = new
    clone_blocks_into(outlined, copy, vm)
    b = ir.IRBuilder()
    b.position_at_start(copy.blocks[0])
    for k, cast in bits.items():
        b.insert(cast)
        _use_float(cast, copy.args[k])
    return copy, [floats.get(k, a) for k, a in enumerate(args)]


def _use_float(cast: ir.Instruction, value: ir.Value) -> None:
    """Uses of ``cast`` (the bits of ``value``) that can take ``value`` itself."""
    for user in list(cast.users):
        if isinstance(user, ir.CastInst) and user.opcode == "bitcast" and \
                user.type == value.type:
            user.replace_all_uses_with(value)
            user.erase_from_parent()
        elif isinstance(user, ir.StoreInst) and user.value is cast:
            b = ir.IRBuilder(position=user)
            new = b.store(value, user.pointer, user.align)
            new.metadata = [(k, v) for k, v in user.metadata if k != "tbaa"]
            user.erase_from_parent()
    if not cast.users:
        cast.erase_from_parent()


def has_float_bits_calls(fn: ir.Function) -> bool:
    """Whether ``fn`` calls a function it defines with the bits of a float as an integer
    argument (a bitcast; the -O0 form is rare enough to leave to the OpenMP forks)."""
    if fn.is_declaration:
        return False
    return any(isinstance(i, ir.CallInst) and _defined_callee(i) is not None and any(
        isinstance(a, ir.CastInst) and a.opcode == "bitcast" and a.value.type.is_float
        and a.type.is_integer for a in i.args) for i in fn.instructions())


def _defined_callee(call: ir.CallInst) -> ir.Function | None:
    callee = call.called_function
    if callee is None or callee.is_declaration or callee.function_type.var_arg or \
            len(callee.args) != len(call.args):
        return None
    return callee


def pass_float_bits_as_floats(fn: ir.Function) -> None:
    """In ``fn`` (a private copy), calls of defined functions with float bits as integer
    arguments call copies that take the floats (see the module docstring)."""
    for inst in list(fn.instructions()):
        if not isinstance(inst, ir.CallInst) or (callee := _defined_callee(inst)) is None:
            continue
        given = list(inst.args)
        target, args = pass_floats_as_floats(callee, given)
        if target is callee:
            continue
        b = ir.IRBuilder(position=inst)
        b.debug_loc = inst.debug_loc
        new = b.call(target, args)
        inst.replace_all_uses_with(new)
        inst.erase_from_parent()
        for g, a in zip(given, args, strict=True):
            if g is not a and isinstance(g, ir.Instruction) and g.parent is not None \
                    and not g.users:
                g.erase_from_parent()


__all__ = ["has_float_bits_calls", "pass_float_bits_as_floats", "pass_floats_as_floats"]
