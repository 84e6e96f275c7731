"""Text views of the analyses, in the style of Enzyme's ``-print-activity`` and
``-print-type-analysis`` (used by golden tests and ``irgrad opt``)."""

from __future__ import annotations

from irgrad.errors import UsageError
from irgrad.ir.function import Argument, BasicBlock, Function
from irgrad.ir.instructions import Instruction
from irgrad.ir.module import Module
from irgrad.ir.printer import Printer, SlotTracker
from irgrad.ir.values import Value


def function_of(v: Value) -> Function | None:
    if isinstance(v, Instruction):
        return v.function
    if isinstance(v, Argument):
        return v.parent
    if isinstance(v, BasicBlock):
        return v.parent
    return None


class ValuePrinter:
    """Prints values and instructions of one function with stable local names."""

    def __init__(self, fn: Function | None) -> None:
        self.printer = Printer()
        self.printer.slots = SlotTracker(fn)

    def ref(self, v: Value) -> str:
        return self.printer.ref(v)

    def typed(self, v: Value) -> str:
        return self.printer.typed(v)

    def instruction(self, inst: Instruction) -> str:
        return self.printer.instruction(inst).strip()


def value_ref(v: Value) -> str:
    """The operand spelling of ``v`` (``%x``, ``@g``, ``0``) named within its function."""
    return ValuePrinter(function_of(v)).ref(v)


def run_print_option(module: Module, kind: str, fn_name: str) -> str:
    """Text of ``--print-activity=fn`` / ``--print-type-analysis=fn`` for ``irgrad opt``.

    Activity uses the defaults of an unannotated call: pointer and floating-point
    arguments active, integers constant, a floating-point return active.
    """
    fn = module.get_function(fn_name)
    if fn is None or fn.is_declaration:
        raise UsageError(f"--print-{kind}: no function definition named '{fn_name}'")
    if kind in ("type", "type-analysis"):
        from irgrad.analysis.type_analysis import (
            TypeAnalysis,
            default_arg_trees,
            print_type_analysis,
        )

        ta = TypeAnalysis(module)
        results = ta.analyze(fn, *default_arg_trees(fn))
        return print_type_analysis(fn, results)
    if kind == "activity":
        from irgrad.analysis.activity import ActivityAnalysis, default_activity, print_activity
        from irgrad.analysis.type_analysis import TypeAnalysis, default_arg_trees

        ta = TypeAnalysis(module)
        types = ta.analyze(fn, *default_arg_trees(fn))
        args, ret = default_activity(fn)
        return print_activity(fn, ActivityAnalysis(fn, args, ret, types=types))
    raise UsageError(f"unknown analysis to print: '{kind}' (expected 'type' or 'activity')")


__all__ = ["ValuePrinter", "function_of", "run_print_option", "value_ref"]
