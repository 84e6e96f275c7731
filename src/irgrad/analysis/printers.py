"""Text views of the analyses, in the style of Enzyme's ``-print-activity`` and
``-print-type-analysis`` (used by golden tests, ``irgrad opt`` and ``irgrad cc``)."""

from __future__ import annotations

from irgrad import ir
from irgrad.analysis.activity import REVERSE_POLICY, ActivityAnalysis, default_activity
from irgrad.analysis.global_activity import global_activity
from irgrad.analysis.type_analysis import TypeAnalysis, default_arg_trees
from irgrad.analysis.type_results import print_type_analysis
from irgrad.errors import UsageError
from irgrad.ir.printer import ValuePrinter


def print_activity(fn: ir.Function, analysis: ActivityAnalysis) -> str:
    """Per argument ``<arg>: icv:N`` and per instruction ``<inst>: icv:N ici:N`` (Enzyme's
    ``-print-activity``), with block names on their own lines."""
    vp = ValuePrinter(fn)
    lines = []
    for a in fn.args:
        lines.append(f"{vp.typed(a)}: icv:{int(analysis.is_constant_value(a))}")
    for bb in fn.blocks:
        lines.append(vp.ref(bb).lstrip("%"))
        for inst in bb.instructions:
            icv = int(analysis.is_constant_value(inst))
            ici = int(analysis.is_constant_instruction(inst))
            lines.append(f"  {vp.instruction(inst)}: icv:{icv} ici:{ici}")
    return "\n".join(lines) + "\n"


def run_print_option(module: ir.Module, kind: str, fn_name: str) -> str:
    """Text of ``--print-activity=fn`` / ``--print-type-analysis=fn``.

    Activity is what reverse mode uses for an unannotated call (``__enzyme_autodiff(f,
    args...)``): pointer and floating-point arguments active, integers constant, a
    floating-point return active; the globals are classified with ``fn`` as the
    differentiated function (:mod:`irgrad.analysis.global_activity`).
    """
    fn = module.get_function(fn_name)
    if fn is None or fn.is_declaration:
        raise UsageError(f"--print-{kind}: no function definition named '{fn_name}'")
    if kind in ("type", "type-analysis"):
        results = TypeAnalysis(module).analyze(fn, *default_arg_trees(fn))
        return print_type_analysis(fn, results)
    if kind == "activity":
        args, ret = default_activity(fn)
        analysis = ActivityAnalysis.for_arguments(fn, args, policy=REVERSE_POLICY,
                                                  return_active=ret,
                                                  globals_=global_activity(module, [fn]))
        return print_activity(fn, analysis)
    raise UsageError(f"unknown analysis to print: '{kind}' (expected 'type' or 'activity')")


__all__ = ["print_activity", "run_print_option"]
