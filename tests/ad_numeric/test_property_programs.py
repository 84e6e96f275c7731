"""Hypothesis: random C programs differentiated by irgrad, checked numerically.

Straight-line programs (``+ - * /`` with safe denominators, sin/cos/exp/log/sqrt/pow,
fmax/fmin, selects on comparisons) and looped programs (a counted loop carrying a state,
a nested loop, a loop with a data-dependent branch, a loop writing a local array that a
second loop reads, a scratch buffer refilled every round and read back by other loops, a
constant-trip inner loop over a local array) over ``double *x`` of length n. Each example compiles several programs
as ONE C file with ``__enzyme_autodiff`` and ``__enzyme_fwddiff`` wrappers through irgrad
at -O0..-O3 and checks every program with ``irgrad.testing``: forward tangents and the
reverse dot-product test against central differences, and forward against reverse.

Where central differences with steps h and h/2 disagree (a kink of fmax/select within
the step, or a function too wild for finite differences) only forward-vs-reverse and the
finiteness of the derivatives are checked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from irgrad.testing import (
    c_gradient,
    c_primal,
    c_tangent,
    check_forward,
    check_forward_vs_reverse,
    check_reverse,
    compile_c_to_jit,
    finite_differences_agree,
)

RTOL = 1e-5
ATOL = 1e-7
PROGRAMS_PER_EXAMPLE = 3
SETTINGS = settings(
    max_examples=6, deadline=None, derandomize=True, database=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: the report shows the C source
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

UNARY = {
    "sin": "sin({a})",
    "cos": "cos({a})",
    "exp": "exp(sin({a}))",
    "log": "log(1.0 + {a} * {a})",
    "sqrt": "sqrt({a} * {a} + 1.0)",
    "square": "({a} * {a})",
    "neg": "(-({a}))",
    "pow_const": "pow(1.0 + {a} * {a}, {c})",
}
BINARY = {
    "add": "({a} + {b})",
    "sub": "({a} - {b})",
    "mul": "({a} * {b})",
    "div": "({a} / (1.5 + {b} * {b}))",
    "pow": "pow(1.0 + {a} * {a}, 0.5 * sin({b}))",
    "fmax": "fmax({a}, {b})",
    "fmin": "fmin({a}, {b})",
}
CONSTANTS = (-1.5, -0.5, 0.25, 0.5, 1.5, 2.0)


@st.composite
def expressions(draw: st.DrawFn, names: tuple[str, ...], depth: int = 3) -> str:
    """A C expression over ``names`` with bounded nesting."""
    if depth == 0 or draw(st.integers(0, 4)) == 0:
        if draw(st.integers(0, 5)) == 0:
            return repr(draw(st.sampled_from(CONSTANTS)))
        return draw(st.sampled_from(names))
    kind = draw(st.sampled_from(["unary", "binary", "binary", "select"]))
    sub = expressions(names, depth - 1)
    if kind == "unary":
        c = draw(st.sampled_from((0.5, 1.5, 2.0, -0.5, 3.0)))
        return UNARY[draw(st.sampled_from(sorted(UNARY)))].format(a=draw(sub), c=c)
    if kind == "binary":
        op = draw(st.sampled_from(sorted(BINARY)))
        return BINARY[op].format(a=draw(sub), b=draw(sub))
    cmp = draw(st.sampled_from(["<", ">", "<=", ">="]))
    return f"(({draw(sub)}) {cmp} ({draw(sub)}) ? ({draw(sub)}) : ({draw(sub)}))"


@dataclass(frozen=True)
class Program:
    name: str
    body: str  # the C function body of `double name(double *x, int n)`


@st.composite
def straight_line(draw: st.DrawFn, name: str) -> Program:
    """t0..tm from the inputs and earlier temporaries; returns an expression plus their sum."""
    n_in = draw(st.integers(1, 4))
    names = tuple(f"a{i}" for i in range(n_in))
    lines = [f"  double a{i} = x[{i} % n];" for i in range(n_in)]
    temps = [f"t{j}" for j in range(draw(st.integers(1, 4)))]
    for t in temps:
        lines.append(f"  double {t} = {draw(expressions(names, 3))};")
        names = (*names, t)
    lines.append(f"  return {draw(expressions(names[-3:], 1))} + 0.5 * ({' + '.join(temps)});")
    return Program(name, "\n".join(lines))


SQUASH = "  s = 0.5 * s + g / (1.0 + g * g);"


@st.composite
def looped(draw: st.DrawFn, name: str) -> Program:
    """A state ``s`` carried through a loop; the update squashes g so s stays bounded."""
    kind = draw(st.sampled_from(
        ["counted", "nested", "branch", "two_pass", "scratch", "small_const"]))
    init = draw(st.sampled_from(["0.0", "x[0]", "1.0"]))
    lines = [f"  double s = {init};"]
    if kind == "counted":
        g = draw(expressions(("x[i]", "s", "x[0]"), 3))
        lines += ["  for (int i = 0; i < n; i++) {", f"    double g = {g};", SQUASH, "  }"]
    elif kind == "nested":
        inner = draw(st.sampled_from(["n", "i + 1"]))
        g = draw(expressions(("x[i]", "x[j]", "s"), 2))
        lines += ["  for (int i = 0; i < n; i++) {",
                  f"    for (int j = 0; j < {inner}; j++) {{",
                  f"      double g = {g};", "  " + SQUASH, "    }", "  }"]
    elif kind == "branch":
        threshold = draw(st.sampled_from([-0.5, 0.0, 0.3]))
        g1 = draw(expressions(("x[i]", "s"), 2))
        g2 = draw(expressions(("x[i]", "s"), 2))
        lines += ["  for (int i = 0; i < n; i++) {", "    double g;",
                  f"    if (x[i] > {threshold}) g = {g1}; else g = {g2};", SQUASH, "  }"]
    elif kind == "scratch":
        # a buffer refilled by one loop per round and read back at other loops' indices
        # (the store-to-load forwarding shape), on the stack or the heap
        heap = draw(st.booleans())
        fill = draw(expressions(("x[j]", "x[(j + 1) % n]", "s"), 2))
        g = draw(expressions(("b[i]", "b[j]", "x[j]", "s"), 2))
        lines += ["  double *b = malloc(sizeof(double) * n);" if heap else "  double b[16];",
                  "  for (int r = 0; r < 2; r++) {",
                  f"    for (int j = 0; j < n; j++) b[j] = {fill} + 0.25 * r;",
                  "    for (int i = 0; i < n; i++)",
                  "      for (int j = i; j < n; j++) {", f"        double g = {g};",
                  "    " + SQUASH, "      }", "  }"]
        if heap:
            lines.append("  free(b);")
    elif kind == "small_const":
        # a constant-trip inner loop over a local array (fully unrolled before AD)
        trips = draw(st.integers(2, 8))
        fill = draw(expressions(("x[(i + k) % n]", "s"), 2))
        g = draw(expressions(("v[k]", "x[i]", "s"), 2))
        lines += ["  for (int i = 0; i < n; i++) {", f"    double v[{trips}];",
                  f"    for (int k = 0; k < {trips}; k++) v[k] = {fill};",
                  f"    for (int k = 0; k < {trips}; k++) {{", f"      double g = {g};",
                  "  " + SQUASH, "    }", "  }"]
    else:
        g = draw(expressions(("x[i]", "s"), 2))
        h = draw(expressions(("y[i]", "x[(i + 1) % n]", "s"), 2))
        lines += ["  double y[16];", "  for (int i = 0; i < n; i++) {", f"    double g = {g};",
                  SQUASH, "    y[i] = s;", "  }", "  for (int i = n - 1; i >= 0; i--) {",
                  f"    double g = {h};", SQUASH, "  }"]
    lines.append("  return s;")
    return Program(name, "\n".join(lines))


def c_source(programs: list[Program]) -> str:
    parts = ["#include <math.h>", "#include <stdlib.h>", "#include <enzyme/enzyme.h>", ""]
    for p in programs:
        parts += [
            f"double {p.name}(double *x, int n) {{", p.body, "}",
            f"void grad_{p.name}(double *x, double *dx, int n) {{",
            f"  __enzyme_autodiff((void *){p.name}, enzyme_dup, x, dx, enzyme_const, n);",
            "}",
            f"double fwd_{p.name}(double *x, double *dx, int n) {{",
            f"  return __enzyme_fwddiff((void *){p.name}, enzyme_dup, x, dx, enzyme_const, n);",
            "}", "",
        ]
    return "\n".join(parts)


def check_programs(programs: list[Program], opt_level: int, seed: int, n: int) -> None:
    source = c_source(programs)
    jit = compile_c_to_jit(source, opt_level)
    x = np.random.default_rng(seed).uniform(-1.2, 1.2, size=n)
    for p in programs:
        f, rev, fwd = c_primal(jit, p.name), c_gradient(jit, f"grad_{p.name}"), c_tangent(jit, f"fwd_{p.name}")
        where = f"program {p.name} at -O{opt_level}, x={x.tolist()}:\n{p.body}"
        value = f(x)
        assert np.isfinite(value), f"primal is not finite: {where}"
        grad = rev(x, 1.0)
        assert np.all(np.isfinite(grad)), f"gradient {grad} is not finite: {where}"
        check_forward_vs_reverse(fwd, rev, x, rtol=1e-9, atol=1e-11)
        reliable = all(finite_differences_agree(f, x, t, rtol=RTOL, atol=ATOL)
                       for t in np.eye(n))
        if reliable:
            try:
                check_forward(f, fwd, x, rtol=RTOL, atol=ATOL)
                check_reverse(f, rev, x, rtol=RTOL, atol=ATOL)
            except AssertionError as exc:
                raise AssertionError(f"{exc}\n{where}\n--- C ---\n{source}") from None


OPT_LEVELS = [0, 1, 2, 3]


@pytest.mark.parametrize("opt_level", OPT_LEVELS)
@SETTINGS
@given(data=st.data(), seed=st.integers(0, 2**31 - 1), n=st.integers(4, 6))
def test_straight_line_programs(opt_level: int, data: st.DataObject, seed: int, n: int) -> None:
    programs = [data.draw(straight_line(f"f{i}"), label=f"f{i}")
                for i in range(PROGRAMS_PER_EXAMPLE)]
    check_programs(programs, opt_level, seed, n)


@pytest.mark.parametrize("opt_level", OPT_LEVELS)
@SETTINGS
@given(data=st.data(), seed=st.integers(0, 2**31 - 1), n=st.integers(3, 6))
def test_looped_programs(opt_level: int, data: st.DataObject, seed: int, n: int) -> None:
    programs = [data.draw(looped(f"l{i}"), label=f"l{i}") for i in range(PROGRAMS_PER_EXAMPLE)]
    check_programs(programs, opt_level, seed, n)
