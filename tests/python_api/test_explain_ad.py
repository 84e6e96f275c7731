"""``irgrad.explain_ad``: the explain report from Python, for a C file and for IR text,
and its usage errors."""

from __future__ import annotations

from pathlib import Path

import pytest

import irgrad
from irgrad.errors import UsageError

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "explain"


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_report_of_a_c_file(level: int) -> None:
    reports = irgrad.explain_ad(GOLDEN / "explain_loops.c", opt_level=level)
    assert len(reports) == 1
    text = reports[0]
    assert text.startswith("derivative diffe_f of f (reverse, combined)")
    assert "(trip count 100), 800 bytes in all" in text
    assert "trip count known at run time" in text
    assert "explain_loops.c:18:" in text  # sin(x[i % 8]) is taped, with its line
    peak = next(line for line in text.splitlines() if "peak tape:" in line)
    assert int(peak.split("peak tape:")[1].split()[0]) >= 1600  # two 100-iteration values


def test_report_of_ir_text() -> None:
    ir_text = (GOLDEN / "explain_tape.ll").read_text()
    (text,) = irgrad.explain_ad(ir_text)
    assert "derivative diffe_prod of prod" in text
    assert "8 bytes x iterations of the loop" in text


def test_forward_mode_has_no_report() -> None:
    src = """
declare double @__enzyme_fwddiff(ptr, ...)
define double @sq(double %x) {
  %y = fmul double %x, %x
  ret double %y
}
define double @d(double %x) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @sq, double %x, double 1.0)
  ret double %r
}
"""
    assert irgrad.explain_ad(src) == []


def test_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file"):
        irgrad.explain_ad(tmp_path / "missing.c")
    with pytest.raises(UsageError, match=r"opt_level must be 0\.\.3"):
        irgrad.explain_ad(GOLDEN / "explain_loops.c", opt_level=7)
