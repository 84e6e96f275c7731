"""Bad input to the Python API: clear irgrad.errors exceptions naming what was expected."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pyapi_helpers import C_KERNELS

import irgrad
from irgrad import Active, Const, Duplicated
from irgrad.errors import DifferentiationError, LLVMError, ToolchainError, UsageError


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> irgrad.Library:
    return irgrad.compile(source=C_KERNELS, language="c", cache_dir=tmp_path_factory.mktemp("c"))


def test_wrong_dtype(lib: irgrad.Library) -> None:
    with pytest.raises(UsageError, match=r"argument 1 \('x'\) of energy: expected a float64 array"):
        lib["energy"](np.zeros(3, dtype=np.float32), 3, 1.0)
    with pytest.raises(UsageError, match=r"expected a float32 array.*got a float64 array"):
        lib["fsum"](np.zeros(3), 3, 1.0)
    with pytest.raises(UsageError, match=r"shadow of argument 1 \('x'\).*float64 array"):
        lib.autodiff("energy", Duplicated(np.zeros(3), np.zeros(3, dtype=np.int64)), 3, 1.0)
    with pytest.raises(UsageError, match=r"argument 2 \('n'\) of energy: expected an integer"):
        lib["energy"](np.zeros(3), 3.0, 1.0)
    with pytest.raises(UsageError, match=r"argument 3 \('k'\) of energy: expected a real number"):
        lib["energy"](np.zeros(3), 3, "1.0")
    with pytest.raises(UsageError, match=r"expected a scalar.*shape"):
        lib["energy"](np.zeros(3), 3, np.ones(2))
    with pytest.raises(UsageError, match="does not fit in int32"):
        lib["energy"](np.zeros(3), 2**40, 1.0)
    with pytest.raises(UsageError, match="expected a NumPy array of float64, got list"):
        lib["energy"]([1.0, 2.0], 2, 1.0)


def test_wrong_shape_and_layout(lib: irgrad.Library) -> None:
    x = np.zeros(4)
    with pytest.raises(UsageError, match=r"shape \(3,\) does not match the argument's shape \(4,\)"):
        lib.autodiff("energy", Duplicated(x, np.zeros(3)), 4, 1.0)
    with pytest.raises(UsageError, match="C-contiguous"):
        lib["energy"](np.zeros(8)[::2], 4, 1.0)
    readonly = np.zeros(4)
    readonly.flags.writeable = False
    with pytest.raises(UsageError, match="writeable"):
        lib.autodiff("energy", Duplicated(x, readonly), 4, 1.0)


def test_wrong_count(lib: irgrad.Library) -> None:
    with pytest.raises(UsageError, match=r"energy takes 3 argument\(s\) \(x, n, k\), 2 given"):
        lib["energy"](np.zeros(3), 3)
    with pytest.raises(UsageError, match="takes 3 argument"):
        lib.autodiff("energy", np.zeros(3), 3, 1.0, 2.0)
    with pytest.raises(UsageError, match="takes 3 argument"):
        lib.gradient("energy")(np.zeros(3))
    with pytest.raises(UsageError, match=r"2 tangent\(s\) expected"):
        lib.jvp("energy", wrt=(0, 2))(np.zeros(3), 3, 1.0, np.ones(3))


def test_wrong_activity(lib: irgrad.Library) -> None:
    x = np.ones(3)
    with pytest.raises(UsageError, match="integer cannot be differentiated"):
        lib.autodiff("energy", x, Active(3), 1.0)
    with pytest.raises(UsageError, match="Active is not valid in forward mode"):
        lib.fwddiff("energy", x, 3, Active(1.0))
    with pytest.raises(UsageError, match="in reverse mode a floating-point scalar is Active"):
        lib.autodiff("energy", x, 3, Duplicated(1.0, 1.0))
    with pytest.raises(UsageError, match="Active is for floating-point scalars"):
        lib.fwddiff("energy", Active(x), 3, 1.0)
    with pytest.raises(UsageError, match="pass a value"):
        lib.autodiff("energy", Duplicated, 3, 1.0)
    with pytest.raises(UsageError, match="adds into the shadow, so it must be an array"):
        lib.autodiff("energy", Duplicated(x, None), 3, Const(1.0))
    with pytest.raises(UsageError, match="a shadow array is required"):
        lib.fwddiff("energy", Duplicated(x, None), 3, Const(1.0))
    with pytest.raises(UsageError, match="returns i64, not a float"):
        lib.gradient("count_positive")
    with pytest.raises(UsageError, match=r"returns void.*outputs="):
        lib.vjp("rhs", wrt=1)
    with pytest.raises(UsageError, match="both in wrt and in outputs"):
        lib.vjp("rhs", wrt=0, outputs=0)
    y = np.zeros(3)
    with pytest.raises(UsageError, match=r"cotangent of 'y' has shape \(2,\), the output \(3,\)"):
        lib.vjp("rhs", wrt=1, outputs=0)(y, x, x, 3, np.ones(2))
    with pytest.raises(UsageError, match=r"shape \(2,\) does not match the argument's shape \(3,\)"):
        lib.jvp("rhs", wrt=1, outputs=0)(y, x, x, 3, np.ones(2))
    with pytest.raises(UsageError, match="no parameter of that name"):
        lib.gradient("energy", wrt="nope")


def test_unknown_names_and_bad_compile_arguments(lib: irgrad.Library, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no function 'nope' in the library"):
        lib["nope"]
    with pytest.raises(AttributeError, match="no function 'nope'"):
        _ = lib.nope
    with pytest.raises(UsageError, match="unknown language 'cobol'"):
        irgrad.compile(source="x", language="cobol")
    with pytest.raises(UsageError, match="needs language="):
        irgrad.compile(source="double f(double x) { return x; }")
    with pytest.raises(UsageError, match="exactly one"):
        irgrad.compile()
    with pytest.raises(UsageError, match="no such file"):
        irgrad.compile(tmp_path / "missing.c")
    with pytest.raises(UsageError, match=r"no such file.*pass source=\.\.\., language="):
        irgrad.compile("double f(double x) { return x; }")
    with pytest.raises(UsageError, match=r"opt_level must be 0\.\.3"):
        irgrad.compile(source="", language="c", opt_level=4)


def test_compile_errors_are_reported(tmp_path: Path) -> None:
    with pytest.raises(ToolchainError, match="error: "):
        irgrad.compile(source="double f(double x) { return y; }", language="c", cache_dir=tmp_path)
    # a function nothing defines: loading fails with a clear error, and what cannot be
    # differentiated is an error when the derivative is asked for
    lib = irgrad.compile(source="double h(double x) { double ext(double); return ext(x); }",
                         language="c", cache_dir=tmp_path)  # fmt: skip
    with pytest.raises(LLVMError, match="undefined symbol: ext"):
        lib["h"]
    with pytest.raises(DifferentiationError, match="No derivative found for ext"):
        lib.autodiff("h", 2.0)
    hidden = irgrad.compile(source="static double sq(double x) { return x * x; }\n"
                            "double twice(double x) { return 2 * sq(x); }",
                            language="c", opt_level=0, cache_dir=tmp_path)  # fmt: skip
    with pytest.raises(UsageError, match=r"'sq' has internal linkage \(static\)"):
        hidden["sq"]
    assert hidden.autodiff("twice", 3.0) == (12.0,)
    assert "twice" in dir(hidden) and "sq" not in dir(hidden)


def test_integer_arrays_are_not_differentiated(tmp_path: Path) -> None:
    lib = irgrad.compile(source="double pick(const int *idx, const double *x) { return x[idx[0]]; }",
                         language="c", cache_dir=tmp_path)  # fmt: skip
    idx, x = np.array([1], dtype=np.int32), np.array([3.0, 4.0])
    with pytest.raises(UsageError, match=r"'idx'.*int32 array \(ptr\).*integer cannot be differentiated"):
        lib.autodiff("pick", Duplicated(idx, np.zeros(1, dtype=np.int32)), x)
    np.testing.assert_array_equal(lib.gradient("pick", wrt="x")(idx, x), [0.0, 1.0])
