"""LLVM IR test functions generated from the derivative rule table.

For every rule in ``irgrad.ad.rules.all_rules()`` and every name it answers to, one or
more :class:`RuleCase` s: a primal ``double @p_ID(ptr %x, ptr %k)`` that reads its float
operands from ``x`` (as double, converted to the case's floating-point type), its integer
operands from ``k`` (i32), applies the operation and returns the result as double; and
the wrappers ``void @g_ID(ptr %x, ptr %dx, ptr %k)`` (``__enzyme_autodiff``) and
``double @t_ID(ptr %x, ptr %dx, ptr %k)`` (``__enzyme_fwddiff``). All cases of one
configuration go into ONE module (:func:`module_text`).

A rule name that cannot be turned into a case raises :class:`CaseError` (the test for
that rule then fails: nothing is skipped).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from irgrad.ad.rules import Rule

FP_SUFFIX = {"double": "f64", "float": "f32", "x86_fp80": "f80"}


class CaseError(Exception):
    """A rule name this generator does not know how to exercise."""


@dataclass(frozen=True)
class RuleCase:
    rule: Rule
    name: str  # the rule name exercised (sin, sinf, llvm.sin, fpext...)
    fp: str  # the floating-point type of the operation
    body: list[str]  # instructions of @p_ID's entry block (ending in ret)
    declarations: tuple[str, ...]
    n_float: int  # length of x (the active inputs)
    n_int: int  # length of k
    expected: Callable[[Sequence[float], Sequence[int]], float] | None = field(
        default=None, compare=False
    )

    @property
    def ident(self) -> str:
        return re.sub(r"[^A-Za-z0-9_]", "_", f"{self.rule.kind}_{self.name}_{self.fp}")

    @property
    def test_id(self) -> str:
        return f"{self.rule.kind}:{self.name}:{self.fp}"

    @property
    def low_precision(self) -> bool:
        return self.fp == "float" or any("to float" in line for line in self.body)

    def ir(self) -> str:
        i = self.ident
        lines = [f"define double @p_{i}(ptr %x, ptr %k) {{", "entry:"]
        lines += [f"  {line}" for line in self.body]
        lines += ["}", "", f"define void @g_{i}(ptr %x, ptr %dx, ptr %k) {{", "entry:",
                  "  %d = load i32, ptr @enzyme_dup", "  %c = load i32, ptr @enzyme_const",
                  f"  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @p_{i}, i32 %d, "
                  "ptr %x, ptr %dx, i32 %c, ptr %k)", "  ret void", "}", "",
                  f"define double @t_{i}(ptr %x, ptr %dx, ptr %k) {{", "entry:",
                  "  %d = load i32, ptr @enzyme_dup", "  %c = load i32, ptr @enzyme_const",
                  f"  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @p_{i}, i32 %d, "
                  "ptr %x, ptr %dx, i32 %c, ptr %k)", "  ret double %r", "}", ""]
        return "\n".join(lines)


HEADER = """\
@enzyme_dup = external global i32
@enzyme_const = external global i32
declare double @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
"""


def module_text(cases: Sequence[RuleCase]) -> str:
    decls = sorted({d for c in cases for d in c.declarations})
    return HEADER + "\n".join(decls) + "\n\n" + "\n".join(c.ir() for c in cases)


# --- building one primal body ---


class _Body:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.n_float = 0
        self.n_int = 0
        self._tmp = 0

    def tmp(self) -> str:
        self._tmp += 1
        return f"%v{self._tmp}"

    def emit(self, text: str) -> str:
        name = self.tmp()
        self.lines.append(f"{name} = {text}")
        return name

    def load_float(self, fp: str) -> str:
        i = self.n_float
        self.n_float += 1
        addr = self.emit(f"getelementptr inbounds double, ptr %x, i64 {i}")
        value = self.emit(f"load double, ptr {addr}")
        return convert(self, value, "double", fp)

    def load_int(self) -> str:
        i = self.n_int
        self.n_int += 1
        addr = self.emit(f"getelementptr inbounds i32, ptr %k, i64 {i}")
        return self.emit(f"load i32, ptr {addr}")

    def ret(self, value: str, fp: str) -> list[str]:
        self.lines.append(f"ret double {convert(self, value, fp, 'double')}")
        return self.lines


def convert(body: _Body, value: str, src: str, dst: str) -> str:
    order = ["float", "double", "x86_fp80"]
    if src == dst:
        return value
    op = "fpext" if order.index(src) < order.index(dst) else "fptrunc"
    return body.emit(f"{op} {src} {value} to {dst}")


def _operands(body: _Body, rule: Rule, fp: str, ptr_type: str) -> list[str]:
    """Typed operands (``double %v3``) for every operand of ``rule``."""
    out = []
    for kind in rule.operand_kinds:
        if kind == "float":
            out.append(f"{fp} {body.load_float(fp)}")
        elif kind == "int":
            out.append(f"i32 {body.load_int()}")
        else:
            out.append(f"ptr {body.emit(f'alloca {ptr_type}, align 16')}")
    return out


def _python_expected(rule: Rule) -> Callable[[Sequence[float], Sequence[int]], float]:
    """The rule's Python primal on the operands laid out as in ``x`` / ``k``."""
    primal = rule.primal
    if primal is None:
        raise CaseError(f"{rule.name}: the rule has no Python primal")

    def expected(x: Sequence[float], k: Sequence[int]) -> float:
        xs, ks, args = iter(x), iter(k), []
        for kind in rule.operand_kinds:
            args.append(next(xs) if kind == "float" else float(next(ks)) if kind == "int"
                        else None)
        value = float(primal(*args))
        return value + x[0] if rule.result_kind == "int" else value

    return expected


