"""Recompute-or-tape decisions (issue 18, item 1) checked by their numbers.

Two mechanisms decide what the reverse pass re-reads or recomputes instead of taping:

* a load of a field of an array of structs that no store of the function can touch (a
  body's mass while positions and velocities are updated in place) is re-read: stores to
  ``b[j].vx`` are ``b + 56*k + 24`` and the load of ``b[i].mass`` is ``b + 56*k + 48``,
  which never overlap (:mod:`irgrad.analysis.strided_access`);
* a cheap value is recomputed when what it needs is already on the tape for the same
  reverse block (at most one new slot), not only when it needs at most one value.

Each decision that must NOT be taken is a program here too: a field written through a
``double *`` view of the struct array, a field written at another element's index
(``b[i + 1].m``), a union member of another type over the same bytes, a packed struct
whose stride does not separate the fields. Wrong decisions there give wrong numbers, so
every program is checked by the dot-product test at -O0..-O3, and the explain report says
which loads were re-read.
"""

from __future__ import annotations

from typing import Any

import pytest
from reverse_dot_product import check_program

import irgrad

HEADER = """
#include <math.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
#define NOINLINE __attribute__((noinline))
int N = 4, S = 3; /* trip counts the optimizer cannot fold (no full unrolling) */
"""
WRAPPER = """
void grad(const double *x, double *dx, double *y, double *dy) {
  __enzyme_autodiff((void *)F, enzyme_dup, x, dx, enzyme_dup, y, dy);
}
void primal(const double *x, double *y) { F(x, y); }
"""

NBODY = """
typedef struct { double x, y, vx, vy, m; } body;
static void step(body *b, int n, double dt) {
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y;
      double d2 = dx * dx + dy * dy + 0.01;
      double mag = dt / (d2 * sqrt(d2));
      b[i].vx -= dx * b[j].m * mag;  b[i].vy -= dy * b[j].m * mag;
      b[j].vx += dx * b[i].m * mag;  b[j].vy += dy * b[i].m * mag;
    }
  for (int i = 0; i < n; i++) { b[i].x += dt * b[i].vx; b[i].y += dt * b[i].vy; }
}
"""

LAYER = """
NOINLINE double layer(const double *w, const double *v, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += w[i] * sin(v[i]) * v[i];
  return s;
}
"""

