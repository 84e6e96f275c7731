"""Updates in place of the caller's data: their reverse leaves no reload-and-store behind.

``b[i].vx -= dx * m * mag`` inside a pair loop (n-body codes), ``acc[k] += x[j] * w`` into
an output the caller passed: the reverse of such an update leaves the adjoint of
``b[i].vx`` as it was, and the reverse pass writes it as "reset the shadow, then add the
adjoint of the old value back". The caller's shadows are reset to +0.0, which is not the
identity of IEEE addition (-0.0 + +0.0 is +0.0), so without ``nsz`` on the add LLVM had to
keep ``dvx = dvx + 0.0``: a load and a store of the same shadow in every iteration of the
reverse loop, each iteration waiting on the previous one's store. Adds into shadow memory
now carry ``nsz`` (the sign of a zero derivative means nothing), the add folds, and the
store of the reloaded value goes away.

Every program passes the dot-product test at -O0..-O3 (the second accumulates into an
output the caller passed and reads it back); at -O2 the n-body gradient keeps no add of
+0.0 (``fadd ... 0.000000e+00``: a kept reset-and-add), where it kept two before.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from reverse_dot_product import check_program

from warm_cli import irgrad_command

HEADER = """
#include <math.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
int NB = 3, STEPS = 3; /* sizes the optimizer cannot fold */
"""

# name -> (source defining primal(x, y) and grad(x, dx, y, dy), number of inputs x)
PROGRAMS: dict[str, tuple[str, int]] = {
    # n-body pair loop over an array of structs, velocities and positions updated in place
    "pair_forces_in_struct_array": ("""
typedef struct { double x, y, z, vx, vy, vz, mass; } body;
static double simulate(body *b, int nb, int steps) {
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < nb; i++)
      for (int j = i + 1; j < nb; j++) {
        double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;
        double d2 = dx * dx + dy * dy + dz * dz;
        double mag = 0.01 / (d2 * sqrt(d2));
        b[i].vx -= dx * b[j].mass * mag;
        b[i].vy -= dy * b[j].mass * mag;
        b[i].vz -= dz * b[j].mass * mag;
        b[j].vx += dx * b[i].mass * mag;
        b[j].vy += dy * b[i].mass * mag;
        b[j].vz += dz * b[i].mass * mag;
      }
    for (int i = 0; i < nb; i++) {
      b[i].x += 0.01 * b[i].vx;
      b[i].y += 0.01 * b[i].vy;
      b[i].z += 0.01 * b[i].vz;
    }
  }
  double e = 0.0;
  for (int i = 0; i < nb; i++)
    e += 0.5 * b[i].mass * (b[i].vx * b[i].vx + b[i].vy * b[i].vy + b[i].vz * b[i].vz);
  return e;
}
void primal(const double *in, double *y) {
  body b[3];
  for (int k = 0; k < 21; k++) ((double *)b)[k] = in[k];
  y[0] = simulate(b, NB, STEPS);
}
void grad(const double *in, double *din, double *y, double *dy) {
  body b[3], db[3] = {{0}};
  for (int k = 0; k < 21; k++) ((double *)b)[k] = in[k];
  __enzyme_autodiff((void *)simulate, enzyme_dup, b, db, enzyme_const, NB, enzyme_const, STEPS);
  for (int k = 0; k < 21; k++) din[k] += dy[0] * ((double *)db)[k];
  primal(in, y);
}
""", 21),
    # sums accumulated into the caller's output array inside a loop nest
    "accumulate_into_caller_output": ("""
static void moments(const double *x, double *acc, int n) {
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < n; j++) acc[k] += pow(x[j], k + 1) * (1.0 + 0.1 * k);
}
static double f(const double *x, double *acc, int n) {
  moments(x, acc, n);
  return acc[0] * acc[1] - acc[2];
}
void primal(const double *in, double *y) {
  double acc[3] = {0.5, 0.25, 0.125};
  y[0] = f(in, acc, NB * 5 + 1);
}
void grad(const double *in, double *din, double *y, double *dy) {
  double acc[3] = {0.5, 0.25, 0.125}, dacc[3] = {0};
  double dx[16] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, in, dx, enzyme_dup, acc, dacc, enzyme_const,
                    NB * 5 + 1);
  for (int k = 0; k < 16; k++) din[k] += dy[0] * dx[k];
  primal(in, y);
}
""", 16),
}


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dot_product(name: str, level: int) -> None:
    source, n_in = PROGRAMS[name]
    check_program(HEADER + source, n_in, 1, level, seed=11, label=(name, level))


@pytest.mark.parametrize("name", ["pair_forces_in_struct_array"])
def test_no_reset_and_add_is_kept(tmp_path: Path, name: str) -> None:
    src = tmp_path / f"{name}.c"
    src.write_text(HEADER + PROGRAMS[name][0])
    out = tmp_path / f"{name}.ll"
    done = subprocess.run([*irgrad_command(), "cc", "-O2", "-S", "-emit-llvm", str(src), "-o",
                           str(out)], capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert "define dso_local void @grad(" in text, "no gradient"
    kept = [line.strip() for line in text.splitlines()
            if re.search(r"= fadd .*, 0\.000000e\+00$", line)]
    assert not kept, f"{name}: reset-and-add kept: {kept}"