def _finish(body: _Body, rule: Rule, fp: str, result: str, result_ty: str) -> list[str]:
    """Return the result as double; an integer result is added to the first float operand
    (so the test also sees that the integer path adds nothing to the derivative)."""
    if rule.result_kind == "int":
        as_fp = body.emit(f"sitofp {result_ty} {result} to {fp}")
        first = body.lines[1].split(" = ")[0]  # the first loaded double
        return body.ret(body.emit(f"fadd {fp} {as_fp}, {convert(body, first, 'double', fp)}"),
                        fp)
    if rule.result_kind == "struct":
        index = rule.result_index if rule.result_index is not None else 0
        result = body.emit(f"extractvalue {result_ty} {result}, {index}")
    return body.ret(result, fp)


# the second element of the struct-returning intrinsics (the first is the float result)
_STRUCT_SECOND = {"llvm.frexp": "i32", "llvm.modf": "FP"}


def _result_type(rule: Rule, fp: str) -> str:
    if rule.result_kind == "struct":
        second = _STRUCT_SECOND[rule.names[0]]  # a new struct intrinsic must be added here
        return f"{{ {fp}, {fp if second == 'FP' else second} }}"
    return {"float": fp, "int": "i64"}[rule.result_kind]


def _flang_case(rule: Rule, name: str) -> RuleCase:
    """flang's scalar runtime routines (``_FortranAModReal8(a, p, file, line)``): the
    real kind from the name, then the source file and line (no derivatives)."""
    fp = "float" if name.endswith("Real4") else "double"
    body = _Body()
    args = [*_operands(body, rule, fp, ptr_type="i32"), "ptr null", "i32 0"]
    rty = _result_type(rule, fp)
    result = body.emit(f"call {rty} @{name}({', '.join(args)})")
    arg_types = ", ".join(a.split(" ")[0] for a in args)
    return RuleCase(rule, name, fp, _finish(body, rule, fp, result, rty),
                    (f"declare {rty} @{name}({arg_types})",), body.n_float, body.n_int,
                    _python_expected(rule))


def _call_case(rule: Rule, name: str) -> RuleCase:
    if name.startswith("_FortranA") and name.endswith(("Real4", "Real8")):
        return _flang_case(rule, name)
    variants = {0: "double", 1: "float", 2: "x86_fp80"}
    position = rule.names.index(name)
    base = rule.names[0]
    # libm's f/l variants: sin -> sinf, sinl; a reentrant _r name keeps its tail last
    # (lgamma_r -> lgammaf_r, lgammal_r)
    stem, tail = (base[:-2], "_r") if base.endswith("_r") else (base, "")
    spelled = (base, f"{stem}f{tail}", f"{stem}l{tail}")
    if len(rule.names) != 3 or position not in variants or name != spelled[position]:
        raise CaseError(f"call rule name {name!r} is not a libm name/f/l variant")
    fp = variants[position]
    body = _Body()
    args = _operands(body, rule, fp, ptr_type=fp if "modf" in name else "i32")
    rty = _result_type(rule, fp)
    result = body.emit(f"call {rty} @{name}({', '.join(args)})")
    arg_types = ", ".join(a.split(" ")[0] for a in args)
    return RuleCase(rule, name, fp, _finish(body, rule, fp, result, rty),
                    (f"declare {rty} @{name}({arg_types})",), body.n_float, body.n_int,
                    _python_expected(rule))


