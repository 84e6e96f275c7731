"""Derivatives are compiled for the machine the user asked for, like their primal.

A synthesized function that lost its primal's ``"target-cpu"``/``"target-features"`` was
compiled for the build host: on an AVX-512 machine, ``irgrad cc`` without ``-march`` put
512-bit instructions into the derivatives (and only there), so the binary stopped with an
illegal instruction on an older CPU. Every function of the output, derivatives, augmented
primals, reverse passes and irgrad's helpers alike, carries the target the user chose, and
the code of a baseline x86-64 build uses no AVX register. The gradients are checked
against finite differences at each level.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from irgrad import ir

# Reverse mode through a stencil sweep (combined), a recursive product (the derivative
# stays a function of its own), a right-hand side behind a function pointer (split mode,
# augmented primal + reverse) and a tangent; main checks each against central differences.
PROGRAM = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef void (*rhs_fn)(const double *y, double *dy, int n);
static void decay(const double *y, double *dy, int n) {
  for (int i = 0; i < n; i++) dy[i] = -y[i] * y[(i + 1) % n];
}

static double power(const double *x, int k) { return k == 0 ? 1.0 : x[k % 3] * power(x, k - 1); }

double objective(double *u, int n, int sweeps, rhs_fn rhs) {
  double *next = malloc(sizeof(double) * n), *dy = malloc(sizeof(double) * n);
  memcpy(next, u, sizeof(double) * n);
  for (int s = 0; s < sweeps; s++) {
    for (int i = 1; i < n - 1; i++) next[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
    rhs(next, dy, n);
    for (int i = 0; i < n; i++) u[i] = next[i] + 0.01 * dy[i];
  }
  double m = power(u, 7);
  for (int i = 0; i < n; i++) m += sin(u[i]) * u[i];
  free(next);
  free(dy);
  return m;
}

#define N 40
static volatile rhs_fn RHS = decay;
static double eval(const double *x) {
  double u[N];
  memcpy(u, x, sizeof u);
  return objective(u, N, 6, RHS);
}

int main(void) {
  double x[N], u[N], du[N] = {0}, t[N], work[N];
  for (int i = 0; i < N; i++) x[i] = 0.5 + 0.3 * sin(1.7 * i);
  memcpy(u, x, sizeof u);
  __enzyme_autodiff((void *)objective, enzyme_dup, u, du, enzyme_const, N, enzyme_const, 6,
                    enzyme_const, RHS);
  double err = 0.0, dot = 0.0;
  for (int i = 0; i < N; i++) {
    double h = 1e-6, p, m;
    memcpy(work, x, sizeof work); work[i] += h; p = eval(work);
    memcpy(work, x, sizeof work); work[i] -= h; m = eval(work);
    double fd = (p - m) / (2 * h);
    err = fmax(err, fabs(fd - du[i]) / fmax(1.0, fabs(fd)));
    t[i] = cos(0.3 * i);
    dot += du[i] * t[i];
  }
  memcpy(u, x, sizeof u);
  double tan = __enzyme_fwddiff((void *)objective, enzyme_dup, u, t, enzyme_const, N,
                                enzyme_const, 6, enzyme_const, RHS);
  printf("%.3e %.3e\n", err, fabs(tan - dot) / fmax(1.0, fabs(dot)));
  return 0;
}
"""
AVX_REGISTER = re.compile(r"%[yz]mm\d+")


def _objdump() -> str:
    for name in ("llvm-objdump-22", "llvm-objdump", "objdump"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("no objdump on PATH (scripts/setup.sh installs LLVM 22's llvm-objdump)")


@pytest.mark.parametrize("level", ["-O0", "-O1", "-O2", "-O3"])
def test_gradients_of_baseline_build_use_no_avx(tmp_path, irgrad, level) -> None:
    (tmp_path / "prog.c").write_text(PROGRAM)
    built = irgrad("cc", level, "-march=x86-64", "prog.c", "-o", "prog", "-lm")
    assert built.returncode == 0, built.stderr.decode()
    out = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True,
                         check=True, timeout=60).stdout.split()
    assert float(out[0]) < 1e-6, f"gradient vs finite differences: {out[0]}"
    assert float(out[1]) < 1e-10, f"tangent vs gradient (dot-product test): {out[1]}"
    asm = subprocess.run([_objdump(), "-d", "--no-show-raw-insn", str(tmp_path / "prog")],
                         capture_output=True, text=True, check=True).stdout
    functions = re.split(r"\n(?=[0-9a-f]+ <)", asm)
    wide = [f.split("\n", 1)[0] for f in functions
            if AVX_REGISTER.search(f) and re.search(r"<(diffe|augmented|reverse|fwddiffe)", f)]
    assert not wide, f"derivatives use AVX registers in a baseline x86-64 build: {wide}"


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_every_function_carries_the_users_target(tmp_path, irgrad, level) -> None:
    (tmp_path / "prog.c").write_text(PROGRAM)
    built = irgrad("cc", level, "-march=x86-64-v2", "-fno-omit-frame-pointer", "-S",
                   "-emit-llvm", "prog.c", "-o", "prog.ll")
    assert built.returncode == 0, built.stderr.decode()
    module = ir.parse_module((tmp_path / "prog.ll").read_text())
    derived = [f for f in module.functions if not f.is_declaration
               and f.name.startswith(("diffe", "augmented", "reverse", "fwddiffe"))]
    assert derived, "no derivative function kept out of line (the test lost its subject)"
    for fn in module.functions:
        if fn.is_declaration:
            continue
        attrs = fn.attribute_texts()
        assert '"target-cpu"="x86-64-v2"' in attrs, f"{fn.name}: {attrs}"
        assert any(a.startswith('"target-features"=') for a in attrs), f"{fn.name}: {attrs}"
        assert '"frame-pointer"="all"' in attrs, f"{fn.name}: {attrs}"
