"""Loop snapshots of fields in an array of structs (issue 18, item 1).

A particle code's pair loop reads every particle's position ``p[j].x`` in each iteration
of its outer loop, and stores the force on particle ``i`` into the same array of structs
(``p[i].fx = ...``); the positions are overwritten after the loop nest. A store to
another field cannot change ``p[j].x``, so the positions are copied once before the
outer loop (``irgrad.ad.reverse.loop_snapshots``, field-sensitive through
``MemoryWrites.may_be_written_in(size=...)``) instead of being taped once per pair.
A sweep that moves ``p[i].x`` inside the outer loop writes the field the pair loop reads:
those loads stay taped. Every program passes the dot-product test at -O0..-O3; the
explain report says which loads of the marked line (READ) were copied, and the two
fields read from one array share one copy.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from explain_lines import marked_loads, report_of
from reverse_dot_product import check_program

from irgrad.frontends.c import compile_c
from irgrad.pipeline import PipelineOptions, run_pipeline

HEADER = """
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
typedef struct { double x, y, fx, fy; } particle;
int NP = 4, STEPS = 3; /* sizes the optimizer cannot fold */
"""
DRIVER = """
void primal(const double *in, double *y) {
  particle p[4];
  memcpy(p, in, sizeof p);
  y[0] = f(p, NP, STEPS);
}
void grad(const double *in, double *din, double *y, double *dy) {
  particle p[4], dp[4];
  memcpy(p, in, sizeof p);
  memset(dp, 0, sizeof dp);
  __enzyme_autodiff((void *)f, enzyme_dup, p, dp, enzyme_const, NP, enzyme_const, STEPS);
  const double *d = (const double *)dp;
  for (int k = 0; k < 16; k++) din[k] += dy[0] * d[k];
  primal(in, y);
}
"""
PAIR_LOOP = """
      double fx = 0.0, fy = 0.0;
      for (int j = 0; j < n; j++) {
        double xj = p[j].x, yj = p[j].y; /* READ */
        double dx = xj - p[i].x, dy = yj - p[i].y;
        double w = 1.0 / (1.0 + dx * dx + dy * dy);
        fx += w * dx;
        fy += w * dy;
      }
"""
ENERGY = """
  double e = 0.0;
  for (int i = 0; i < n; i++) e += p[i].x * p[i].x + p[i].y * (1.0 + p[i].fx);
  return e;
"""

# name -> (f(particle *p, int n, int steps), are the positions read from a copy?)
PROGRAMS: dict[str, tuple[str, bool]] = {
    # forces into the same structs, positions moved after the pair loop
    "forces_then_move": ("""
static double f(particle *p, int n, int steps) {
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < n; i++) {""" + PAIR_LOOP + """
      p[i].fx = fx;
      p[i].fy = fy;
    }
    for (int i = 0; i < n; i++) {
      p[i].x += 0.1 * p[i].fx;
      p[i].y += 0.1 * p[i].fy;
    }
  }""" + ENERGY + "}", True),
    # each particle moves as soon as its force is known: the pair loop reads moved fields
    "move_in_place": ("""
static double f(particle *p, int n, int steps) {
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < n; i++) {""" + PAIR_LOOP + """
      p[i].fx = fx;
      p[i].x += 0.1 * fx;
      p[i].y += 0.1 * fy;
    }
  }""" + ENERGY + "}", False),
}


def source_of(name: str) -> str:
    return HEADER + PROGRAMS[name][0] + DRIVER


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dot_product(name: str, level: int) -> None:
    check_program(source_of(name), 16, 1, level, seed=11, label=(name, level))


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_report_field_loads(tmp_path: Any, name: str, level: int) -> None:
    text = report_of(tmp_path, source_of(name), level, "f")
    taped, rest = marked_loads(text, source_of(name), "READ")
    copied = [ln for ln, why in rest if "copy of the range" in why]
    if PROGRAMS[name][1]:
        assert len(copied) == 2 and not taped, text
    else:
        assert taped and not copied, text


def test_fields_share_one_copy(tmp_path: Path) -> None:
    src = tmp_path / "prog.c"
    src.write_text(source_of("forces_then_move"))
    module = run_pipeline(compile_c(src, opt_level=2), filename="prog",
                          options=PipelineOptions(opt_level=0))
    # each copy is one malloc (inside a loop) or one block on the tape (its offset read)
    copies = re.findall(r"%snap(?:\.at)?(?:\.ad\d+)? = (?:call ptr @malloc|load i64)",
                        str(module))
    assert len(copies) == 1, copies


@pytest.mark.parametrize("level", [1, 2, 3])
def test_report_counts_only_copies_on_the_tape(tmp_path: Path, level: int) -> None:
    """Inside the time loop the positions' copy is a malloc'd block: the report lists it
    as one and keeps it out of the peak tape; the same pair loop called once per call
    copies onto the tape, and the copy's bytes are in the peak."""
    in_loop = report_of(tmp_path, source_of("forces_then_move"), level, "f")
    assert "copy of the range read by" in in_loop, in_loop
    assert "a malloc'd block" in in_loop, in_loop
    once = source_of("forces_then_move").replace(
        "for (int s = 0; s < steps; s++) {", "{ (void)steps;", 1)
    on_tape = report_of(tmp_path, once, level, "f")
    assert "copy of the range read by" in on_tape, on_tape
    assert "a malloc'd block" not in on_tape, on_tape
    # the copy's bytes per iteration of its inner loop (one 32-byte particle) are in the
    # peak when the copy is on the tape, and only then
    def peak(report: str) -> str:
        return next(ln for ln in report.splitlines() if "peak tape" in ln)

    assert "+ 32 bytes x iterations of the loop at" in peak(on_tape), on_tape
    assert "+ 32 bytes x" not in peak(in_loop), in_loop
