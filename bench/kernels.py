"""AD overhead on small kernels: median derivative time / primal time, one run, one table.

For each kernel (dot product, sum of sin(x)*x, matrix-vector, polynomial evaluation,
1-D stencil, running max) the primal and its derivatives are JIT-compiled and timed
through ctypes on NumPy buffers:

* ``grad``: ``__enzyme_autodiff`` (reverse mode) built the normal way: clang -O2 (no LLVM
  passes) -> irgrad pre-AD pipeline -> AD -> post-AD O2 (the paper's point);
* ``AD on unopt IR``: the same gradient differentiated before the pre-AD pipeline
  (clang -O0 without optnone, ``PipelineOptions(pre_ad=False)``, like ``irgrad opt
  --no-pre-ad``), then the same post-AD O2;
* ``tangent``: ``__enzyme_fwddiff`` in one direction of x (forward mode);
* ``8 x single`` vs ``width 8``: eight single-direction tangent calls (a loop in C) against
  one vector forward call with ``enzyme_width, 8`` (eight directions side by side).

Before timing, each kernel's derivatives are checked against each other (forward vs
reverse dot product, every lane of the width-8 call vs its single call); a mismatch stops
the run.

Run: ``.venv/bin/python bench/kernels.py [n] [--min]``: n defaults to 200000, medians of
15 calls. ``--min`` is the quick mode: n defaults to 20000, the fastest of 5 calls
(steadier on a loaded machine). Target: gradient <= 3x primal. Beside each row: the tape
bytes of one gradient call as the explain report (``--explain-ad``) predicts them.
Measures only; no test asserts on time.
"""

from __future__ import annotations

import ctypes
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from irgrad.frontends import host_flags
from irgrad.frontends.c import compile_c
from irgrad.llvm.jit import JITModule
from irgrad.pipeline import PipelineOptions, run_pipeline

HEADER = """
#include <math.h>
#include <string.h>
extern int enzyme_dup, enzyme_const, enzyme_width;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double t[8]; } tangents8;
tangents8 __enzyme_fwddiff_width8(void *, ...);
"""

# name -> C source defining `double k(const double *x, const double *y, double *w, long n)`
# (w: scratch/output of size n; y: a second input) and the gradient wrapper.
KERNELS: dict[str, str] = {
    "dot": """
double k(const double *x, const double *y, double *w, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}""",
    "sum_sin_x": """
double k(const double *x, const double *y, double *w, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) s += sin(x[i]) * x[i];
  return s;
}""",
    "matvec": """
double k(const double *x, const double *y, double *w, long n) {
  long r = 64, c = n / 64;  /* A = x viewed as r x c, vector = y[0..c) */
  double s = 0.0;
  for (long i = 0; i < r; i++) {
    double acc = 0.0;
    for (long j = 0; j < c; j++) acc += x[i * c + j] * y[j];
    s += acc * acc;
  }
  return s;
}""",
    "polynomial": """
double k(const double *x, const double *y, double *w, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) {
    double t = x[i], p = 0.0;
    for (int d = 0; d < 8; d++) p = p * t + y[d];
    s += p;
  }
  return s;
}""",
    "stencil": """
double k(const double *x, const double *y, double *w, long n) {
  for (long i = 1; i < n - 1; i++) w[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1];
  double s = 0.0;
  for (long i = 1; i < n - 1; i++) s += w[i] * w[i];
  return s;
}""",
    "running_max": """
double k(const double *x, const double *y, double *w, long n) {
  double m = x[0], s = 0.0;
  for (long i = 1; i < n; i++) { m = x[i] > m ? x[i] : m; s += m; }
  return s;
}""",
}

WRAPPER = """
void grad(const double *x, double *dx, const double *y, double *dy, double *w, double *dw,
          long n) {
  __enzyme_autodiff((void *)k, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_dup, w, dw,
                    enzyme_const, n);
}
"""

FORWARD_WRAPPERS = """
double tangent(const double *x, const double *tx, const double *y, double *w, double *tw,
               long n) {
  return __enzyme_fwddiff((void *)k, enzyme_dup, x, tx, enzyme_const, y, enzyme_dup, w, tw,
                          enzyme_const, n);
}

void tangent8(const double *x, const double *const *tx, const double *y, double *w,
              double *const *tw, long n, double *out) {
  tangents8 r = __enzyme_fwddiff_width8(
      (void *)k, enzyme_width, 8, enzyme_dup, x, tx[0], tx[1], tx[2], tx[3], tx[4], tx[5],
      tx[6], tx[7], enzyme_const, y, enzyme_dup, w, tw[0], tw[1], tw[2], tw[3], tw[4], tw[5],
      tw[6], tw[7], enzyme_const, n);
  memcpy(out, &r, sizeof r);
}

void tangent_singles8(const double *x, const double *const *tx, const double *y, double *w,
                      double *const *tw, long n, double *out) {
  for (int j = 0; j < 8; j++) out[j] = tangent(x, tx[j], y, w, tw[j], n);
}
"""


