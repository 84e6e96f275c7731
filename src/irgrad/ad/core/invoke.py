"""C++ exception edges: the copy of a function that the AD engine differentiates.

clang emits ``invoke`` (and ``landingpad``/``resume`` cleanup blocks) for every call that
may throw inside a function with objects to destroy, so any C++ code using
``std::vector`` contains them. Like Enzyme, irgrad differentiates only the normal path:
each ``invoke f(args) to label %normal unwind label %lpad`` is differentiated as
``call f(args)`` followed by ``br label %normal``, and the exceptional path (landing
pads, cleanups, ``resume``) is not differentiated at all.

This is done on a private copy of the function (:func:`nounwind_copy`), never on the
user's function: primal calls keep their exception semantics. The derivative of a function
whose callee actually throws has an undefined result (Enzyme's behaviour too): the
exception propagates through the derivative without running the C++ cleanups of the
differentiated frame, and no adjoint is accumulated.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ir.clone import clone_function


def has_invokes(fn: ir.Function) -> bool:
    """Whether ``fn``'s body contains an ``invoke`` (a call with an exception edge)."""
    if fn.is_declaration:
        return False
    return any(isinstance(inst, ir.InvokeInst) for inst in fn.instructions())


def has_exception_code(fn: ir.Function) -> bool:
    """Whether ``fn`` has an ``invoke`` or exception-handling blocks (a landing pad left
    behind when the API lowered an ``invoke`` of ``__enzyme_autodiff`` to a call)."""
    if fn.is_declaration:
        return False
    return any(isinstance(inst, ir.InvokeInst | ir.LandingPadInst | ir.ResumeInst)
               for inst in fn.instructions())


def nounwind_copy(fn: ir.Function) -> ir.Function:
    """A copy of ``fn`` (same name, added to the module right after ``fn``) in which every ``invoke`` is a
    ``call`` followed by a branch to its normal destination, and the blocks then reachable
    only through exception edges (landing pads, cleanups, ``resume``) are removed.

    The copy calls the same callees (a recursive call still calls ``fn``)."""
    new, _ = clone_function(fn, fn.name)  # appended to fn's module
    new.linkage = "internal"
    module = fn.parent
    if module is not None:  # right after fn: lookups by name still find fn first
        module.functions.remove(new)
        module.functions.insert(module.functions.index(fn) + 1, new)
    for bb in list(new.blocks):
        term = bb.terminator
        if isinstance(term, ir.InvokeInst):
            lower_invoke(term)
    remove_unreachable_blocks(new)
    return new


def lower_invoke(inv: ir.InvokeInst) -> ir.CallInst:
    """Replace ``inv`` by an equivalent ``call`` and a ``br`` to its normal destination
    (the unwind destination loses this predecessor)."""
    bb = inv.parent
    assert bb is not None
    normal, unwind = inv.normal_dest, inv.unwind_dest
    call = ir.CallInst(inv.function_type, inv.callee, inv.args, None,
                       bundles=inv.bundles, calling_conv=inv.calling_conv,
                       return_attrs=inv.return_attrs, arg_attrs=inv.arg_attrs,
                       fn_attrs=inv.fn_attrs, flags=list(inv.flags))
    call.metadata = list(inv.metadata)
    call.debug_records = list(inv.debug_records)
    index = bb.instructions.index(inv)
    bb.insert(index, call)
    name = inv.name
    inv.replace_all_uses_with(call)
    for phi in unwind.phis():
        phi.remove_incoming(bb)
    inv.erase_from_parent()
    if name:
        call.name = name
    bb.append(ir.BranchInst(normal))
    return call


def remove_unreachable_blocks(fn: ir.Function) -> None:
    """Remove the blocks not reachable from the entry (phis of reachable blocks lose their
    entries from them; values they define are only used in unreachable code)."""
    reachable: set[ir.BasicBlock] = set()
    work = [fn.entry_block]
    while work:
        bb = work.pop()
        if bb in reachable:
            continue
        reachable.add(bb)
        work.extend(bb.successors())
    dead = [bb for bb in fn.blocks if bb not in reachable]
    if not dead:
        return
    for bb in dead:
        for succ in bb.successors():
            if succ in reachable:
                for phi in succ.phis():
                    phi.remove_incoming(bb)
    for bb in dead:
        for inst in bb.instructions:
            inst.drop_all_references()
    for bb in dead:
        for inst in bb.instructions:
            if inst.uses:  # used only by other dead instructions (already dropped) or
                inst.replace_all_uses_with(ir.PoisonValue(inst.type))  # by dead phis
    fn.blocks = [bb for bb in fn.blocks if bb in reachable]
