"""The pre-AD pipeline: make any front end's module good input for differentiation.

1. ``optnone`` and ``noinline`` that ``clang -O0`` puts on every function are removed
   (only from functions marked ``optnone``: a user's own ``noinline`` elsewhere stays), so
   piping plain ``clang -O0`` output works.
2. Functions the caller names get attributes first (``fn_attrs``; the AD engine keeps the
   functions its registrations name out of line with ``noinline``), and Enzyme's entry
   points (``__enzyme_*``) get ``nomerge``: two calls in the arms of a branch (a
   ``switch`` over the functions to differentiate) would otherwise become one call of a
   ``select`` of functions and markers, which no longer says what to differentiate.
3. LLVM's O2 simplification pipeline runs with loop vectorization, SLP vectorization and
   loop unrolling off: derivatives are synthesized from scalar, rolled loops and the
   post-AD pipeline (:mod:`irgrad.llvm.optimize`) vectorizes the result.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import llvmlite.binding as llvm

from irgrad.llvm.load import parse_llvm
from irgrad.llvm.target import apply_target, create_target_machine

_ATTR_GROUP_RE = re.compile(r"^attributes #(\d+) = \{(.*)\}\s*$", re.M)
_DEFINE_RE = re.compile(r"^(define|declare) [^\n]*$", re.M)
# attribute keywords outside quoted strings: not preceded/followed by name characters
_OPTNONE_RE = re.compile(r'(?<![\w".$-])optnone(?![\w".$-])')
_NOINLINE_RE = re.compile(r'(?<![\w".$-])noinline(?![\w".$-])')
_GROUP_REF_RE = re.compile(r"#(\d+)")
ENTRY_PREFIX = "__enzyme_"  # Enzyme's entry points (__enzyme_autodiff, ...)


def strip_optnone_text(text: str) -> str:
    """Remove ``optnone`` (and the ``noinline`` it requires) from IR text.

    Both attribute groups (``attributes #0 = { noinline optnone ... }``) and attributes
    written on ``define`` lines are handled. Groups without ``optnone`` are untouched.
    """
    if "optnone" not in text:
        return text
    optnone_groups: set[str] = set()

    def fix_group(match: re.Match[str]) -> str:
        body = match.group(2)
        if not _OPTNONE_RE.search(body):
            return match.group(0)
        optnone_groups.add(match.group(1))
        body = _NOINLINE_RE.sub("", _OPTNONE_RE.sub("", body))
        return f"attributes #{match.group(1)} = {{ {' '.join(body.split())} }}"

    text = _ATTR_GROUP_RE.sub(fix_group, text)

    def fix_define(match: re.Match[str]) -> str:
        line = match.group(0)
        if _OPTNONE_RE.search(line):
            return _NOINLINE_RE.sub("", _OPTNONE_RE.sub("", line)).replace("  ", " ")
        return line

    return _DEFINE_RE.sub(fix_define, text)


def strip_optnone(module: llvm.ModuleRef, filename: str = "<input>") -> llvm.ModuleRef:
    """``module`` without clang -O0's ``optnone``/``noinline`` (a new module if changed)."""
    text = str(module)
    fixed = strip_optnone_text(text)
    if fixed is text:
        return module
    return parse_llvm(fixed, filename)


def pre_ad_tuning(speed_level: int = 2) -> llvm.PipelineTuningOptions:
    """Pipeline options of the pre-AD pipeline: no vectorization, no unrolling."""
    pto = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    pto.loop_vectorization = False
    pto.slp_vectorization = False
    pto.loop_unrolling = False
    pto.loop_interleaving = False
    return pto


def canonicalize(
    module: llvm.ModuleRef,
    *,
    filename: str = "<input>",
    tm: llvm.TargetMachine | None = None,
    speed_level: int = 2,
    fn_attrs: Mapping[str, Iterable[str]] | None = None,
) -> llvm.ModuleRef:
    """Run the pre-AD pipeline on a verified module; returns the (possibly new) module.
    ``fn_attrs``: function name -> attributes to add first (e.g. ``noinline``)."""
    module = strip_optnone(module, filename)
    for name, attrs in (fn_attrs or {}).items():
        fn = module.get_function(name)
        for attr in sorted(attrs):
            fn.add_function_attribute(attr)
    for fn in module.functions:
        if fn.is_declaration and fn.name.startswith(ENTRY_PREFIX):
            fn.add_function_attribute("nomerge")
    tm = tm or create_target_machine(speed_level)
    apply_target(module, tm)
    pto = pre_ad_tuning(speed_level)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(module, pb)
    return module