def build(name: str, ad_first: bool, reports: list[Any] | None = None) -> JITModule:
    """The kernel with its gradient (and, built the normal way, its tangents); the
    explain reports of its reverse-mode derivatives go into ``reports``."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / f"{name}.c"
        src.write_text(HEADER + KERNELS[name] + WRAPPER + ("" if ad_first else FORWARD_WRAPPERS))
        # in-process, like irgrad.compile: primal and derivatives for this machine
        bc = compile_c(src, opt_level=0 if ad_first else 2, flags=host_flags("c", []))
    opts = PipelineOptions(opt_level=2, pre_ad=not ad_first,
                           explain_sink=None if reports is None else reports.append)
    return JITModule(run_pipeline(bc, filename=name, options=opts), filename=name)


def tape_bytes(reports: list[Any], n: int) -> int:
    """The tape the explain reports predict for one gradient call, with every loop whose
    trip count is known only at run time running ``n`` times (true of these kernels)."""
    total = 0
    for r in reports:
        total += r.static_bytes()
        for loops, per_iteration in r.runtime_bytes().items():
            total += per_iteration * n ** len(loops)
    return total


def call_times(fn: object, args: tuple[object, ...], reps: int) -> list[float]:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(*args)  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return times


@dataclass
class Row:
    primal: float
    grad: float
    grad_unopt: float
    tangent: float
    single8: float
    width8: float
    tape: int  # bytes, as the explain report predicts


def _p(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


def _ptrs(arrays: list[np.ndarray]) -> ctypes.Array[ctypes.c_void_p]:
    return (ctypes.c_void_p * len(arrays))(*[a.ctypes.data for a in arrays])


def measure(name: str, n: int, reps: int = 15, stat: str = "median") -> Row:
    vp, lg, dbl = ctypes.c_void_p, ctypes.c_long, ctypes.c_double
    reports: list[Any] = []
    jit = build(name, ad_first=False, reports=reports)
    primal = jit.get("k", dbl, [vp, vp, vp, lg])
    grad = jit.get("grad", None, [vp, vp, vp, vp, vp, vp, lg])
    tangent = jit.get("tangent", dbl, [vp, vp, vp, vp, vp, lg])
    tangent8 = jit.get("tangent8", None, [vp, vp, vp, vp, vp, lg, vp])
    singles8 = jit.get("tangent_singles8", None, [vp, vp, vp, vp, vp, lg, vp])
    grad_unopt = build(name, ad_first=True).get("grad", None, [vp, vp, vp, vp, vp, vp, lg])
    rng = np.random.default_rng(0)
    x, y = rng.uniform(0.1, 1.0, n), rng.uniform(0.1, 1.0, n)
    w = np.zeros(n)
    dx, dy, dw = np.zeros(n), np.zeros(n), np.zeros(n)
    tx = [rng.standard_normal(n) for _ in range(8)]
    tw = [np.zeros(n) for _ in range(8)]
    out8 = np.zeros(8)

    # the derivatives agree before they are timed: <dk/dx, t> = tangent, lanes = singles
    grad(_p(x), _p(dx), _p(y), _p(dy), _p(w), _p(dw), n)
    singles = [tangent(_p(x), _p(t), _p(y), _p(w), _p(tw[0]), n) for t in tx]
    tangent8(_p(x), _ptrs(tx), _p(y), _p(w), _ptrs(tw), n, _p(out8))
    dx0, dy0, dw0 = np.zeros(n), np.zeros(n), np.zeros(n)
    grad_unopt(_p(x), _p(dx0), _p(y), _p(dy0), _p(w), _p(dw0), n)
    for j, t in enumerate(tx):
        ref = float(np.dot(dx, t))
        for what, got in (("tangent", singles[j]), ("width-8 lane", out8[j]),
                          ("unoptimized-IR gradient", float(np.dot(dx0, t)))):
            if not abs(got - ref) <= 1e-8 * (1.0 + abs(ref)):
                raise SystemExit(f"{name}: {what} {j} = {got!r} but <gradient, t> = {ref!r}")

    pick = statistics.median if stat == "median" else min

    def timed(fn: object, *args: object) -> float:
        return pick(call_times(fn, args, reps))

    return Row(
        primal=timed(primal, _p(x), _p(y), _p(w), n),
        grad=timed(grad, _p(x), _p(dx), _p(y), _p(dy), _p(w), _p(dw), n),
        grad_unopt=timed(grad_unopt, _p(x), _p(dx), _p(y), _p(dy), _p(w), _p(dw), n),
        tangent=timed(tangent, _p(x), _p(tx[0]), _p(y), _p(w), _p(tw[0]), n),
        single8=timed(singles8, _p(x), _ptrs(tx), _p(y), _p(w), _ptrs(tw), n, _p(out8)),
        width8=timed(tangent8, _p(x), _ptrs(tx), _p(y), _p(w), _ptrs(tw), n, _p(out8)),
        tape=tape_bytes(reports, n),
    )


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--min" in sys.argv[1:]
    stat, reps = ("min", 5) if quick else ("median", 15)
    n = int(args[0]) if args else (20_000 if quick else 200_000)
    print(f"n = {n}; {stat} of {reps} calls per cell; ratios are to the primal time; "
          "speedup = (8 single-direction tangent calls) / (one width-8 call)")
    head = (f"{'kernel':<12} {'primal ms':>9} {'grad/primal':>11} {'AD on unopt IR':>14} "
            f"{'tangent/primal':>14} {'8 x single ms':>13} {'width 8 ms':>10} "
            f"{'speedup':>7} {'tape bytes':>10}")
    print(head)
    print("-" * len(head))
    for name in KERNELS:
        r = measure(name, n, reps=reps, stat=stat)
        print(f"{name:<12} {r.primal * 1e3:9.3f} {r.grad / r.primal:11.2f} "
              f"{r.grad_unopt / r.primal:14.2f} {r.tangent / r.primal:14.2f} "
              f"{r.single8 * 1e3:13.3f} {r.width8 * 1e3:10.3f} {r.single8 / r.width8:7.2f} "
              f"{r.tape:10d}",
              flush=True)


if __name__ == "__main__":
    main()
