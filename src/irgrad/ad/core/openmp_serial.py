"""OpenMP parallel regions run serially inside derivatives -- in the private copy the AD
engine differentiates (:meth:`DerivativeContext.get_or_create`), never in the user's
function, which stays parallel.

Clang outlines the body of ``#pragma omp parallel`` into a function ``f(ptr gtid, ptr
btid, captured...)`` and starts it with ``__kmpc_fork_call(loc, n, f, captured...)``;
worksharing (``omp for``) asks the runtime for the calling thread's share of the
iterations (``__kmpc_for_static_init_*``), and a reduction combines the thread's private
copy into the shared one under ``__kmpc_reduce[_nowait]``. Run by one thread, that is
plain serial code:

- the fork becomes a direct call of the outlined function with this thread's id and a
  bound id 0 (values captured by copy go as what they are,
  :mod:`irgrad.ad.core.float_arguments`);
- the static schedule gives the one thread every iteration in one chunk: the bounds stay,
  the last-iteration flag is set and the stride spans the whole range (what LLVM's
  runtime does in a serialized team);
- a dynamic, guided or run-time schedule hands the one thread every iteration at its
  first request and nothing at the next;
- a reduction takes its first path (``1``: this thread combines its private copy
  itself), the one the runtime takes with a single thread; barriers, critical sections,
  ``single`` and ``master`` need no runtime.

The derivative is then the derivative of the serial loop, which OpenMP's semantics make
equal to the parallel one up to the order of floating-point reductions (``omp atomic``
updates are differentiated by :mod:`irgrad.ad.reverse.atomics`). Every other OpenMP
runtime call (tasks, ordered regions, teams) is a located error naming the construct
(:func:`check_parallel_constructs`).
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.core.diagnostics import source_location_of
from irgrad.ad.core.float_arguments import pass_floats_as_floats
from irgrad.ad.core.invoke import remove_unreachable_blocks
from irgrad.analysis.known_functions import callee_name
from irgrad.errors import DifferentiationError

_FORK = "__kmpc_fork_call"
_STATIC_INIT = ("__kmpc_for_static_init_4", "__kmpc_for_static_init_4u",
                "__kmpc_for_static_init_8", "__kmpc_for_static_init_8u")
_DISPATCH_INIT = ("__kmpc_dispatch_init_4", "__kmpc_dispatch_init_4u",
                  "__kmpc_dispatch_init_8", "__kmpc_dispatch_init_8u")
_DISPATCH_NEXT = ("__kmpc_dispatch_next_4", "__kmpc_dispatch_next_4u",
                  "__kmpc_dispatch_next_8", "__kmpc_dispatch_next_8u")
_REDUCE = ("__kmpc_reduce", "__kmpc_reduce_nowait")
_ONE = ("__kmpc_single", "__kmpc_master")  # this thread runs the block
_ZERO = ("omp_get_thread_num",)
_NO_EFFECT = ("__kmpc_for_static_fini", "__kmpc_barrier", "__kmpc_end_reduce",
              "__kmpc_end_reduce_nowait", "__kmpc_critical", "__kmpc_end_critical",
              "__kmpc_end_single", "__kmpc_end_master", "__kmpc_end_masked",
              "__kmpc_push_num_threads", "__kmpc_flush", "__kmpc_serialized_parallel",
              "__kmpc_end_serialized_parallel", "__kmpc_dispatch_deinit",
              "__kmpc_dispatch_fini_4", "__kmpc_dispatch_fini_4u", "__kmpc_dispatch_fini_8",
              "__kmpc_dispatch_fini_8u")
_MASKED = "__kmpc_masked"  # (loc, gtid, filter): thread 0 runs it when filter is 0
SERIALIZED_CALLS = frozenset((_FORK, *_STATIC_INIT, *_DISPATCH_INIT, *_DISPATCH_NEXT,
                              *_REDUCE, *_ONE, *_ZERO, *_NO_EFFECT, _MASKED,
                              "omp_get_num_threads"))
# queries and locks that mean the same run by one thread (and carry no derivative)
_SERIAL_AS_IS = frozenset([
    "__kmpc_global_thread_num", "omp_get_max_threads", "omp_get_num_procs", "omp_get_wtime",
    "omp_get_wtick", "omp_in_parallel", "omp_get_level", "omp_get_thread_limit",
    "omp_get_dynamic", "omp_get_nested", "omp_set_num_threads", "omp_init_lock",
    "omp_destroy_lock", "omp_set_lock", "omp_unset_lock", "omp_test_lock",
])  # fmt: skip
_RUNTIME_PREFIXES = ("__kmpc_", "omp_", "GOMP_")
_CONSTRUCTS = (  # what an OpenMP runtime call irgrad does not run serially belongs to
    ("__kmpc_omp_task", "a task"), ("__kmpc_taskloop", "a taskloop"),
    ("__kmpc_taskgroup", "a taskgroup"), ("__kmpc_end_taskgroup", "a taskgroup"),
    ("__kmpc_fork_call_if", "a parallel region with an if clause"),
    ("__kmpc_fork_teams", "a teams construct"), ("__kmpc_ordered", "an ordered region"),
    ("GOMP_", "GCC's OpenMP runtime (libgomp; build with clang)"),
)


def check_parallel_constructs(fn: ir.Function) -> None:
    """Stop with a located error at an OpenMP runtime call in ``fn`` that irgrad does not
    run serially: its effect on the data (a task's deferred body, a dynamic schedule's
    chunks) would be invisible to the derivative."""
    if fn.is_declaration:
        return
    for inst in fn.instructions():
        name = _callee_name(inst)
        if (name is None or not name.startswith(_RUNTIME_PREFIXES)
                or name in SERIALIZED_CALLS or name in _SERIAL_AS_IS):
            continue
        what = next((w for p, w in _CONSTRUCTS if name.startswith(p)), "this OpenMP construct")
        raise DifferentiationError(
            f"{name} in {fn.name}: irgrad runs OpenMP parallel regions serially inside "
            "derivatives (parallel loops with any schedule, reductions, atomic updates, "
            f"critical, single, master, barriers), but not {what}; build the "
            "differentiated code without -fopenmp, or use those constructs",
            source_location_of(inst))


def _callee_name(inst: ir.Instruction) -> str | None:
    return callee_name(inst) if isinstance(inst, ir.CallBase) else None


def has_parallel_regions(fn: ir.Function) -> bool:
    """Whether ``fn`` calls an OpenMP runtime function :func:`serialize_parallel_regions`
    replaces."""
    if fn.is_declaration:
        return False
    return any(_callee_name(i) in SERIALIZED_CALLS for i in fn.instructions())


def serialize_parallel_regions(fn: ir.Function) -> None:
    """Replace ``fn``'s OpenMP runtime calls by their one-thread meaning (see the module
    docstring). ``fn`` is a copy that only the derivative synthesis sees."""
    slots: list[ir.Value] = []
    dispatch: dict[ir.Type, list[ir.Value]] = {}  # bounds, stride and flag, per int type
    bits: list[ir.Value] = []  # integers that carried floats to the forks
    for inst in list(fn.instructions()):
        name = _callee_name(inst)
        if name is None or name not in SERIALIZED_CALLS:
            continue
        assert isinstance(inst, ir.CallBase)
        if name == _FORK:
            bits += _fork(fn, inst, slots)
        elif name in _STATIC_INIT:
            _static_init(inst)
        elif name in _DISPATCH_INIT or name in _DISPATCH_NEXT:
            _dispatch(fn, inst, name in _DISPATCH_INIT, dispatch)
        elif name in _REDUCE or name in _ONE or name == "omp_get_num_threads":
            _replace_by_constant(inst, 1)
        elif name in _ZERO:
            _replace_by_constant(inst, 0)
        elif name == _MASKED:
            b = ir.IRBuilder(position=inst)
            filt = inst.args[2]
            inst.replace_all_uses_with(b.zext(b.icmp("eq", filt, ir.ConstantInt(filt.type, 0)),
                                              inst.type))
        inst.erase_from_parent()
    for v in bits:  # (the bits of an active value would stop the AD engine)
        if isinstance(v, ir.Instruction) and v.parent is not None and not v.users:
            v.erase_from_parent()
    remove_unreachable_blocks(fn)  # a reduction's atomic path, the other threads' blocks


def _replace_by_constant(call: ir.CallBase, value: int) -> None:
    """Replace ``call``'s result by ``value``; a ``switch`` on it (a reduction's paths)
    becomes a branch to the path taken."""
    const = ir.ConstantInt(call.type, value)
    switches = [u for u in call.users if isinstance(u, ir.SwitchInst) and u.condition is call]
    call.replace_all_uses_with(const)
    for sw in switches:
        bb = sw.parent
        assert bb is not None
        dest = next((d for c, d in sw.cases if c.value == value), sw.default_dest)
        for succ in set(bb.successors()) - {dest}:
            for phi in succ.phis():
                phi.remove_incoming(bb)
        # a phi of dest keeps one entry from bb whatever the number of cases that led there
        for phi in dest.phis():
            v = phi.incoming_value_for(bb)
            assert v is not None
            phi.remove_incoming(bb)
            phi.add_incoming(v, bb)
        sw.erase_from_parent()
        bb.append(ir.BranchInst(dest))


def _fork(fn: ir.Function, call: ir.CallBase, slots: list[ir.Value]) -> list[ir.Value]:
    """``__kmpc_fork_call(loc, n, f, args...)`` -> ``f(&gtid, &btid, args...)``; the
    integer arguments no longer passed (they carried floats)."""
    outlined = call.args[2] if len(call.args) > 2 else None
    if not isinstance(outlined, ir.Function) or len(outlined.args) != len(call.args) - 1:
        return []  # not clang's shape: the call stays (an error names it)
    if not slots:  # one pair of thread-id slots per function, in its entry block
        b = ir.IRBuilder()
        b.position_at_start(fn.blocks[0])
        slots += [b.alloca(ir.i32, name="omp.gtid"), b.alloca(ir.i32, name="omp.btid")]
    b = ir.IRBuilder(position=call)
    b.debug_loc = call.debug_loc
    gtid = b.call(_thread_num(fn), [call.args[0]])
    b.store(gtid, slots[0])
    b.store(ir.ConstantInt(ir.i32, 0), slots[1])
    given = [slots[0], slots[1], *call.args[3:]]
    target, args = pass_floats_as_floats(outlined, given)
    b.call(target, args)
    return [g for g, a in zip(given, args, strict=True) if g is not a]


def _dispatch(fn: ir.Function, call: ir.CallBase, init: bool,
              state: dict[ir.Type, list[ir.Value]]) -> None:
    """A dynamic, guided or run-time schedule for the only thread: the first
    ``__kmpc_dispatch_next_N`` after ``__kmpc_dispatch_init_N(loc, gtid, sched, lb, ub, st,
    chunk)`` hands out every iteration (``lb..ub`` by ``st``, the last chunk), the next
    one says there is no more. The state lives in slots of ``fn`` (one per integer
    width); a nested loop's init may reset it, which the outer loop, already given all of
    its iterations, never asks for again."""
    ty = call.args[3].type if init else _next_int_type(call)
    slots = state.get(ty)
    if slots is None:
        b = ir.IRBuilder()
        b.position_at_start(fn.blocks[0])
        slots = state[ty] = [b.alloca(ty, name=f"omp.dispatch.{n}")
                             for n in ("lb", "ub", "st")]
        slots.append(b.alloca(ir.i32, name="omp.dispatch.given"))
        b.store(ir.ConstantInt(ir.i32, 1), slots[3])  # no init yet: nothing to hand out
    lb, ub, st, given = slots
    b = ir.IRBuilder(position=call)
    b.debug_loc = call.debug_loc
    if init:
        for slot, v in zip((lb, ub, st), call.args[3:6], strict=True):
            b.store(v, slot)
        b.store(ir.ConstantInt(ir.i32, 0), given)
        return
    plast, plb, pub, pst = call.args[2:6]
    first = b.icmp("eq", b.load(ir.i32, given), ir.ConstantInt(ir.i32, 0))
    for slot, out in ((lb, plb), (ub, pub), (st, pst)):
        b.store(b.select(first, b.load(ty, slot), b.load(ty, out)), out)
    b.store(b.select(first, ir.ConstantInt(ir.i32, 1), b.load(ir.i32, plast)), plast)
    b.store(ir.ConstantInt(ir.i32, 1), given)
    call.replace_all_uses_with(b.zext(first, call.type))


def _next_int_type(call: ir.CallBase) -> ir.Type:
    fn = call.called_function
    assert fn is not None
    return ir.i64 if fn.name.startswith("__kmpc_dispatch_next_8") else ir.i32


def _thread_num(fn: ir.Function) -> ir.Function:
    module = fn.parent
    assert module is not None
    got = module.get_function("__kmpc_global_thread_num")
    if got is not None:
        return got
    decl = ir.Function("__kmpc_global_thread_num", ir.FunctionType(ir.i32, [ir.ptr]),
                       "external", ["loc"])
    module.add_function(decl)
    return decl


def _static_init(call: ir.CallBase) -> None:
    """``__kmpc_for_static_init_N(loc, gtid, sched, plast, plower, pupper, pstride, incr,
    chunk)`` for the only thread: ``*plast = 1``, the bounds stay, ``*pstride`` spans
    them (``upper - lower + 1``, or ``upper - lower - 1`` counting down)."""
    plast, plower, pupper, pstride, incr = call.args[3:8]
    b = ir.IRBuilder(position=call)
    b.debug_loc = call.debug_loc
    b.store(ir.ConstantInt(ir.i32, 1), plast)
    ty = incr.type
    lower = b.load(ty, plower)
    upper = b.load(ty, pupper)
    span = b.sub(upper, lower)
    up = b.icmp("sgt", incr, ir.ConstantInt(ty, 0))
    b.store(b.select(up, b.add(span, 1), b.sub(span, 1)), pstride)


__all__ = ["SERIALIZED_CALLS", "check_parallel_constructs", "has_parallel_regions",
           "serialize_parallel_regions"]
