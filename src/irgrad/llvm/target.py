"""The native target: LLVM initialization and TargetMachines.

llvmlite's ``llvm.initialize()`` raises in 0.50; only the native target and its asm
printer are initialized, once. Every engine (JIT, object emission, pass builder) gets its
own TargetMachine from :func:`create_target_machine`.
"""

from __future__ import annotations

import functools

import llvmlite.binding as llvm

# LLVM options set once per process (they are global to the LLVM in llvmlite):
# - hoist-runtime-checks: the loop vectorizer hoists an inner loop's memory-overlap checks
#   out of the outer loop, which requires the outer loop to step forwards; with a negative
#   outer stride the hoisted check always reports a conflict and the scalar loop always
#   runs. Reverse passes run their loops backwards, so a matrix-vector gradient's
#   ``dy[j] += a * x[i][j]`` never vectorized (measured: gradient / primal 3.3 -> 2.7).
#   Unhoisted, the check runs once per inner loop entry.
LLVM_OPTIONS = ("-hoist-runtime-checks=false",)


@functools.cache
def initialize() -> None:
    """Initialize LLVM's native target and asm printer, and set :data:`LLVM_OPTIONS`
    (idempotent)."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()
    for option in LLVM_OPTIONS:
        llvm.set_option("irgrad", option)


def create_target_machine(
    opt_level: int = 2, *, reloc: str = "pic", codemodel: str = "jitdefault", jit: bool = False
) -> llvm.TargetMachine:
    """A new TargetMachine for the host CPU (with its features), at ``opt_level``."""
    initialize()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=max(0, min(3, opt_level)),
        reloc=reloc,
        codemodel=codemodel,
        jit=jit,
    )


def default_triple() -> str:
    """The host's target triple as LLVM spells it."""
    initialize()
    return str(llvm.get_default_triple())


def apply_target(module: llvm.ModuleRef, tm: llvm.TargetMachine, *, force: bool = False) -> None:
    """Set ``module``'s data layout and triple from ``tm``.

    Without ``force`` a module that already names a triple keeps it (and its layout);
    with ``force`` (the JIT) both always come from the TargetMachine.
    """
    if force or not module.triple:
        module.triple = tm.triple
    if force or not module.data_layout:
        module.data_layout = str(tm.target_data)
