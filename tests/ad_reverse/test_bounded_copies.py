"""Copies of run-time length over bytes that carry no derivative, followed in the same
object by floating-point values and pointers: a name copied into a record (a
``std::string``'s inline buffer in a ``std::map<std::string, double>`` node is the case
that needs it; tests/ad_cxx/map_string_parameters.cpp is its numeric check).

Type analysis cannot bound the length, so the derivative checks it at run time: a copy
within the leading bytes moves no derivative, and one that goes beyond them (here a
run-time number of whole records) stops with the located ``Cannot deduce type`` message
-- never a silently wrong derivative.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from warm_cli import irgrad_command

RECORDS = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

struct term { char label[16]; double *coef; double weight; };

/* a term labelled at run time (label length from the caller), weighted by its data */
__attribute__((noinline)) double labelled_energy(struct term *t, const double *x,
                                                 const char *label, long nrec) {
  size_t len = strlen(label) + 1;
  memcpy(t[0].label, label, len);                       /* NAME-LINE */
  if (nrec > 1) memcpy(&t[1], &t[0], (size_t)(nrec - 1) * sizeof *t);  /* REC-LINE */
  t[0].weight = x[0] * x[1];
  double e = 0.0;
  for (int k = 0; k < 3; k++) e += t[0].weight * t[0].coef[k] * x[k];
  return e + (double)t[0].label[0];
}

int main(int argc, char **argv) {
  (void)argv;
  long nrec = argc;  /* 1 unless the test passes arguments */
  double coef[3] = {0.5, -1.0, 2.0}, dcoef[3] = {0};
  struct term t[2], dt[2];
  memset(t, 0, sizeof t);
  memset(dt, 0, sizeof dt);
  t[0].coef = coef; dt[0].coef = dcoef;
  double x[3] = {1.5, -0.5, 2.0}, dx[3] = {0};
  __enzyme_autodiff((void *)labelled_energy, enzyme_dup, t, dt, enzyme_dup, x, dx,
                    enzyme_const, "stiffness", enzyme_const, nrec);
  /* e = x0 x1 (0.5 x0 - x1 + 2 x2) + 's' */
  double want0 = x[1] * (0.5 * x[0] - x[1] + 2 * x[2]) + x[0] * x[1] * 0.5;
  double want1 = x[0] * (0.5 * x[0] - x[1] + 2 * x[2]) - x[0] * x[1];
  double want2 = 2 * x[0] * x[1];
  int ok = fabs(dx[0] - want0) < 1e-12 && fabs(dx[1] - want1) < 1e-12 &&
           fabs(dx[2] - want2) < 1e-12 && fabs(dcoef[0] - x[0] * x[1] * x[0]) < 1e-12;
  printf("%s dx = %g %g %g\n", ok ? "OK" : "WRONG", dx[0], dx[1], dx[2]);
  return !ok;
}
"""


def _build(tmp_path: Path, level: str) -> Path:
    src = tmp_path / "records.c"
    src.write_text(RECORDS)
    exe = tmp_path / "records"
    cc = subprocess.run([*irgrad_command(), "cc", f"-{level}", "-g", str(src), "-o",
                         str(exe), "-lm"], capture_output=True, text=True, timeout=300,
                        check=False)
    assert cc.returncode == 0, cc.stderr[-3000:]
    return exe


def _line(marker: str) -> int:
    return next(k for k, text in enumerate(RECORDS.splitlines(), 1) if marker in text)


@pytest.mark.parametrize("level", ["O0", "O1", "O2", "O3"])
def test_copy_within_leading_bytes_moves_no_derivative(level: str, tmp_path: Path) -> None:
    exe = _build(tmp_path, level)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0 and run.stdout.startswith("OK"), run.stdout + run.stderr


@pytest.mark.parametrize("level", ["O0", "O2"])
def test_copy_beyond_leading_bytes_stops_at_run_time(level: str, tmp_path: Path) -> None:
    exe = _build(tmp_path, level)
    run = subprocess.run([str(exe), "two-records"], capture_output=True, text=True,
                         timeout=60, check=False)
    assert run.returncode != 0, run.stdout  # never prints a (wrong) gradient
    assert "dx =" not in run.stdout
    assert f"records.c:{_line('REC-LINE')}:" in run.stderr, run.stderr
    assert "Cannot deduce type of the data copied by memcpy/memmove" in run.stderr
    assert "copied more than the 16 bytes" in run.stderr
    assert " object at 0x" not in run.stderr
