"""The private copy of a function that the AD engine differentiates instead of the user's
function, when the user's function has something only a derivative should see otherwise:

- exception code: invokes become calls, landing pads go (:mod:`irgrad.ad.core.invoke`);
- indirect calls with one possible target become direct (:mod:`.devirtualize`);
- OpenMP runtime calls take their one-thread meaning (:mod:`.openmp_serial`);
- compare-and-exchange loops on a float's bits become the memory operations they perform
  (:mod:`.float_atomics`);
- empty inline-assembly barriers go (:mod:`.barrier_asm`);
- a float passed to a callee as the bits of an integer is passed as the float, to a copy
  of the callee that takes it so (:mod:`.float_arguments`).

The user's function keeps all of it: exceptions, parallel regions, atomics, barriers.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ad.core.barrier_asm import has_barrier_asm, remove_barrier_asm
from irgrad.ad.core.devirtualize import devirtualize, has_resolvable_calls
from irgrad.ad.core.float_arguments import has_float_bits_calls, pass_float_bits_as_floats
from irgrad.ad.core.float_atomics import has_float_exchanges, lower_float_exchanges
from irgrad.ad.core.invoke import has_exception_code, nounwind_copy
from irgrad.ad.core.openmp_serial import (
    check_parallel_constructs,
    has_parallel_regions,
    serialize_parallel_regions,
)

_NEEDS_COPY = (has_exception_code, has_resolvable_calls, has_parallel_regions,
               has_float_exchanges, has_barrier_asm, has_float_bits_calls)


def private_copy(fn: ir.Function) -> ir.Function | None:
    """The copy of ``fn`` to differentiate, or None when ``fn`` itself will do. Stops with
    a located error at an OpenMP construct a derivative cannot run serially."""
    check_parallel_constructs(fn)
    if not any(needs(fn) for needs in _NEEDS_COPY):
        return None
    copy = nounwind_copy(fn)
    devirtualize(copy)
    serialize_parallel_regions(copy)
    lower_float_exchanges(copy)
    remove_barrier_asm(copy)
    pass_float_bits_as_floats(copy)
    return copy


__all__ = ["private_copy"]
