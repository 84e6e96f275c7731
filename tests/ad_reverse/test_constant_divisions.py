"""Integer divisions and remainders by a constant are recomputed in the reverse pass,
not taped (issue 18, item 1): ``x[i % 3]``, ``x[i / 2]`` and periodic indices need their
index again to update the adjoint, and the index was taped once per iteration because a
division may trap. By a constant other than 0 (and -1, signed) it cannot, and it costs a
multiply and shifts. Checked by the dot-product test at -O0..-O3 and by the explain
report at -O1..-O3 (no division or remainder on the tape).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from reverse_dot_product import check_program

import irgrad

SOURCE = """
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
int N = 11; /* a trip count the optimizer cannot fold */
static void f(const double *x, double *y) {
  double s = 0.0, t = 1.0;
  for (int i = 0; i < N; i++) {
    s += x[i % 3] * x[(i / 2) % 6] * (1.0 + i);
    t *= 1.0 + 0.1 * x[5 - (i * 7) % 6];
  }
  y[0] = s;
  y[1] = t;
}
void grad(const double *x, double *dx, double *y, double *dy) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy);
}
void primal(const double *x, double *y) { f(x, y); }
"""


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_dot_product(level: int) -> None:
    check_program(SOURCE, 6, 2, level, seed=4, label=("constant_divisions", level))


@pytest.mark.parametrize("level", [1, 2, 3])
def test_report_no_division_taped(tmp_path: Any, level: int) -> None:
    src = tmp_path / "prog.c"
    src.write_text(SOURCE)
    text = "\n".join(irgrad.explain_ad(src, opt_level=level))
    cached, _, recomputed = text.partition("recomputed in the reverse pass")
    division = re.compile(r"= (udiv|sdiv|urem|srem) ")
    assert not [ln for ln in cached.splitlines() if division.search(ln)], text
    assert [ln for ln in recomputed.splitlines() if division.search(ln)], text
