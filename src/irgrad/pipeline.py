"""The whole irgrad pipeline, shared by ``irgrad opt``, ``irgrad cc`` and the Python API.

    load (parse + verify) -> canonicalize (pre-AD) -> LLVM 22 text -> irgrad.ir Module
    [-> small constant-trip loops marked for full unrolling -> canonicalize again]
    -> lower_enzyme_calls (AD) -> text -> load + verify -> optimize (post-AD, -O0..-O3)

:func:`lower_enzyme_calls` is the single point where automatic differentiation plugs in.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import llvmlite.binding as llvm

from irgrad.errors import IRParseError
from irgrad.llvm.canonicalize import canonicalize, strip_optnone
from irgrad.llvm.load import parse_llvm
from irgrad.llvm.memory_libcalls import lower_memory_libcalls
from irgrad.llvm.optimize import optimize
from irgrad.llvm.sincos_libcalls import lower_sincos_libcalls
from irgrad.llvm.sort_search_libcalls import lower_sort_search_libcalls
from irgrad.llvm.trampolines import resolve_trampolines

if TYPE_CHECKING:  # irgrad.ir is imported lazily (it is the heavier part)
    from irgrad.ir import Module


def lower_enzyme_calls(module: Module, explain: list[Any] | None = None) -> Module:
    """Replace every ``__enzyme_*`` call in ``module`` by a call to a synthesized derivative
    (with ``explain``: append each reverse-mode derivative's report to it).

    The work is done by :func:`irgrad.ad.api.lower_enzyme_calls`.
    """
    from irgrad.ad.api import lower_enzyme_calls as lower

    return lower(module, explain)


def registered_functions(module: llvm.ModuleRef, filename: str = "<input>"
                         ) -> tuple[dict[str, set[str]], set[str]]:
    """The functions the module's Enzyme registrations and ``enzyme_*`` attributes name,
    with the attributes they need before the pre-AD pipeline (``noinline``: inlined, a
    custom derivative or an inactive function could not apply), and those of them that
    may be inlined again after AD (they were not ``noinline`` of their own, as Enzyme
    restores them). Malformed registrations are reported here, before any optimization."""
    from irgrad.ad.api.registrations import has_registrations, read_registrations

    if not has_registrations([gv.name for gv in module.global_variables]):
        return {}, set()
    model = to_ir_model(module, filename)
    keep = read_registrations(model).preserve
    release = set()
    for name in keep:
        fn = model.get_function(name)
        if fn is not None and (not fn.has_attribute("noinline") or fn.has_attribute("optnone")):
            release.add(name)
    return keep, release


def _release_noinline(model: Module, names: set[str]) -> None:
    """Drop the ``noinline`` that kept registered functions out of line until AD."""
    for name in names:
        fn = model.get_function(name)
        if fn is not None and fn.has_attribute("noinline"):
            fn.fn_attrs = [a for a in fn.attribute_texts() if a != "noinline"]


def mark_small_loops_for_full_unroll(module: Module) -> int:
    """See :mod:`irgrad.ad.api.small_loops`."""
    from irgrad.ad.api import mark_small_loops_for_full_unroll as mark

    return mark(module)


@dataclass(frozen=True)
class PipelineOptions:
    """Knobs of :func:`run_pipeline`."""

    opt_level: int = 2  # post-AD optimization level (like clang's -O)
    pre_ad: bool = True  # run the pre-AD pipeline (False: differentiate the IR as given)
    through_ir_model: bool = True  # round-trip through irgrad.ir (where AD happens)
    # analyses to print before AD, as (kind, function) with kind 'type' or 'activity'
    print_analyses: tuple[tuple[str, str], ...] = ()
    analysis_sink: Callable[[str], None] | None = None  # where printed analyses go
    # --explain-ad: each reverse-mode derivative's report (what is cached, recomputed, the
    # tape's size; an irgrad.ad.reverse.explain.DerivativeReport) is passed here
    explain_sink: Callable[[Any], None] | None = None


def explain_sink(enabled: bool) -> Callable[[Any], None] | None:
    """Where ``--explain-ad`` reports go: standard error (standard output may carry IR or
    a program's output), one blank line between derivatives; None when not asked for."""
    if not enabled:
        return None

    def sink(report: Any) -> None:
        print(explain_text(report), file=sys.stderr, flush=True)

    return sink


def explain_text(report: Any) -> str:
    """One report as ``--explain-ad`` prints it."""
    return f"irgrad: explain: {report.render()}\n"


def typed_small_copies(module: llvm.ModuleRef, filename: str = "<input>") -> llvm.ModuleRef:
    """``module`` with its small copies of floating-point objects made typed loads and
    stores before the pre-AD pipeline erases their type
    (:mod:`irgrad.llvm.typed_copies`); the same module when there is none."""
    from irgrad import ir
    from irgrad.llvm.typed_copies import CANDIDATE, type_small_copies

    text = str(module)
    if CANDIDATE.search(text) is None:
        return module
    try:
        model = ir.parse_module(text, filename)
        if not type_small_copies(model):
            return module
    except IRParseError:  # (LLVM read it: keep it as it is rather than fail here)
        return module
    return from_ir_model(model, filename)


def to_ir_model(module: llvm.ModuleRef, filename: str = "<input>") -> Module:
    """An llvmlite module as an irgrad.ir Module (through LLVM 22 text)."""
    from irgrad import ir

    return ir.parse_module(str(module), filename)


def from_ir_model(module: Module, filename: str = "<irgrad>") -> llvm.ModuleRef:
    """An irgrad.ir Module back into llvmlite, verified by LLVM."""
    from irgrad import ir

    return parse_llvm(ir.print_module(module), filename)


def run_pipeline(
    source: str | bytes | llvm.ModuleRef,
    *,
    filename: str = "<input>",
    options: PipelineOptions | None = None,
) -> llvm.ModuleRef:
    """Run the full pipeline on IR text, bitcode, or a verified llvmlite module."""
    opts = options or PipelineOptions()
    module = source if isinstance(source, llvm.ModuleRef) else parse_llvm(source, filename)
    release: set[str] = set()
    if opts.pre_ad:
        keep, release = (registered_functions(module, filename) if opts.through_ir_model
                         else ({}, set()))
        if opts.through_ir_model:
            module = typed_small_copies(module, filename)
        module = canonicalize(module, filename=filename, fn_attrs=keep)
    else:
        module = strip_optnone(module, filename)
    if opts.through_ir_model:
        model = to_ir_model(module, filename)
        lower_memory_libcalls(model)
        lower_sort_search_libcalls(model)
        lower_sincos_libcalls(model)
        resolve_trampolines(model)
        if opts.pre_ad and mark_small_loops_for_full_unroll(model):
            # the pre-AD pipeline again: its full-unroll pass now unrolls the marked loops
            module = canonicalize(from_ir_model(model, filename), filename=filename)
            model = to_ir_model(module, filename)
        if opts.print_analyses:
            from irgrad.ad.api.registrations import read_registrations
            from irgrad.analysis.known_functions import module_functions
            from irgrad.analysis.printers import run_print_option

            sink = opts.analysis_sink or print
            with module_functions(read_registrations(model).known()):
                for kind, fn_name in opts.print_analyses:
                    sink(run_print_option(model, kind, fn_name))
        if opts.explain_sink is None:
            model = lower_enzyme_calls(model)
        else:
            reports: list[Any] = []
            model = lower_enzyme_calls(model, reports)
            for report in reports:
                opts.explain_sink(report)
        _release_noinline(model, release)
        module = from_ir_model(model, f"{filename} (after irgrad)")
    return optimize(module, opts.opt_level)
