"""The post-AD pipeline: LLVM's standard pipeline at -O0..-O3, vectorization on."""

from __future__ import annotations

import llvmlite.binding as llvm

from irgrad.errors import UsageError
from irgrad.llvm.target import apply_target, create_target_machine


def post_ad_tuning(opt_level: int) -> llvm.PipelineTuningOptions:
    """Pipeline options as clang uses them at ``-O{opt_level}``."""
    pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    vectorize = opt_level >= 2
    pto.loop_vectorization = vectorize
    pto.slp_vectorization = vectorize
    pto.loop_interleaving = vectorize
    pto.loop_unrolling = opt_level >= 1
    return pto


def optimize(
    module: llvm.ModuleRef, opt_level: int = 2, *, tm: llvm.TargetMachine | None = None
) -> llvm.ModuleRef:
    """Optimize a verified module in place at ``-O{opt_level}`` and return it."""
    if opt_level not in (0, 1, 2, 3):
        raise UsageError(f"optimization level must be 0, 1, 2 or 3, not {opt_level}")
    tm = tm or create_target_machine(opt_level)
    apply_target(module, tm)
    pto = post_ad_tuning(opt_level)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(module, pb)
    return module
