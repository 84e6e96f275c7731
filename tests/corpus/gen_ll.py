"""Write every corpus module's LLVM IR into a directory, for debugging the parser.

    .venv/bin/python tests/corpus/gen_ll.py OUTDIR [-j JOBS] [--only SUBSTRING]

Writes ``OUTDIR/<lang>/<program>.O<n>[-g].ll`` for every corpus case (the exact text the
round-trip test feeds the parser) and ``OUTDIR/numba/<kernel>.ll`` for the numba kernels.
"""

from __future__ import annotations

import argparse
import functools
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus_programs import Case, all_cases, compile_case


def _write_case(case: Case, outdir: Path) -> Path:
    target = outdir / case.source.parent.name / f"{case.source.stem}.O{case.opt_level}"
    target = target.with_name(target.name + ("-g.ll" if case.debug else ".ll"))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(compile_case(case), encoding="utf-8")
    return target


def _write_numba(outdir: Path, only: str) -> list[Path]:
    from numba_kernels import KERNELS, kernel_ir

    written = []
    for func, signature in KERNELS:
        name = func.py_func.__name__
        if only and only not in f"numba/{name}":
            continue
        text, _ = kernel_ir(func, signature)
        target = outdir / "numba" / f"{name}.ll"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("outdir", type=Path)
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel compilations")
    ap.add_argument("--only", default="", help="only cases whose id contains this text")
    ap.add_argument("--no-numba", action="store_true", help="skip the numba kernels")
    args = ap.parse_args(argv)

    cases = [c for c in all_cases() if args.only in c.id]
    # processes, not threads: the front end parses through llvmlite's global LLVM context
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        written = list(pool.map(functools.partial(_write_case, outdir=args.outdir), cases))
    if not args.no_numba:
        written += _write_numba(args.outdir, args.only)
    for path in written:
        print(path)
    print(f"{len(written)} modules written to {args.outdir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
