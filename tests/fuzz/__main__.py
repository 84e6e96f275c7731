"""``python -m tests.fuzz``: irgrad's differential fuzzer (run from the repository root).

    run [-n N] [--seed S | --seeds A,B,..] [--levels 0123] [--sanitize] [--reduce K]
        [--out DIR]
        check programs S..S+N-1 at the levels; outcomes go to DIR/results.jsonl (programs
        already there are skipped, so a long campaign can run in chunks); prints a table
        by class and level and the failure groups; --reduce K shrinks the first failure of
        up to K groups into tests/fuzz/found/<class>-<hash>.c
    show SEED [--fd]           print the AD (or FD) program of a seed
    check SEED [--levels L]    check one program and print every non-pass outcome
    reduce SEED CASE REQUEST LEVEL [--sanitize]   shrink one failing request
    summary DIR                the tables of a stored campaign
    known DIR [--prefix san:]  print known_failures.KNOWN for the failing runs in DIR
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .campaign import LEVELS, Outcome, check_program, failure_groups, load, save, summary_table
from .classify import FAILING
from .drivers import ad_program
from .fd_driver import fd_program
from .gen_case import focus_of, generate
from .known_failures import TAG_RULES
from .reduce import Reducer, save_reproducer

FOUND = Path(__file__).parent / "found"


def _levels(text: str) -> tuple[int, ...]:
    return tuple(int(c) for c in text)


def _print_groups(outcomes: list[Outcome]) -> None:
    groups = failure_groups(outcomes)
    if not groups:
        return
    print("\nfailure groups (count, example run, message):")
    for name, members in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        o = members[0]
        print(f"  {len(members):5d}  {name[:70]:<70}  e.g. {o.key} {o.detail[:160]}")


def _reduce(outcome: Outcome, sanitize: bool, budget: int) -> Path:
    program = generate(outcome.seed, focus_of(outcome.seed))
    reducer = Reducer(program, outcome, sanitize=sanitize, budget=budget,
                      log=lambda s: print(f"    {s}", flush=True))
    reduced = reducer.run()
    final = reducer.last or outcome
    return save_reproducer(reduced, final, FOUND, note=f"reduced in {reducer.trials} trials")


def cmd_run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = out / "results.jsonl"
    done = {o.seed for o in load(results)} if results.exists() else set()
    levels = _levels(args.levels)
    start = time.monotonic()
    seeds = [int(x) for x in args.seeds.split(",")] if args.seeds else list(
        range(args.seed, args.seed + args.n))
    for seed in seeds:
        if seed in done:
            continue
        t0 = time.monotonic()
        outcomes, compile_s = check_program(generate(seed, focus_of(seed)), levels,
                                            sanitize=args.sanitize)
        save(outcomes, results)
        bad = sorted({f"{o.cls}:{o.kind}@O{o.level}" for o in outcomes
                      if o.cls not in ("pass", "fd-noise")})
        print(f"seed {seed} ({focus_of(seed)}): {time.monotonic() - t0:.1f} s "
              f"(irgrad {compile_s:.1f} s) {' '.join(bad)}", flush=True)
    everything = [o for o in load(results) if o.seed in seeds and o.level in levels]
    print(f"\n{len({o.seed for o in everything})} programs in {time.monotonic() - start:.0f} s"
          f" (this run); levels {', '.join('-O' + str(lv) for lv in levels)}"
          f"{', sanitizers on' if args.sanitize else ''}\n")
    print(summary_table(everything, levels))
    _print_groups(everything)
    if args.reduce:
        groups = failure_groups(everything)
        for name, members in list(sorted(groups.items(), key=lambda kv: -len(kv[1])))[
                : args.reduce]:
            print(f"\nreducing {name[:70]} ({members[0].key})", flush=True)
            print(f"  -> {_reduce(members[0], args.sanitize, args.budget)}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    program = generate(args.seed, focus_of(args.seed))
    print(fd_program(program) if args.fd else ad_program(program)[0])
    print(f"/* features: {' '.join(sorted(program.features))} */")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    program = generate(args.seed, focus_of(args.seed))
    outcomes, seconds = check_program(program, _levels(args.levels), sanitize=args.sanitize)
    for o in outcomes:
        if o.cls != "pass" or args.verbose:
            print(f"{o.key} {o.kind}: {o.cls} {o.detail}")
    print(f"{len(outcomes)} runs, irgrad {seconds:.1f} s")
    return 0


def cmd_reduce(args: argparse.Namespace) -> int:
    program = generate(args.seed, focus_of(args.seed))
    outcomes, _ = check_program(program, (args.level,), sanitize=args.sanitize)
    hit = [o for o in outcomes if o.case == args.case and o.request == args.request]
    if not hit or hit[0].cls in ("pass", "fd-noise"):
        print("that request does not fail", file=sys.stderr)
        return 1
    print(_reduce(hit[0], args.sanitize, args.budget))
    return 0


def cmd_summary(args: argparse.Namespace) -> int:
    outcomes = load(Path(args.dir) / "results.jsonl")
    levels = tuple(sorted({o.level for o in outcomes}))
    print(summary_table(outcomes, levels))
    _print_groups(outcomes)
    bad = [o for o in outcomes if o.cls in ("wrong", "nan") or "at run time" in o.detail]
    if bad:  # which features the failing cases have (the known bugs have telltale ones)
        print("\nwrong, nan and signals by a feature of their case:")
        cases: dict[tuple[int, int], frozenset[str]] = {}
        for o in bad:
            if (o.seed, o.case) not in cases:
                cases[(o.seed, o.case)] = generate(o.seed, focus_of(o.seed)).cases[o.case].features
        for feature in ("global_mutable_loop", "global_mutable_memcpy", "global_const_table",
                        "heap_realloc", "select_ternary"):
            n = sum(any(f == feature for f in cases[(o.seed, o.case)]) for o in bad)
            print(f"  {feature:<24} {n:6d} of {len(bad)}")
        rest = [o for o in bad if not any(f.startswith("global_mutable")
                                          for f in cases[(o.seed, o.case)])]
        print(f"  {'no mutable global':<24} {len(rest):6d}: "
              + " ".join(sorted({o.key for o in rest})[:12]))
    return 0


def _tag(o: Outcome) -> str:
    features = generate(o.seed, focus_of(o.seed)).cases[o.case].features
    for cls, kind, needle, tag in TAG_RULES:
        if cls != o.cls or (kind and kind != o.kind):
            continue
        if needle.startswith("feature:"):
            if any(f.startswith(needle[8:]) for f in features):
                return tag
        elif needle in o.detail:
            return tag
    return "UNTRIAGED"


def cmd_known(args: argparse.Namespace) -> int:
    outcomes = load(Path(args.dir) / "results.jsonl")
    print("KNOWN: dict[str, tuple[str, str]] = {")
    for o in sorted(outcomes, key=lambda o: (o.seed, o.case, o.request, o.level)):
        if o.cls in (*FAILING, "invalid"):
            print(f'    "{args.prefix}{o.key}": ("{o.cls}", "{_tag(o)}"),')
    print("}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("-n", type=int, default=100)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--seeds", default="", help="a comma list instead of -n/--seed")
    run.add_argument("--levels", default="0123")
    run.add_argument("--sanitize", action="store_true")
    run.add_argument("--reduce", type=int, default=0, metavar="K")
    run.add_argument("--budget", type=int, default=150, help="reduction trials per failure")
    run.add_argument("--out", default="build/fuzz")
    show = sub.add_parser("show")
    show.add_argument("seed", type=int)
    show.add_argument("--fd", action="store_true")
    check = sub.add_parser("check")
    check.add_argument("seed", type=int)
    check.add_argument("--levels", default="0123")
    check.add_argument("--sanitize", action="store_true")
    check.add_argument("-v", "--verbose", action="store_true")
    red = sub.add_parser("reduce")
    for name in ("seed", "case", "request", "level"):
        red.add_argument(name, type=int)
    red.add_argument("--sanitize", action="store_true")
    red.add_argument("--budget", type=int, default=150)
    summ = sub.add_parser("summary")
    summ.add_argument("dir")
    known = sub.add_parser("known")
    known.add_argument("dir")
    known.add_argument("--prefix", default="", help="'san:' for a --sanitize slice")
    args = parser.parse_args(argv)
    handler = {"run": cmd_run, "show": cmd_show, "check": cmd_check, "reduce": cmd_reduce,
               "summary": cmd_summary, "known": cmd_known}[args.command]
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["LEVELS", "main"]