def _intrinsic_case(rule: Rule, name: str, fp: str) -> RuleCase:
    body = _Body()
    args = _operands(body, rule, fp, ptr_type="i32")
    if "ptr" in rule.operand_kinds:
        raise CaseError(f"intrinsic {name} with a pointer operand")
    rty = _result_type(rule, fp)
    mangled = [FP_SUFFIX[fp]]
    if rule.result_kind == "int":
        mangled.insert(0, "i64")
    if "int" in rule.operand_kinds or rule.result_kind == "struct":
        mangled.append("i32")
    full = ".".join([name, *mangled])
    result = body.emit(f"call {rty} @{full}({', '.join(args)})")
    arg_types = ", ".join(a.split(" ")[0] for a in args)
    return RuleCase(rule, name, fp, _finish(body, rule, fp, result, rty),
                    (f"declare {rty} @{full}({arg_types})",), body.n_float, body.n_int,
                    _python_expected(rule))


def _cast_cases(rule: Rule, name: str) -> list[RuleCase]:
    """fpext / fptrunc: square the converted value (d/dx = 2x); sitofp/uitofp: the integer
    as a constant factor of an extra input; fptosi/fptoui: see :func:`_finish`."""
    cases = []
    if name in ("fpext", "fptrunc"):
        for narrow, wide in (("float", "double"), ("double", "x86_fp80")):
            body = _Body()
            x = body.load_float("double")
            if name == "fpext":  # narrow -> wide, the square in the wide type
                src = convert(body, x, "double", narrow) if narrow != "double" else x
                v = body.emit(f"fpext {narrow} {src} to {wide}")
                ty = wide
            else:  # wide -> narrow, the square in the narrow type
                src = convert(body, x, "double", wide) if wide != "double" else x
                v = body.emit(f"fptrunc {wide} {src} to {narrow}")
                ty = narrow
            sq = body.emit(f"fmul {ty} {v}, {v}")
            cases.append(RuleCase(rule, name, f"{narrow}_{wide}", body.ret(sq, ty), (), 1, 0,
                                  lambda x, k: x[0] * x[0]))
        return cases
    if name in ("sitofp", "uitofp"):
        for fp in ("double", "float"):
            body = _Body()
            n = body.load_int()
            c = body.emit(f"{name} i32 {n} to {fp}")
            x = body.load_float(fp)
            cases.append(RuleCase(rule, name, fp, body.ret(body.emit(f"fmul {fp} {c}, {x}"), fp),
                                  (), 1, 1, lambda x, k: k[0] * x[0]))
        return cases
    if name in ("fptosi", "fptoui"):
        for fp in ("double", "float"):
            body = _Body()
            x = body.load_float(fp)
            i = body.emit(f"{name} {fp} {x} to i64")
            cases.append(RuleCase(rule, name, fp, _finish(body, rule, fp, i, "i64"), (), 1, 0,
                                  _python_expected(rule)))
        return cases
    raise CaseError(f"no generator for the cast {name!r}")


def _instruction_cases(rule: Rule, name: str) -> list[RuleCase]:
    if name in ("fadd", "fsub", "fmul", "fdiv", "frem", "fneg"):
        cases = []
        for fp in ("double", "float", "x86_fp80"):
            body = _Body()
            args = [body.load_float(fp) for _ in rule.operand_kinds]
            if len(args) != (1 if name == "fneg" else 2):
                raise CaseError(f"{name}: unexpected arity {len(args)}")
            result = body.emit(f"{name} {fp} {', '.join(args)}")
            cases.append(RuleCase(rule, name, fp, body.ret(result, fp), (), len(args), 0,
                                  _python_expected(rule)))
        return cases
    return _cast_cases(rule, name)


def cases_for(rule: Rule) -> list[RuleCase]:
    """Every generated case of ``rule`` (one or more per name); CaseError if impossible."""
    cases: list[RuleCase] = []
    for name in rule.names:
        if rule.kind == "call":
            cases.append(_call_case(rule, name))
        elif rule.kind == "intrinsic":
            cases += [_intrinsic_case(rule, name, fp) for fp in ("double", "float")]
        else:
            cases += _instruction_cases(rule, name)
    if not cases:
        raise CaseError(f"{rule.kind} rule {rule.name}: no case generated")
    return cases


def sample_point(case: RuleCase, seed: int) -> tuple[list[float], list[int]]:
    """A point from the rule's domain: x (float operands) and k (integer operands)."""
    import random

    rng = random.Random(f"{case.test_id}/{seed}")
    x: list[float] = []
    k: list[int] = []
    rule = case.rule
    if case.n_float > rule.operand_kinds.count("float"):  # sitofp: the extra factor
        x.append(rng.uniform(-3.0, 3.0))
    for kind, interval in zip(rule.operand_kinds, rule.domain, strict=True):
        if kind == "ptr":
            continue
        if interval is None:
            raise CaseError(f"{rule.name}: operand without a domain")
        lo, hi = interval
        if kind == "int":
            k.append(rng.randint(math.ceil(lo), math.floor(hi)))
        else:
            x.append(rng.uniform(lo, hi))
    if case.name in ("fpext", "fptrunc"):
        x = x[:1]
    return x, k
