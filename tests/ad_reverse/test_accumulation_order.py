"""Stencils' reverse loops vectorize whatever order the user wrote the neighbours in.

The reverse of ``w[i] = u[i-1] + u[i+1]`` adds to ``du[i+1]`` and ``du[i-1]`` in a loop
running ``i`` downward; iteration ``i`` and iteration ``i-2`` add to the same element.
When the addition that reaches an element first also comes first in the body, LLVM's
loop vectorizer may run any number of iterations at once; in the other order it is
limited to two, which on AVX hardware meant a scalar reverse loop (a Jacobi sweep's
gradient cost 4-5 times its primal). The reverse pass now orders the accumulations of a
stretch of loads itself (``irgrad.ad.reverse.accumulation_order``).

Every program (written the ways C codes write stencils: swapped buffers, a downward loop,
a walking pointer, neighbours in a struct array, an in-place sweep) passes the
dot-product test at -O0..-O3. Where the reverse loop can vectorize it is checked to do so
at AVX2 width: ``fadd reassoc nsz <4 x double>`` is an adjoint accumulation (primal code has
no ``reassoc``, and the sweeps are the programs' only loops that accumulate), and no
accumulation runs two at a time. Before the change the heat equation and the 2-D Jacobi
sweep (neighbours written left to right) had none; the smoothing written right to left
and the walking pointer had the favourable order already. (The downward sweep's reverse
runs upward and also reads the centre: LLVM's vectorizer refuses its dependences one
element apart in either order, so it is checked by its numbers only.)
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from reverse_dot_product import check_program

from warm_cli import irgrad_command

HEADER = """
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
int N = 14, STEPS = 3; /* sizes the optimizer cannot fold */
"""
DRIVER = """
void primal(const double *in, double *y) {
  double u[16];
  memcpy(u, in, sizeof u);
  y[0] = f(u, N + 2, STEPS);
}
void grad(const double *in, double *din, double *y, double *dy) {
  double u[16], du[16] = {0};
  memcpy(u, in, sizeof u);
  __enzyme_autodiff((void *)f, enzyme_dup, u, du, enzyme_const, N + 2, enzyme_const, STEPS);
  for (int k = 0; k < 16; k++) din[k] += dy[0] * du[k];
  primal(in, y);
}
"""
READOUT = """
static double readout(const double *u, int n) { return u[n / 2] * u[1] + u[n - 4]; }
"""

# name -> (f(double *u, int n, int steps) with n grid points, reverse loop vectorizes?).
# The sweeps are the programs' only loops with adjoint accumulations (the readout is a
# few loads), so a vector accumulation in the gradient is theirs.
PROGRAMS: dict[str, tuple[str, bool]] = {
    # explicit heat equation, two buffers swapped each step
    "heat_swapped": ("""
double f(double *u, int n, int steps) {
  double *a = u, *b = malloc(sizeof(double) * n), r = 0.3;
  b[0] = u[0]; b[n - 1] = u[n - 1];
  for (int s = 0; s < steps; s++) {
    for (int i = 1; i < n - 1; i++) b[i] = a[i] + r * (a[i - 1] - 2.0 * a[i] + a[i + 1]);
    double *t = a; a = b; b = t;
  }
  double m = readout(a, n);
  free(a == u ? b : a);
  return m;
}""", True),
    # three-point average, neighbours written right to left
    "smooth_right_to_left": ("""
double f(double *u, int n, int steps) {
  double *cur = u, *next = malloc(sizeof(double) * n);
  next[0] = u[0]; next[n - 1] = u[n - 1];
  for (int s = 0; s < steps; s++) {
    for (int i = 1; i < n - 1; i++) next[i] = (cur[i + 1] + cur[i] + cur[i - 1]) / 3.0;
    double *t = cur; cur = next; next = t;
  }
  double m = readout(cur, n);
  free(cur == u ? next : cur);
  return m;
}""", True),
    # the sweep runs downward: the primal stride is negative
    "downward_sweep": ("""
