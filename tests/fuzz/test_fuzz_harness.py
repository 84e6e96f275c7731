"""The fuzzer's own parts: the generator keeps its invariants and covers its features,
the classifier tells wrong derivatives from right ones, the reducer's edits stay valid."""

from __future__ import annotations

import math
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from .checks import InvalidProgram, check_function, interval
from .classify import References, Verdict, classify_request, cross_check
from .drivers import Label, RequestLayout, ad_program
from .fd_driver import fd_program
from .gen_case import ALL_FEATURES, focus_of, generate
from .harness import SAN_ENV, FDResult, compile_ad
from .model import Bin, Block, Call, Function, Num, Param, Ref, Request, Return
from .reduce import _edits, _valid

SEEDS = range(200)


def test_generator_is_deterministic_and_valid() -> None:
    for seed in SEEDS:
        a, b = generate(seed, focus_of(seed)), generate(seed, focus_of(seed))
        assert a == b
        assert a.features <= ALL_FEATURES, a.features - ALL_FEATURES
        for case in a.cases:
            assert _valid(case), (seed, case.index)


def test_focus_is_honoured() -> None:
    for seed in SEEDS:
        focus = focus_of(seed)
        if not focus.startswith(("helper_", "mode_", "width_", "marker_", "void", "primal")):
            continue
        assert focus in generate(seed, focus).cases[0].features, (seed, focus)


def test_interval_check_rejects_unsafe_math() -> None:
    x = Ref("x")
    with pytest.raises(InvalidProgram):
        interval(Call("log", (x,)))
    with pytest.raises(InvalidProgram):
        interval(Bin("/", Num(1.0), x))
    assert interval(Call("log", (Bin("+", Num(1.0), Bin("*", x, x)),))).lo == 0.0
    body = Block((Return(Bin("*", x, x)),))  # up to 16: outside the stored range
    with pytest.raises(InvalidProgram):
        check_function(Function("f", "real", (Param("x", "real"),), body), set(), set())


def test_reducer_edits_are_checked() -> None:
    case = generate(3, focus_of(3)).cases[0]
    kept = 0
    for fn in list(_edits(case.entry, {h.name: h for h in case.helpers}))[:200]:
        if _valid(replace(case, entry=fn)):
            kept += 1
    assert kept > 0


def test_programs_render_every_request() -> None:
    program = generate(5, focus_of(5))
    text, layouts = ad_program(program)
    assert len(layouts) == sum(1 + len(c.requests) for c in program.cases)
    for case in program.cases:
        assert f"double {case.entry.name}(" in text or f"void {case.entry.name}(" in text
    assert "fz_path" in fd_program(program)


def _fake_fd(case_values: list[float]) -> FDResult:
    return FDResult(y_long=case_values, y_double=case_values)


def test_classifier_separates_right_wrong_nan_and_kinks() -> None:
    # f(a) = a * a at a = 0.5 (one real parameter a, n = 1): y = [a^2], J = [[1.0]]
    program = generate(0)
    case = program.cases[0]
    params = (Param("a", "real"), Param("n", "int"))
    entry = Function("f0", "real", params, Block((Return(Bin("*", Ref("a"), Ref("a"))),)),
                     "entry")
    req = Request("rev", ("out", ""), 1, ((),), ((),), 1.0)
    case = replace(case, entry=entry, helpers=(), globals=(), args=(0.5, 1), requests=(req,))
    fd = _fake_fd([0.25])
    h = 1e-3
    fd.columns[0] = (0, [1.0, 1.0, 1.0])  # exact central differences of a^2
    refs = References(case, fd)
    layout = RequestLayout(1, 0, 0, (Label("p", 0),))
    assert classify_request(refs, layout, [1.0]).cls == "pass"
    assert classify_request(refs, layout, [1.0 + 1e-3]).cls == "wrong"
    assert classify_request(refs, layout, [math.nan]).cls == "nan"
    assert classify_request(refs, layout, [0.0]).cls == "wrong"
    fd.columns[0] = (-1, [])  # every step crossed a kink: nothing to compare with
    assert classify_request(References(case, fd), layout, [7.0]).cls == "fd-noise"
    fd.columns[0] = (0, [1.0 + h, 1.0 + h / 4, 1.0 + h / 16])  # O(h^2) error, extrapolated
    assert classify_request(References(case, fd), layout, [1.0]).cls == "pass"
    primal = RequestLayout(0, 0, -1, (Label("y", 0),))
    assert classify_request(refs, primal, [0.25]).cls == "pass"
    assert classify_request(refs, primal, [0.26]).cls == "wrong"