# name -> (n inputs, m outputs, C defining `static void F(const double *x, double *y)`)
PROGRAMS: dict[str, tuple[int, int, str]] = {
    # masses are read every step and never written: re-read, not taped
    "nbody_mass_never_written": (12, 8, NBODY + """
static void F(const double *x, double *y) {
  body b[4];
  for (int i = 0; i < 4; i++)
    b[i] = (body){x[3 * i], x[3 * i + 1], 0.1 * i, -0.1 * i, 0.5 + x[3 * i + 2]};
  for (int s = 0; s < S + 2; s++) step(b, N, 0.05);
  for (int i = 0; i < 4; i++) { y[2 * i] = b[i].x; y[2 * i + 1] = b[i].vy * b[i].m; }
}"""),
    # the masses change between steps through a `double *` view of the array: the mass
    # loads of each step read what the previous step wrote, so they are taped
    "mass_written_through_double_view": (12, 8, NBODY + """
static void F(const double *x, double *y) {
  body b[4];
  for (int i = 0; i < 4; i++)
    b[i] = (body){x[3 * i], x[3 * i + 1], 0.1 * i, -0.1 * i, 0.5 + x[3 * i + 2]};
  double *raw = (double *)b;
  for (int s = 0; s < S + 2; s++) {
    step(b, N, 0.05);
    for (int k = 0; k < N; k++) raw[5 * k + 4] *= 1.0 + 0.1 * raw[5 * k + 2];
  }
  for (int i = 0; i < 4; i++) { y[2 * i] = b[i].x; y[2 * i + 1] = b[i].vy * b[i].m; }
}"""),
    # the same field at another element: b[i + 1].m is written after b[i].m is read
    "field_written_at_next_element": (6, 6, """
typedef struct { double p, m; } cell;
static void F(const double *x, double *y) {
  cell c[4];
  for (int i = 0; i < 3; i++) c[i] = (cell){x[2 * i], x[2 * i + 1]};
  c[3] = (cell){1.0, 1.0};
  for (int s = 0; s < S; s++)
    for (int i = 0; i < N - 1; i++) {
      c[i].p = c[i].p * c[i].m + sin(c[i + 1].p);
      c[i + 1].m = c[i + 1].m * 0.9 + 0.1 * c[i].p * c[i].m;
    }
  for (int i = 0; i < 3; i++) { y[2 * i] = c[i].p; y[2 * i + 1] = c[i].m; }
}"""),
    # a union: the field at offset 8 is written through the other member
    "union_member_over_the_field": (4, 4, """
typedef union { struct { double a, b; } d; double raw[2]; } slot;
static void F(const double *x, double *y) {
  slot s[2];
  for (int i = 0; i < 2; i++) { s[i].d.a = x[2 * i]; s[i].d.b = x[2 * i + 1]; }
  for (int r = 0; r < S; r++)
    for (int i = 0; i < N - 2; i++) {
      double keep = s[i].d.b;
      s[i].d.a = s[i].d.a * keep + 0.5;
      s[i].raw[1] = s[i].raw[1] * 1.5 + 0.1 * keep;  /* rewrites b */
      s[i].d.a += keep * s[i].d.b;
    }
  for (int i = 0; i < 2; i++) { y[2 * i] = s[i].d.a; y[2 * i + 1] = s[i].d.b; }
}"""),
    # a packed struct: fields at odd offsets of a 17-byte stride, one of them written
    # at the next element
    "packed_struct_fields": (6, 6, """
#pragma pack(push, 1)
typedef struct { char tag; double v; double w; } rec;
#pragma pack(pop)
static void F(const double *x, double *y) {
  rec r[3];
  for (int i = 0; i < 3; i++) { r[i].tag = (char)i; r[i].v = x[2 * i]; r[i].w = x[2 * i + 1]; }
  for (int s = 0; s < S; s++)
    for (int i = 0; i < N - 1; i++) {
      double v = r[i].v;
      r[(i + 1) % 3].w = r[(i + 1) % 3].w * (1.0 + 0.1 * v) + r[i].tag;
      r[i].v = v * cos(v) + r[i].w;
    }
  for (int i = 0; i < 3; i++) { y[2 * i] = r[i].v; y[2 * i + 1] = r[i].w; }
}"""),
    # a non-inlined callee reads weights its caller never writes again: it re-reads them
    # in its reverse (the caller passes them as not overwritten, Enzyme's uncacheable
    # arguments); the state it also reads is overwritten after each call, so it is taped
    "callee_rereads_kept_weights": (6, 3, LAYER + """
static void F(const double *x, double *y) {
  double w[3] = {x[0], x[1], x[2]}, v[3] = {x[3], x[4], x[5]};
  for (int s = 0; s < S + 1; s++) {
    double a = layer(w, v, N - 1);
    for (int i = 0; i < N - 1; i++) v[i] = v[i] * 0.5 + 0.1 * a;
  }
  y[0] = v[0]; y[1] = v[1] * v[2]; y[2] = layer(v, w, N - 1);
}"""),
    # the same callee, but the caller rewrites the weights after each call: taped
    "callee_weights_rewritten_by_caller": (6, 3, LAYER + """
static void F(const double *x, double *y) {
  double w[3] = {x[0], x[1], x[2]}, v[3] = {x[3], x[4], x[5]};
  for (int s = 0; s < S + 1; s++) {
    double a = layer(w, v, N - 1);
    for (int i = 0; i < N - 1; i++) w[i] = w[i] * cos(a) + 0.1 * v[i];
  }
  y[0] = w[0]; y[1] = v[1] * w[2]; y[2] = layer(v, w, N - 1);
}"""),
    # recomputed from values already on the tape: the squared distance and its
    # square root need the three coordinate differences, each a tape slot already
    "shared_leaves_chain": (9, 3, """
static void F(const double *x, double *y) {
  double p[9];
  memcpy(p, x, sizeof p);
  double e = 0.0;
  for (int s = 0; s < S + 1; s++)
    for (int i = 0; i < N - 1; i++) {
      int j = (i + 1) % 3;
      double dx = p[3 * i] - p[3 * j], dy = p[3 * i + 1] - p[3 * j + 1];
      double dz = p[3 * i + 2] - p[3 * j + 2];
      double d2 = dx * dx + dy * dy + dz * dz + 0.5;
      double w = 1.0 / (d2 * d2);
      e += w;
      p[3 * i] += 0.01 * dx * w; p[3 * i + 1] -= 0.01 * dy * w; p[3 * i + 2] += 0.02 * dz;
    }
  y[0] = e; y[1] = p[0] * p[4]; y[2] = p[8];
}"""),
}