double f(double *u, int n, int steps) {
  double *cur = u, *next = malloc(sizeof(double) * n);
  next[0] = u[0]; next[n - 1] = u[n - 1];
  for (int s = 0; s < steps; s++) {
    for (int i = n - 2; i >= 1; i--)
      next[i] = 0.75 * cur[i - 1] + 0.5 * cur[i + 1] - 0.2 * cur[i];
    double *t = cur; cur = next; next = t;
  }
  double m = readout(cur, n);
  free(cur == u ? next : cur);
  return m;
}""", False),
    # 5-point Jacobi on a 4 x 4 grid, the neighbours left to right, buffers swapped
    "jacobi_2d": ("""
double f(double *u, int n, int steps) {
  int m = n / 4; /* 4, unknown to the compiler */
  double *cur = u, *next = malloc(sizeof(double) * n);
  for (int k = 0; k < n; k++) next[k] = u[k];
  for (int s = 0; s < steps; s++) {
    for (int i = 1; i < m - 1; i++)
      for (int j = 1; j < m - 1; j++)
        next[i * m + j] = 0.25 * (cur[(i - 1) * m + j] + cur[(i + 1) * m + j] +
                                  cur[i * m + j - 1] + cur[i * m + j + 1]);
    double *t = cur; cur = next; next = t;
  }
  double r = readout(cur, n);
  free(cur == u ? next : cur);
  return r;
}""", True),
    # walking pointers: p[-1], p[0], p[1]
    "pointer_walk": ("""
double f(double *u, int n, int steps) {
  double *cur = u, *next = malloc(sizeof(double) * n);
  next[0] = u[0]; next[n - 1] = u[n - 1];
  for (int s = 0; s < steps; s++) {
    const double *p = cur + 1;
    double *q = next + 1;
    for (int i = 1; i < n - 1; i++, p++) *q++ = p[1] - 2.0 * p[0] + 0.5 * p[-1];
    double *t = cur; cur = next; next = t;
  }
  double m = readout(cur, n);
  free(cur == u ? next : cur);
  return m;
}""", True),
    # neighbours' fields in an array of structs (pairs (x, y) over the 16 doubles)
    "struct_neighbours": ("""
typedef struct { double x, y; } pt;
double f(double *u, int n, int steps) {
  pt *p = (pt *)u;
  int m = n / 2;
  double *w = malloc(sizeof(double) * m);
  for (int s = 0; s < steps; s++) {
    for (int i = 1; i < m - 1; i++) w[i] = p[i + 1].x * p[i - 1].y + p[i].y - p[i - 1].x;
    for (int i = 1; i < m - 1; i++) p[i].x += 0.1 * w[i];
  }
  free(w);
  return readout(u, n);
}""", False),
    # Gauss-Seidel in place: the store ends each stretch of loads
    "gauss_seidel_in_place": ("""
double f(double *u, int n, int steps) {
  for (int s = 0; s < steps; s++)
    for (int i = 1; i < n - 1; i++) u[i] = 0.5 * (u[i + 1] + u[i - 1]) + 0.1 * u[i];
  return readout(u, n);
}""", False),
}


def source_of(name: str) -> str:
    return HEADER + READOUT + PROGRAMS[name][0] + DRIVER


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dot_product(name: str, level: int) -> None:
    check_program(source_of(name), 16, 1, level, seed=5, label=(name, level))


@pytest.mark.parametrize("level", ["-O2", "-O3"])
@pytest.mark.parametrize("name", sorted(n for n, (_, vec) in PROGRAMS.items() if vec))
def test_reverse_loop_vectorizes(tmp_path: Path, name: str, level: str) -> None:
    src = tmp_path / f"{name}.c"
    src.write_text(source_of(name))
    out = tmp_path / f"{name}.ll"
    done = subprocess.run(
        [*irgrad_command(), "cc", level, "-march=x86-64-v3", "-fno-unroll-loops",
         "-S", "-emit-llvm", str(src), "-o", str(out)],
        capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert "fadd reassoc nsz <4 x double>" in text, f"{name}: no accumulation at AVX2 width"
    assert "fadd reassoc nsz <2 x double>" not in text, f"{name}: accumulations 2 at a time"
