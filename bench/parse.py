"""Parser/printer benchmark: a ~20k-line module from clang-22 -O2 output of generated C.

Reports, as medians of several runs: our full parse (lazy=False) + print, our lazy parse +
print, and llvmlite's parse_assembly + str(), with ratios.

    .venv/bin/python bench/parse.py [--lines 20000] [--repeat 5] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import llvmlite.binding as llvm

from irgrad import ir


def generate_c(functions: int) -> str:
    out = ["#include <math.h>\n"]
    for k in range(functions):
        out.append(f"""
double f{k}(const double *x, double *y, int n, double a) {{
  double s = {k}.5;
  for (int i = 0; i < n; i++) {{
    double t = x[i] * a + y[i] / (1.0 + x[i] * x[i]);
    if (t > {k % 7}.0) s += sin(t) * {k % 5 + 1}; else s -= t;
    y[i] = s * 0.5 + x[(i + {k % 3}) % n];
  }}
  return s;
}}
int g{k}(const int *p, int n) {{
  int r = 0;
  for (int i = 0; i < n; i++) r += (p[i] ^ {k}) >> (i & 3);
  switch (r & 7) {{ case 1: return r * 3; case 2: return r + {k}; case 5: return -r; default: return r; }}
}}
""")
    return "".join(out)


def build_module(target_lines: int) -> str:
    clang = shutil.which("clang-22")
    if clang is None:
        sys.exit("clang-22 not found (scripts/setup.sh installs it)")
    functions = max(1, target_lines // 100)
    for _ in range(3):
        res = subprocess.run(
            [clang, "-x", "c", "-O2", "-fno-vectorize", "-fno-unroll-loops", "-S",
             "-emit-llvm", "-o", "-", "-"],
            input=generate_c(functions), capture_output=True, text=True, check=True,
        )
        n = res.stdout.count("\n")
        if abs(n - target_lines) <= target_lines * 0.05:
            break
        functions = max(1, round(functions * target_lines / max(n, 1)))
    return res.stdout


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", action="store_true", help="cProfile one full parse+print")
    args = ap.parse_args()

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    text = build_module(args.lines)
    lines = text.count("\n")
    n_inst = sum(1 for f in ir.parse_module(text, lazy=False).functions
                 for _ in f.instructions())

    def ours_full() -> str:
        return ir.print_module(ir.parse_module(text, lazy=False))

    def ours_lazy() -> str:
        return ir.print_module(ir.parse_module(text, lazy=True))

    def ours_parse_only() -> object:
        return ir.parse_module(text, lazy=False)

    def llvmlite_parse_print() -> str:
        return str(llvm.parse_assembly(text, context=llvm.create_context()))

    assert ours_full() == ir.print_module(ir.parse_module(ours_full(), lazy=False))
    full = median_time(ours_full, args.repeat)
    parse_only = median_time(ours_parse_only, args.repeat)
    lazy = median_time(ours_lazy, args.repeat)
    ref = median_time(llvmlite_parse_print, args.repeat)
    print(f"module: {lines} lines, {n_inst} instructions, {len(text) / 1e6:.2f} MB")
    print(f"ours full parse+print : {full * 1000:8.1f} ms  ({full / ref:5.1f}x llvmlite)")
    print(f"  of which parse      : {parse_only * 1000:8.1f} ms")
    print(f"ours lazy parse+print : {lazy * 1000:8.1f} ms  ({lazy / ref:5.1f}x llvmlite)")
    print(f"llvmlite parse+str    : {ref * 1000:8.1f} ms")
    print(f"per 1k lines (full)   : {full * 1000 / lines * 1000:8.2f} ms")
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        ours_full()
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
