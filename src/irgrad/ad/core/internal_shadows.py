"""Internal shadows: zeroed shadow memory the derivative makes for an ``enzyme_const``
pointer argument that derivatives flow through (runtime activity, see
:mod:`irgrad.analysis.runtime_activity`).

The caller passes no shadow and the extent of the memory is unknown, so the shadow is a
private anonymous mapping reserved without backing store (``mmap`` with
``MAP_NORESERVE``): pages are zero until first touched and only touched pages cost
memory. The argument's shadow points into the middle of the reservation, so offsets on
either side of the pointer work. It is released when the derivative returns (in split
mode, when the reverse returns).

The request carries the argument positions in ``FnConfig.extra`` under
:data:`INTERNAL_SHADOWS_KEY`, so derivatives with and without internal shadows are
different cache entries.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.core.config import FnConfig
from irgrad.ad.core.failures import emit_failure

INTERNAL_SHADOWS_KEY = "internal_shadows"
RESERVATION = 1 << 36  # bytes of address space (64 GiB), half on each side
_PROT_READ_WRITE = 3
_MAP_PRIVATE_ANONYMOUS_NORESERVE = 0x02 | 0x20 | 0x4000  # Linux


def internal_shadow_params(config: FnConfig) -> tuple[int, ...]:
    """The argument positions that get an internal shadow in this derivative."""
    for key, value in config.extra:
        if key == INTERNAL_SHADOWS_KEY:
            return value  # type: ignore[return-value]
    return ()


def with_internal_shadows(extra: tuple[tuple[str, object], ...],
                          params: tuple[int, ...]) -> tuple[tuple[str, object], ...]:
    """``extra`` with the internal shadows recorded (unchanged when there are none)."""
    if not params:
        return extra
    return (*[(k, v) for k, v in extra if k != INTERNAL_SHADOWS_KEY],
            (INTERNAL_SHADOWS_KEY, tuple(sorted(params))))


def acquire_internal_shadow(b: ir.IRBuilder, module: ir.Module, name: str) -> ir.Value:
    """A fresh zeroed shadow (a call of the module's acquire helper)."""
    return b.call(_acquire(module), [], name=name)


def release_internal_shadow(b: ir.IRBuilder, module: ir.Module, shadow: ir.Value) -> None:
    b.call(_release(module), [shadow])


def _acquire(module: ir.Module) -> ir.Function:
    name = "__irgrad_internal_shadow"
    got = module.get_function(name)
    if got is not None:
        return got
    fn = ir.Function(name, ir.FunctionType(ir.ptr, []), "internal")
    module.add_function(fn)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    m = reserve_address_space(b, module, RESERVATION, "irgrad: cannot reserve address space "
                              "for the shadow of an enzyme_const argument that derivatives "
                              "flow through (mmap failed)", "map")
    b.ret(b.gep(ir.i8, m, [ir.ConstantInt(ir.i64, RESERVATION // 2)], name="middle"))
    return fn


def reserve_address_space(b: ir.IRBuilder, module: ir.Module, size: int, message: str,
                          name: str) -> ir.Value:
    """At ``b``: ``mmap`` ``size`` bytes of zeroed address space without backing store
    (pages cost memory once touched); where that fails the program stops with
    ``message``. ``b`` ends positioned in a new block where the mapping exists; returns
    its address."""
    fn = b.function
    assert fn is not None
    mmap = module.get_function("mmap") or module.get_or_insert_function(
        "mmap", ir.FunctionType(ir.ptr, [ir.ptr, ir.i64, ir.i32, ir.i32, ir.i32, ir.i64]))
    m = b.call(mmap, [ir.ConstantPointerNull(ir.ptr), ir.ConstantInt(ir.i64, size),
                      ir.ConstantInt(ir.i32, _PROT_READ_WRITE),
                      ir.ConstantInt(ir.i32, _MAP_PRIVATE_ANONYMOUS_NORESERVE),
                      ir.ConstantInt(ir.i32, -1), ir.ConstantInt(ir.i64, 0)], name=name)
    ok = fn.append_basic_block(f"{name}.ok")
    fail = fn.append_basic_block(f"{name}.failed")
    b.cond_br(b.icmp("eq", b.ptrtoint(m, ir.i64), ir.ConstantInt(ir.i64, -1)), fail, ok)
    b.position_at_end(fail)
    emit_failure(b, module, message)
    b.position_at_end(ok)
    return m


def _release(module: ir.Module) -> ir.Function:
    name = "__irgrad_release_internal_shadow"
    got = module.get_function(name)
    if got is not None:
        return got
    fn = ir.Function(name, ir.FunctionType(ir.void, [ir.ptr]), "internal", ["shadow"])
    module.add_function(fn)
    munmap = module.get_function("munmap") or module.get_or_insert_function(
        "munmap", ir.FunctionType(ir.i32, [ir.ptr, ir.i64]))
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    base = b.gep(ir.i8, fn.args[0], [ir.ConstantInt(ir.i64, -(RESERVATION // 2))])
    b.call(munmap, [base, ir.ConstantInt(ir.i64, RESERVATION)])
    b.ret_void()
    return fn


__all__ = [
    "INTERNAL_SHADOWS_KEY",
    "RESERVATION",
    "acquire_internal_shadow",
    "internal_shadow_params",
    "release_internal_shadow",
    "reserve_address_space",
    "with_internal_shadows",
]