@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dot_product(name: str, level: int) -> None:
    n, m, source = PROGRAMS[name]
    check_program(HEADER + source + WRAPPER, n, m, level, seed=11, label=(name, level))


# the step inlined into one combined-mode derivative (a split callee's memory may change
# before its reverse runs, unless its caller says it does not)
NBODY_SOURCE = HEADER + NBODY + """
double energy(body *b, int n, int steps) {
  for (int s = 0; s < steps; s++) step(b, n, 0.01);
  double e = 0.0;
  for (int i = 0; i < n; i++) e += b[i].m * (b[i].vx * b[i].vx + b[i].vy * b[i].vy);
  return e;
}
void grad(body *b, body *db, int n) {
  __enzyme_autodiff((void *)energy, enzyme_dup, b, db, enzyme_const, n, enzyme_const, 9);
}
"""


@pytest.mark.parametrize("level", [1, 2, 3])
def test_report_rereads_the_mass_and_tapes_the_coordinates(tmp_path: Any, level: int) -> None:
    src = tmp_path / "nbody.c"
    src.write_text(NBODY_SOURCE)
    (report,) = irgrad.explain_ad(src, opt_level=level)
    cached, _, recomputed = report.partition("recomputed in the reverse pass")
    rows = recomputed.splitlines()
    coords, mass, dist = (f"nbody.c:{_line_of(text)}:" for text in (
        "double dx = b[i].x", "b[i].vx -= dx * b[j].m", "double d2 = dx * dx"))
    # b[j]'s coordinates change in the position update, so they are taped; b[j].m is
    # re-read
    assert coords in cached and "load double" in cached, report
    at = [k for k, ln in enumerate(rows) if mass in ln and "load double" in ln]
    assert at and all("re-loaded" in rows[k + 1] for k in at), report
    assert not any(mass in ln and "load double" in ln for ln in cached.splitlines()), report
    # the squared distance is recomputed from the taped loads
    assert dist in recomputed and dist not in cached, report


def _line_of(text: str) -> int:
    return next(k for k, ln in enumerate(NBODY_SOURCE.splitlines(), 1) if text in ln)


def test_report_callee_rereads_kept_weights(tmp_path: Any) -> None:
    src = tmp_path / "layer.c"
    src.write_text(HEADER + PROGRAMS["callee_rereads_kept_weights"][2] + WRAPPER)
    reports = irgrad.explain_ad(src, opt_level=2)
    # the first call's derivative (w kept) re-reads w[i]; the tape holds only v[i]'s
    kept = [r for r in reports if " of layer " in r and "re-loaded" in r]
    assert kept, "\n".join(reports)
    line = f"layer.c:{_line_in(src, 's += w[i] * sin(v[i])')}:"
    cached = kept[0].partition("recomputed in the reverse pass")[0]
    assert sum(line in ln and "load double" in ln for ln in cached.splitlines()) == 1, kept[0]


def _line_in(path: Any, text: str) -> int:
    return next(k for k, ln in enumerate(path.read_text().splitlines(), 1) if text in ln)
