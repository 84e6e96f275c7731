"""Checking generated programs at -O0..-O3 and summarizing the outcomes.

:func:`check_program` compiles the AD program of a :class:`Program` once per level. When a
compile fails (a diagnostic or a crash of irgrad) it is repeated per case and then per
request, so each outcome is pinned to the one request that causes it (an unlocated
diagnostic is compiled again with ``-g`` to see whether it is located then). Every request
(and the direct primal call of each case, kind ``primal``) gets one :class:`Outcome` per
level.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from .classify import References, Verdict, classify_request, cross_check
from .drivers import ad_program
from .fd_driver import fd_program
from .harness import Compiled, build_fd, compile_ad, run_ad, syntax_ok
from .model import Program

LEVELS = (0, 1, 2, 3)


@dataclass(frozen=True)
class Outcome:
    seed: int
    case: int
    request: int  # -1: the primal call
    kind: str  # primal | rev | fwd | fwdvec | split
    level: int
    cls: str
    detail: str = ""
    located_with_g: bool | None = None

    @property
    def key(self) -> str:
        return f"{self.seed}:{self.case}:{self.request}:O{self.level}"


Select = dict[int, set[int]]


def _kind(program: Program, case: int, request: int) -> str:
    if request < 0:
        return "primal"
    return next(c for c in program.cases if c.index == case).requests[request].kind


def _all(program: Program) -> Select:
    return {c.index: set(range(len(c.requests))) for c in program.cases}


class _Checker:
    def __init__(self, program: Program, workdir: Path, sanitize: bool) -> None:
        self.program = program
        self.workdir = workdir
        self.sanitize = sanitize
        self.refs: dict[int, References] = {}
        self.compile_seconds = 0.0
        self.builds = 0
        self.bad: set[tuple[int, int]] = set()  # requests whose program did not compile

    def outcome(self, case: int, request: int, level: int, verdict: Verdict,
                located_with_g: bool | None = None) -> Outcome:
        return Outcome(self.program.seed, case, request, _kind(self.program, case, request),
                       level, verdict.cls, verdict.detail, located_with_g)

    def attempt(self, level: int, select: Select) -> tuple[list[Outcome] | None, Compiled, Path]:
        """Compile and run the AD program of ``select``; (outcomes or None, compile, source)."""
        text, layouts = ad_program(self.program, select)
        self.builds += 1
        src = self.workdir / f"ad_O{level}_{self.builds}.c"
        src.write_text(text)
        exe = self.workdir / f"ad_O{level}_{self.builds}"
        compiled = compile_ad(src, level, exe, sanitize=self.sanitize)
        self.compile_seconds += compiled.seconds
        if compiled.status != "ok" or compiled.exe is None:
            return None, compiled, src
        run = run_ad(compiled.exe, len(layouts), sanitize=self.sanitize)
        out = []
        for case in sorted({lay.case for lay in layouts}):
            mine = [lay for lay in layouts if lay.case == case]
            runs = []
            for lay in mine:
                values = run.values.get(lay.rid, [])
                if lay.rid in run.crashes:
                    verdict = Verdict("crash", f"at run time: {run.crashes[lay.rid]}")
                elif lay.rid in run.values:
                    verdict = classify_request(self.refs[case], lay, values)
                else:
                    verdict = Verdict("crash", "no output")
                runs.append((lay, values, verdict))
            for (lay, _, _), verdict in zip(runs, cross_check(self.refs[case], runs),
                                            strict=True):
                out.append(self.outcome(case, lay.request, level, verdict))
        exe.unlink(missing_ok=True)
        return out, compiled, src

    def failed(self, level: int, case: int, request: int, compiled: Compiled,
               src: Path) -> Outcome:
        """The outcome of a request whose program alone does not compile."""
        self.bad.add((case, request))
        cls, located_g = compiled.status, None
        if cls == "diagnostic" and not compiled.located:  # would -g locate it?
            cls = "diagnostic-unlocated"
            with_g = compile_ad(src, level, src.with_suffix(".g"), sanitize=self.sanitize,
                                debug=True)
            located_g = with_g.status == "diagnostic" and with_g.located
        return self.outcome(case, request, level, Verdict(cls, compiled.message), located_g)

    def level(self, level: int, select: Select, primal: bool = True) -> list[Outcome]:
        """Outcomes of ``select`` at ``level``: one program if it compiles, else the
        requests that failed at other levels apart, then per case, then per request
        (``primal``: also the outcome of the direct call; off when another program
        already gives it)."""
        pairs = {(c, r) for c, rs in select.items() for r in rs}
        suspects = pairs & self.bad
        if suspects and len(pairs) > 1:
            rest = {c: rs - {r for cc, r in suspects if cc == c} for c, rs in select.items()}
            out = self.level(level, rest, primal)
            for c, r in sorted(suspects):
                out += self.level(level, {c: {r}}, primal=False)
            return out
        out, compiled, src = self.attempt(level, select)
        if out is not None:
            return out if primal else [o for o in out if o.request >= 0]
        if len(select) > 1:
            return [o for c, rs in select.items() for o in self.level(level, {c: rs}, primal)]
        (case,) = select
        if not pairs:
            return [self.failed(level, case, -1, compiled, src)]
        if len(pairs) == 1:
            (_, request), = pairs
            result = [self.failed(level, case, request, compiled, src)]
            return self.level(level, {case: set()}) + result if primal else result
        out = self.level(level, {case: set()}) if primal else []
        for _, r in sorted(pairs):
            out += self.level(level, {case: {r}}, primal=False)
        return out


def check_program(program: Program, levels: tuple[int, ...] = LEVELS, *, sanitize: bool = False,
                  select: Select | None = None, workdir: Path | None = None
                  ) -> tuple[list[Outcome], float]:
    """The outcomes of every request of ``program`` at ``levels``; (outcomes, compile s)."""
    with tempfile.TemporaryDirectory(prefix="irgrad-fuzz-") as tmp:
        wd = workdir or Path(tmp)
        checker = _Checker(program, wd, sanitize)
        chosen = select or _all(program)
        ad_src = wd / "ad.c"
        ad_src.write_text(ad_program(program, chosen)[0])
        fd_src = wd / "fd.c"
        fd_src.write_text(fd_program(program, set(chosen)))
        error = syntax_ok(ad_src)
        fd = None
        if not error:
            fd, error = build_fd(fd_src, wd)
        if fd is None:
            bad = Verdict("invalid", error)
            return [checker.outcome(c, r, lv, bad) for lv in levels
                    for c, rs in chosen.items() for r in (-1, *sorted(rs))], 0.0
        for c in program.cases:
            if c.index in chosen:
                checker.refs[c.index] = References(c, fd[c.index])
        outcomes = []
        for level in levels:
            outcomes += checker.level(level, chosen)
        return outcomes, checker.compile_seconds


# --- storage and summaries ---


def save(outcomes: list[Outcome], path: Path) -> None:
    with path.open("a") as f:
        for o in outcomes:
            f.write(json.dumps(asdict(o)) + "\n")


def load(path: Path) -> list[Outcome]:
    return [Outcome(**json.loads(line)) for line in path.read_text().splitlines() if line]


def summary_table(outcomes: list[Outcome], levels: tuple[int, ...] = LEVELS) -> str:
    """Counts by class (rows) and level (columns), then by class and request kind."""
    classes = ["pass", "fd-noise", "wrong", "nan", "crash", "diagnostic", "diagnostic-unlocated",
               "invalid"]
    by_level = Counter((o.cls, o.level) for o in outcomes)
    header = f"{'class':<22}" + "".join(f"{'-O' + str(lv):>9}" for lv in levels) + f"{'total':>9}"
    lines = [header, "-" * len(header)]
    for cls in classes:
        row = [by_level[(cls, lv)] for lv in levels]
        if sum(row) or cls in ("pass", "wrong", "nan", "crash"):
            lines.append(f"{cls:<22}" + "".join(f"{v:>9}" for v in row) + f"{sum(row):>9}")
    lines.append(f"{'runs':<22}" + "".join(f"{sum(by_level[(c, lv)] for c in classes):>9}"
                                           for lv in levels) + f"{len(outcomes):>9}")
    kinds = ["primal", "rev", "fwd", "fwdvec", "split"]
    by_kind = Counter((o.cls, o.kind) for o in outcomes)
    lines += ["", f"{'class':<22}" + "".join(f"{k:>9}" for k in kinds)]
    for cls in classes:
        row = [by_kind[(cls, k)] for k in kinds]
        if sum(row):
            lines.append(f"{cls:<22}" + "".join(f"{v:>9}" for v in row))
    diags = [o for o in outcomes if o.cls.startswith("diagnostic")]
    if diags:
        located = sum(o.cls == "diagnostic" for o in diags)
        with_g = located + sum(bool(o.located_with_g) for o in diags if o.cls != "diagnostic")
        lines.append(f"\ndiagnostics: {len(diags)}, with file:line:col: {located} without -g, "
                     f"{with_g} with -g")
    programs = {o.seed for o in outcomes}
    failing = {o.seed for o in outcomes if o.cls in ("wrong", "nan", "crash",
                                                      "diagnostic-unlocated", "invalid")}
    lines.append(f"\nprograms: {len(programs)}, cases: {len({(o.seed, o.case) for o in outcomes})}"
                 f", programs with a failing run: {len(failing)}")
    return "\n".join(lines)


def failure_groups(outcomes: list[Outcome]) -> dict[str, list[Outcome]]:
    """Failing outcomes grouped by kind, class and the shape of their message."""
    groups: dict[str, list[Outcome]] = {}
    for o in outcomes:
        if o.cls in ("pass", "fd-noise"):
            continue
        groups.setdefault(f"{o.kind} {shape(o)}", []).append(o)
    return groups


def shape(o: Outcome) -> str:
    """What identifies a kind of failure: the class and, for errors, the message with
    file names, numbers and IR snippets blanked out."""
    if o.cls in ("wrong", "nan", "fd-noise", "pass"):
        return o.cls
    text = o.detail.split(" in function ")[0]  # what follows names this program's values
    text = re.sub(r"\S*\.(c|ll)\b(\s*\(after irgrad\))?(:\d+)*", "FILE", text)
    text = re.sub(r"`[^`]*`|<[^>]*>|[-+]?\d[\w.+-]*|[%@][\w.\"-]+", "#", text)
    return f"{o.cls} {text[:160]}"