SOURCE = r"""
#include <stdlib.h>
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
double sumsq(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}
int main(int argc, char **argv) {
  int n = 4 + argc - 1;
  double *x = calloc(n, sizeof(double)), *dx = calloc(n, sizeof(double));
  __enzyme_autodiff((void *)sumsq, enzyme_dup, x, dx, n);
  double bad = argc > 1 ? x[n] : 0.0;  /* out of bounds when an argument is given */
  free(x);
  free(dx);
  return (int)bad;
}
"""


def test_sanitize_build_instruments_derivatives_and_reports(tmp_path: Path) -> None:
    src = tmp_path / "p.c"
    src.write_text(SOURCE)
    # at -O0 the derivative stays a function of its own (from -O1 on LLVM may inline it
    # into main, whose own accesses are instrumented anyway)
    compiled = compile_ad(src, 0, tmp_path / "p", sanitize=True)
    assert compiled.status == "ok", compiled.message
    instrumented = subprocess.run(
        ["clang-22", "-O0", "-fsanitize=address", "-S", "-emit-llvm",
         str(tmp_path / "p.asan.ll"), "-o", "-"], capture_output=True, text=True, check=True)
    functions = instrumented.stdout.split("\ndefine ")
    derivative = [f for f in functions if f.split("(")[0].split("@")[-1].startswith(
        ("diffe", "augmented_", "reverse_"))]
    assert derivative and all("__asan_report" in f for f in derivative)
    ok = subprocess.run([str(tmp_path / "p")], capture_output=True, text=True, env=SAN_ENV)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run([str(tmp_path / "p"), "x"], capture_output=True, text=True, env=SAN_ENV)
    assert bad.returncode == 86 and "heap-buffer-overflow" in bad.stderr


def test_cross_check_settles_unverifiable_runs() -> None:
    # f(a) = a * a at a = 0.5 with a kink in every step: forward (t = 0.5) and reverse
    # (c = 1) runs must satisfy <c, J t> = <t, J^T c>
    program = generate(0)
    params = (Param("a", "real"), Param("n", "int"))
    entry = Function("f0", "real", params, Block((Return(Bin("*", Ref("a"), Ref("a"))),)),
                     "entry")
    rev = Request("rev", ("out", ""), 1, ((),), ((),), 1.0)
    fwd = Request("fwd", ("", ""), 1, ((),), ((0.5,),), 1.0)
    case = replace(program.cases[0], entry=entry, helpers=(), globals=(), args=(0.5, 1),
                   requests=(rev, fwd))
    fd = _fake_fd([0.25])
    fd.columns[0] = (-1, [])
    fd.directions[0] = (-1, [])
    refs = References(case, fd)
    rlay = RequestLayout(1, 0, 0, (Label("p", 0),))
    flay = RequestLayout(2, 0, 1, (Label("t", 0, 0),))
    noise = classify_request(refs, rlay, [1.0])
    assert noise.cls == "fd-noise" and classify_request(refs, flay, [0.5]).cls == "fd-noise"
    ok = cross_check(refs, [(rlay, [1.0], noise), (flay, [0.5], noise)])
    assert [v.cls for v in ok] == ["fd-noise", "fd-noise"]  # consistent, still unverified
    bad = cross_check(refs, [(rlay, [1.0], noise), (flay, [0.75], noise)])
    assert [v.cls for v in bad] == ["wrong", "wrong"]
    verified = cross_check(refs, [(rlay, [1.0], Verdict("pass")), (flay, [0.5], noise)])
    assert [v.cls for v in verified] == ["pass", "pass"]
