"""Reverse-mode overhead on small kernels: median gradient time / primal time.

For each kernel (dot product, sum of sin(x)*x, matrix-vector, polynomial evaluation,
1-D stencil, running max) the primal and ``__enzyme_autodiff`` gradient are JIT-compiled
two ways and timed through ctypes on NumPy buffers:

* ``opt-then-AD``: clang -O2 (no LLVM passes) -> irgrad pre-AD pipeline -> AD -> post-AD O2
  (irgrad's default, the paper's point);
* ``AD-then-opt``: clang -O0 (no optnone) -> AD on the unoptimized IR -> post-AD O2.

Run: ``.venv/bin/python bench/kernels.py [n] [--min]`` (n defaults to 200000; ``--min``
reports the fastest of the calls instead of the median, steadier on a loaded machine).
Target: gradient <= 3x primal. Measures only; no test asserts on time.
"""

from __future__ import annotations

import ctypes
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from irgrad.frontends.c import compile_c
from irgrad.llvm.jit import JITModule
from irgrad.pipeline import PipelineOptions, run_pipeline

HEADER = """
#include <math.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
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


def build(name: str, ad_first: bool) -> JITModule:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / f"{name}.c"
        src.write_text(HEADER + KERNELS[name] + WRAPPER)
        bc = compile_c(src, opt_level=0 if ad_first else 2)
    opts = PipelineOptions(opt_level=2, pre_ad=not ad_first)
    return JITModule(run_pipeline(bc, filename=name, options=opts), filename=name)


def call_times(fn: object, args: tuple[object, ...], reps: int) -> list[float]:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(*args)  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return times


def median_time(fn: object, args: tuple[object, ...], reps: int) -> float:
    return statistics.median(call_times(fn, args, reps))


def measure(name: str, n: int, ad_first: bool, reps: int = 15,
            stat: str = "median") -> tuple[float, float]:
    jit = build(name, ad_first)
    vp, lg = ctypes.c_void_p, ctypes.c_long
    primal = jit.get("k", ctypes.c_double, [vp, vp, vp, lg])
    grad = jit.get("grad", None, [vp, vp, vp, vp, vp, vp, lg])
    rng = np.random.default_rng(0)
    x, y = rng.uniform(0.1, 1.0, n), rng.uniform(0.1, 1.0, n)
    w = np.zeros(n)
    dx, dy, dw = np.zeros(n), np.zeros(n), np.zeros(n)

    def p(a: np.ndarray) -> ctypes.c_void_p:
        return ctypes.c_void_p(a.ctypes.data)

    pick = statistics.median if stat == "median" else min
    tp = pick(call_times(primal, (p(x), p(y), p(w), n), reps))
    tg = pick(call_times(grad, (p(x), p(dx), p(y), p(dy), p(w), p(dw), n), reps))
    return tp, tg


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    stat = "min" if "--min" in sys.argv[1:] else "median"
    n = int(args[0]) if args else 200_000
    print(f"n = {n}; {stat} of 15 calls; ratio = gradient / primal")
    print(f"{'kernel':<12} {'primal ms':>10} {'grad ms':>10} {'ratio':>7}   "
          f"{'AD-first grad ms':>16} {'ratio':>7}")
    for name in KERNELS:
        tp, tg = measure(name, n, ad_first=False, stat=stat)
        _, tg0 = measure(name, n, ad_first=True, stat=stat)
        print(f"{name:<12} {tp * 1e3:10.3f} {tg * 1e3:10.3f} {tg / tp:7.2f}   "
              f"{tg0 * 1e3:16.3f} {tg0 / tp:7.2f}")


if __name__ == "__main__":
    main()
