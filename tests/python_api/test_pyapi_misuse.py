"""Every misuse of the Python API raises an irgrad.errors exception that names the
argument (never a raw AttributeError/TypeError/ValueError, never a crash), and an
array smaller than what its size arguments describe is refused before the call."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pyapi_helpers import C_KERNELS

import irgrad
from irgrad import Const, Duplicated
from irgrad.errors import IRGradError, UsageError

SIZES = r"""
double scaled_sum(const double *x, int n, double a) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a * x[i] * x[i];
  return s;
}
double rosen(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n - 1; i++) {
    double t = x[i + 1] - x[i] * x[i];
    s += 100.0 * t * t + (1.0 - x[i]) * (1.0 - x[i]);
  }
  return s;
}
void matvec(const double *A, const double *x, double *y, int rows, int cols) {
  for (int i = 0; i < rows; i++) {
    double s = 0.0;
    for (int j = 0; j < cols; j++) s += A[i * cols + j] * x[j];
    y[i] = s;
  }
}
double gather(const double *x, const int *index, int n) {  /* x[index[i]]: not bounded */
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[index[i]];
  return s;
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> irgrad.Library:
    return irgrad.compile(source=C_KERNELS, language="c", cache_dir=tmp_path_factory.mktemp("c"))


@pytest.fixture(scope="module")
def sizes(tmp_path_factory: pytest.TempPathFactory) -> irgrad.Library:
    return irgrad.compile(source=SIZES, language="c", cache_dir=tmp_path_factory.mktemp("s"))


MISUSES: list[tuple[str, Callable[[irgrad.Library], Any], str]] = [
    ("source is a number", lambda _: irgrad.compile(source=12, language="c"), "source="),
    ("language is not a string", lambda _: irgrad.compile(source="int f;", language=3),
     "language="),
    ("unknown language", lambda _: irgrad.compile(source="x", language="cobol"), "language"),
    ("flags is a string", lambda _: irgrad.compile(source="int f;", language="c", flags="-O2"),
     "flags"),
    ("flags hold a number", lambda _: irgrad.compile(source="int f;", language="c",
                                                     flags=[3]), "flags"),
    ("sources is a number", lambda _: irgrad.compile(42), "sources"),
    ("opt_level is a string", lambda _: irgrad.compile(source="int f;", language="c",
                                                       opt_level="2"), "opt_level"),
    ("cache_dir is a number", lambda _: irgrad.compile(source="int f;", language="c",
                                                       cache_dir=3), "cache_dir"),
    ("both sources and source", lambda _: irgrad.compile("a.c", source="x"), "exactly one"),
    ("unknown function", lambda lib: lib["nothing"], "nothing"),
    ("unknown keyword", lambda lib: lib["energy"](np.zeros(3), 3, kk=1.0), "'kk'"),
    ("keyword given twice", lambda lib: lib["energy"](np.zeros(3), 3, 1.0, n=3), "'n'"),
    ("keyword missing", lambda lib: lib["energy"](np.zeros(3), k=1.0), "n"),
    ("keyword to gradient", lambda lib: lib.gradient("energy")(np.zeros(3), 3, kk=1.0),
     "'kk'"),
    ("keyword to autodiff", lambda lib: lib.autodiff("energy", np.zeros(3), 3, z=1.0), "'z'"),
    ("seed is a string", lambda lib: lib.autodiff("energy", np.zeros(3), 3, 1.0, seed="1"),
     "seed="),
    ("width is zero", lambda lib: lib.fwddiff("energy", np.zeros(3), 3, 1.0, width=0),
     "width="),
    ("wrt names nothing", lambda lib: lib.gradient("energy", wrt="q"), "'q'"),
    ("wrt is a float", lambda lib: lib.gradient("energy", wrt=1.5), "wrt"),
    ("extents name nothing", lambda lib: lib.function("energy", extents="q[n]"), "'q'"),
    ("extents use a float parameter", lambda lib: lib.function("energy", extents="x[k]"),
     "'k'"),
    ("extents unreadable", lambda lib: lib.function("energy", extents="x[n/2]"), "n/2"),
]


@pytest.mark.parametrize("what,misuse,named", MISUSES, ids=[m[0] for m in MISUSES])
def test_misuse_raises_a_located_irgrad_error(lib: irgrad.Library, what: str,
                                              misuse: Callable[[irgrad.Library], Any],
                                              named: str) -> None:
    with pytest.raises(IRGradError) as info:
        misuse(lib)
    message = str(info.value)
    assert named in message, message
    assert " object at 0x" not in message


def test_bytes_source_and_keyword_arguments(lib: irgrad.Library, tmp_path: Path) -> None:
    small = irgrad.compile(source=b"double sq(double v) { return v * v; }", language="c",
                           cache_dir=tmp_path)
    assert small["sq"](v=3.0) == 9.0
    x = np.linspace(0.1, 0.5, 4)
    assert lib["energy"](x, n=4, k=0.5) == lib["energy"](x, 4, 0.5)
    g = lib.gradient("energy")(x=x, n=4, k=0.5)
    dx = np.zeros(4)
    lib.autodiff("energy", x=Duplicated(x, dx), n=Const(4), k=Const(0.5))
    np.testing.assert_allclose(dx, g)


def test_arrays_smaller_than_their_sizes_are_refused(sizes: irgrad.Library) -> None:
    x = np.ones(3)
    with pytest.raises(UsageError, match=r"argument 1 \('x'\) of scaled_sum: an array of 3 "
                       r"element\(s\), but scaled_sum may access 300000000 element\(s\) of "
                       r"it \(x\[n\] with n = 300000000\)"):
        sizes["scaled_sum"](x, 3 * 10**8, 1.0)
    with pytest.raises(UsageError, match=r"'x'.*rosen may access 300 element.*n = 300"):
        sizes.gradient("rosen")(x, 300)
    with pytest.raises(UsageError, match=r"argument 1 \('x'\) of scaled_sum.*4 element"):
        sizes.autodiff("scaled_sum", Duplicated(x, np.zeros(3)), 4, 1.0)
    with pytest.raises(UsageError, match=r"'A'.*8 element.*A\[rows\*cols\] with rows = 2, "
                       r"cols = 4"):
        sizes["matvec"](np.ones(6), np.ones(4), np.zeros(2), 2, 4)
    with pytest.raises(UsageError, match=r"'y'.*None"):
        sizes["matvec"](np.ones(6), np.ones(3), None, 2, 3)
    # the sizes that fit run, and report the right numbers
    assert sizes["scaled_sum"](x, 3, 2.0) == 6.0
    assert sizes["scaled_sum"](x, 0, 2.0) == 0.0  # n = 0 reads nothing
    np.testing.assert_array_equal(sizes.gradient("rosen")(x, 3), np.zeros(3))
    y = np.zeros(2)
    sizes["matvec"](np.arange(6.0), np.ones(3), y, 2, 3)
    np.testing.assert_array_equal(y, [3.0, 12.0])
    assert "x: float64 array[n]" in str(sizes["scaled_sum"].signature)
    assert "A: float64 array[rows*cols]" in str(sizes["matvec"].signature)


def test_stated_extents_replace_the_analysis(sizes: irgrad.Library) -> None:
    """An index array makes the access unbounded: the user states the extent."""
    x, index = np.ones(4), np.array([0, 3, 1], dtype=np.int32)
    assert sizes["gather"](x, index, 3) == 3.0  # x[index[i]] cannot be bounded: unchecked
    gather = sizes.function("gather", extents="x[n + 1]")
    assert "x: float64 array[n + 1]" in str(gather.signature)
    with pytest.raises(UsageError, match=r"'x'.*5 element.*x\[n \+ 1\] with n = 4"):
        gather(x, np.zeros(4, dtype=np.int32), 4)
    assert gather(x, index, 3) == 3.0
