"""Loads re-read in the reverse pass because no later write can have their type (issue 18,
item 1): strict aliasing, read from clang's TBAA tags the way LLVM's own passes read them.

Mesh codes read connectivity (``int`` node lists, element-to-node maps) through pointers
kept in a struct, and then update ``double`` fields through other pointers of the same
struct. Without types, every ``double`` store may overwrite the ``int`` lists, so each
index was taped once per use; with them, the indices are re-read. The rule must not
fire where a write of the same type (an ``int`` permutation updated in the loop), a
``char`` view or an untyped copy can reach the list, and the gradient must be right in
every case: each program is checked by the dot-product test at -O0..-O3 (at -O0 clang
emits no TBAA, so nothing changes there), and the explain report says which index
loads were re-read.
"""

from __future__ import annotations

from typing import Any

import pytest
from explain_lines import marked_loads, report_of
from reverse_dot_product import check_program

HEADER = """
#include <math.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
int N = 6, CYCLES = 3; /* trip counts the optimizer cannot fold */
typedef struct { int n; int *elem_nodes; double *x; double *f; } mesh;
"""
# ``run`` is differentiated itself (combined mode), so inside it every array is reached
# through a pointer loaded from the mesh: nothing but types tells them apart
DRIVER = """
static void run(mesh *m, double *y) {
  for (int c = 0; c < CYCLES; c++) cycle(m);
  for (int k = 0; k < 6; k++) y[k] = m->x[k] * m->x[(k + 1) % 6];
}
static void setup(int *nodes, double *pos, const double *x) {
  for (int k = 0; k < 6; k++) {
    pos[k] = x[k];
    for (int a = 0; a < 4; a++) nodes[4 * k + a] = (k + a * a) % 6;
  }
}
void grad(const double *x, double *dx, double *y, double *dy) {
  int nodes[4 * 6];
  double pos[6], f[6], dpos[6] = {0}, df[6] = {0};
  setup(nodes, pos, x);
  mesh m = {N, nodes, pos, f}, dm = {N, nodes, dpos, df};
  __enzyme_autodiff((void *)run, enzyme_dup, &m, &dm, enzyme_dup, y, dy);
  for (int k = 0; k < 6; k++) dx[k] += dpos[k];
}
void primal(const double *x, double *y) {
  int nodes[4 * 6];
  double pos[6], f[6];
  setup(nodes, pos, x);
  mesh m = {N, nodes, pos, f};
  run(&m, y);
}
"""

# name -> (C defining `static void cycle(mesh *m)`, is the index load re-read at -O1+)
PROGRAMS: dict[str, tuple[str, bool]] = {
    # doubles written, ints only read: the node indices are re-read
    "gather_scatter": ("""
static inline void cycle(mesh *m) {
  for (int k = 0; k < m->n; k++) {
    double s = 0.0;
    for (int a = 0; a < 4; a++) s += m->x[m->elem_nodes[4 * k + a]] * m->x[k];
    m->f[k] = s;
  }
  for (int k = 0; k < m->n; k++) m->x[k] += 0.05 * m->f[k] * m->f[k];
}""", True),
    # the connectivity is renumbered (an int store through the same kind of pointer)
    # after the gather: the indices read before it are taped
    "renumbered_nodes": ("""
static inline void cycle(mesh *m) {
  for (int k = 0; k < m->n; k++) {
    double s = 0.0;
    for (int a = 0; a < 4; a++) s += m->x[m->elem_nodes[4 * k + a]] * m->x[k];
    m->f[k] = s;
  }
  for (int k = 0; k < 4 * m->n; k++) m->elem_nodes[k] = (m->elem_nodes[k] + 1) % m->n;
  for (int k = 0; k < m->n; k++) m->x[k] += 0.05 * m->f[k] * m->f[k];
}""", False),
    # the same bytes written through a char view (char aliases every type)
    "char_view_write": ("""
static inline void cycle(mesh *m) {
  for (int k = 0; k < m->n; k++) {
    double s = 0.0;
    for (int a = 0; a < 4; a++) s += m->x[m->elem_nodes[4 * k + a]] * m->x[k];
    m->f[k] = s;
  }
  unsigned char *raw = (unsigned char *)m->elem_nodes;
  for (int k = 0; k < 4 * m->n; k++) raw[4 * k] = (unsigned char)((raw[4 * k] + 1) % m->n);
  for (int k = 0; k < m->n; k++) m->x[k] += 0.05 * m->f[k] * m->f[k];
}""", False),
    # the list rotated with memmove (an untyped copy)
    "memmove_rotation": ("""
static inline void cycle(mesh *m) {
  for (int k = 0; k < m->n; k++) {
    double s = 0.0;
    for (int a = 0; a < 4; a++) s += m->x[m->elem_nodes[4 * k + a]] * m->x[k];
    m->f[k] = s;
  }
  int first[4];
  memcpy(first, m->elem_nodes, sizeof first);
  memmove(m->elem_nodes, m->elem_nodes + 4, sizeof(int) * 4 * (m->n - 1));
  memcpy(m->elem_nodes + 4 * (m->n - 1), first, sizeof first);
  for (int k = 0; k < m->n; k++) m->x[k] += 0.05 * m->f[k] * m->f[k];
}""", False),
}


def source_of(name: str) -> str:
    return HEADER + PROGRAMS[name][0] + DRIVER


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dot_product(name: str, level: int) -> None:
    check_program(source_of(name), 6, 6, level, seed=7, label=(name, level))


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_report_index_loads(tmp_path: Any, name: str, level: int) -> None:
    text = report_of(tmp_path, source_of(name), level, "run")
    assert text.count(" of run (") == 1, text
    taped, reread = marked_loads(text, source_of(name), "m->x[m->elem_nodes[4 * k + a]]",
                                 kind="load i32")
    if PROGRAMS[name][1]:
        assert reread and not taped, text
    else:
        assert taped and not reread, text
