"""Type analysis keeps no type beyond the end of a stack object of constant size: a
``std::string`` on the stack points at its own inline buffer, and each fixed-point step
fed the object's types back into it a few bytes further on. A ``std::map<std::string,
double>`` built from an initializer list grew trees of thousands of entries and took
over three minutes in one function's analysis (now about a second for the whole
program)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from irgrad.analysis.type_tree import DOUBLE, INTEGER, POINTER, TypeTree
from warm_cli import irgrad_command

PROGRAM = r"""
#include <map>
#include <string>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void*, ...);
double f(const double* p, int n) {
  std::map<std::string, double> coef{{"slope", p[0]}, {"intercept", p[1]}};
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += coef["slope"] * i + coef.at("intercept");
  return s * s;
}
int main() {
  double p[2] = {0.5, 0.1}, dp[2] = {0, 0};
  __enzyme_autodiff((void*)f, enzyme_dup, p, dp, enzyme_const, 4);
}
"""


def test_within_drops_only_entries_beyond_the_object() -> None:
    t = TypeTree({(-1,): POINTER, (-1, 0): POINTER, (-1, 8): INTEGER, (-1, 80): DOUBLE,
                  (-1, -1, 0): INTEGER, (-1, 16, 200): DOUBLE})
    kept = t.within(80)
    assert dict(kept.items()) == {(-1,): POINTER, (-1, 0): POINTER, (-1, 8): INTEGER,
                                  (-1, -1, 0): INTEGER, (-1, 16, 200): DOUBLE}
    assert t.within(81) is t


def test_stack_objects_keep_their_types_in_bounds(tmp_path: Path) -> None:
    src = tmp_path / "coef.cpp"
    src.write_text(PROGRAM)
    ll = tmp_path / "coef.ll"
    cc = subprocess.run(["clang++-22", "-S", "-emit-llvm", "-O1", "-Xclang",
                         "-disable-llvm-passes", "-fno-discard-value-names", str(src), "-o",
                         str(ll)], capture_output=True, text=True, timeout=120)
    assert cc.returncode == 0, cc.stderr
    run = subprocess.run([*irgrad_command(), "opt", str(ll), "--print-type-analysis",
                          "_Z1fPKdi", "-o", str(tmp_path / "out.bc")],
                         capture_output=True, text=True, timeout=120)
    line = next((ln for ln in run.stdout.splitlines()
                 if ln.strip().startswith("%ref.tmp = alloca [2 x")), None)
    assert line is not None, run.stdout[-2000:] + run.stderr[-2000:]
    # two pairs of (std::string, double): 80 bytes, the second string's double at 72
    offsets = [int(m) for m in re.findall(r"\[-1,(\d+)", line)]
    assert offsets and max(offsets) < 80, line[:3000]
    assert "[-1,72]:Float@double" in line, line[:3000]
