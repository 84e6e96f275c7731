"""Building and running the two programs of a generated :class:`Program`.

The AD program goes through ``irgrad cc`` as a user's program would, in a process of its
own (``tests/warm_cli.py``: forked from a server that imported irgrad once), so an abort
inside LLVM is an outcome, not the end of the campaign.
With ``sanitize`` it goes through ``irgrad cc -S -emit-llvm -fsanitize=undefined``
instead (UBSan's checks are inserted by clang's front end, before AD), ``opt-22
-passes=forceattrs`` gives every defined function LLVM's ``sanitize_address`` attribute
(the IR ``irgrad cc -S -emit-llvm`` writes is not instrumented yet: ``irgrad cc`` adds the
attribute and runs AddressSanitizer's pass only when it builds the binary itself), and
clang-22 instruments the result with AddressSanitizer and links it with both runtimes. The FD program is compiled by plain clang-22 under
AddressSanitizer and UndefinedBehaviorSanitizer, so a generator bug that makes a program
ill-defined shows up as an ``invalid`` program rather than as an irgrad bug.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

try:  # under pytest, tests/ is on sys.path; `python -m tests.fuzz` runs from the root
    from warm_cli import irgrad_command
except ImportError:
    from tests.warm_cli import irgrad_command

COMPILE_TIMEOUT = 300
RUN_TIMEOUT = 60
LOCATED = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+): error: ", re.M)
SAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0:exitcode=86",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1:exitcode=86",
}


@dataclass
class Compiled:
    """The outcome of compiling an AD program at one level."""

    status: str  # ok | diagnostic | crash
    exe: Path | None = None
    message: str = ""
    located: bool = False
    seconds: float = 0.0


@dataclass
class Run:
    """Values printed per request id, and the requests that crashed."""

    values: dict[int, list[float]] = field(default_factory=dict)
    crashes: dict[int, str] = field(default_factory=dict)


def _run(cmd: list[str], timeout: int, cwd: Path | None = None,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd,
                              env={**os.environ, **(env or {})}, check=False,
                              errors="replace")
    except subprocess.TimeoutExpired:
        return None


def first_error(stderr: str) -> str:
    """The first line that says what went wrong (for grouping and reports)."""
    for line in stderr.splitlines():
        if "error" in line.lower() or "Assertion" in line or "UNREACHABLE" in line:
            return line.strip()[:400]
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    return (lines[-1].strip() if lines else "(no message)")[:400]


def compile_ad(source: Path, level: int, out: Path, *, sanitize: bool = False,
               debug: bool = False) -> Compiled:
    """``irgrad cc -O<level>`` of ``source``; the outcome, classified."""
    start = time.perf_counter()
    irgrad = [*irgrad_command(), "cc", f"-O{level}", *(["-g"] if debug else [])]
    if sanitize:
        ll = out.with_suffix(".ll")
        proc = _run([*irgrad, "-fsanitize=undefined", "-S", "-emit-llvm", str(source),
                     "-o", str(ll)], COMPILE_TIMEOUT)
    else:
        proc = _run([*irgrad, str(source), "-o", str(out), "-lm"], COMPILE_TIMEOUT)
    seconds = time.perf_counter() - start
    if proc is None:
        return Compiled("crash", message=f"irgrad cc timed out after {COMPILE_TIMEOUT} s",
                        seconds=seconds)
    if proc.returncode == 2 and "(after irgrad)" in proc.stderr:
        # irgrad's own output failed LLVM's verifier: an internal error, not a diagnostic
        return Compiled("crash", message="invalid IR from irgrad: " + first_error(proc.stderr),
                        seconds=seconds)
    if proc.returncode == 2:
        located = LOCATED.search(proc.stderr) is not None
        return Compiled("diagnostic", message=first_error(proc.stderr), located=located,
                        seconds=seconds)
    if proc.returncode != 0:
        what = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit {proc.returncode}"
        return Compiled("crash", message=f"{what}: {first_error(proc.stderr)}", seconds=seconds)
    if sanitize:  # every defined function, derivatives included, gets instrumented
        forced = out.with_suffix(".asan.ll")
        link = _run(["opt-22", "-passes=forceattrs", "-force-attribute=sanitize_address",
                     str(ll), "-S", "-o", str(forced)], COMPILE_TIMEOUT)
        if link is not None and link.returncode == 0:
            link = _run(["clang-22", "-O0", "-fsanitize=address,undefined", str(forced), "-o",
                         str(out), "-lm", "-Wno-override-module"], COMPILE_TIMEOUT)
        if link is None or link.returncode != 0:
            msg = first_error(link.stderr) if link is not None else "timeout"
            return Compiled("crash", message=f"sanitizer build failed: {msg}", seconds=seconds)
    return Compiled("ok", exe=out, seconds=seconds)


def parse_ad_output(stdout: str, run: Run) -> int | None:
    """Record the values of complete requests; the id of a begun, unfinished one."""
    current: int | None = None
    values: list[float] = []
    for line in stdout.splitlines():
        if line.startswith("B "):
            current, values = int(line[2:]), []
        elif line.startswith("E ") and current is not None:
            run.values[current] = values
            current = None
        elif current is not None and line.strip():
            values += [float.fromhex(tok) for tok in line.split()]
    return current


def run_ad(exe: Path, n_requests: int, sanitize: bool = False) -> Run:
    """Run the AD program; after a crash, resume with the next request."""
    run = Run()
    first = 0
    while first < n_requests:
        proc = _run([str(exe), str(first)], RUN_TIMEOUT, env=SAN_ENV if sanitize else None)
        stdout = proc.stdout if proc is not None else ""
        unfinished = parse_ad_output(stdout, run)
        if proc is not None and proc.returncode == 0 and unfinished is None:
            break
        if proc is None:
            reason = f"timed out after {RUN_TIMEOUT} s"
        elif proc.returncode < 0:
            reason = f"signal {-proc.returncode}"
        else:
            reason = f"exit {proc.returncode}: {first_error(proc.stderr)}"
        done = [r for r in run.values if r >= first]
        failed = unfinished if unfinished is not None else max(done, default=first - 1) + 1
        if failed >= n_requests:  # e.g. a leak reported at exit: blame the last request
            failed = n_requests - 1
        run.crashes[failed] = reason
        first = failed + 1
    return run


@dataclass
class FDResult:
    """Parsed FD output of one case (long double reference, double primal)."""

    y_long: list[float] = field(default_factory=list)
    y_double: list[float] = field(default_factory=list)
    columns: dict[int, tuple[int, list[float]]] = field(default_factory=dict)
    directions: dict[int, tuple[int, list[float]]] = field(default_factory=dict)


def build_fd(source: Path, workdir: Path) -> tuple[dict[int, FDResult] | None, str]:
    """Compile and run the FD program twice; (results per case, error message)."""
    results: dict[int, FDResult] = {}
    for long in (True, False):
        exe = workdir / ("fd_long" if long else "fd_double")
        flags = ["-DFZ_LONG", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"] \
            if long else []
        proc = _run(["clang-22", "-O1", "-w", *flags, str(source), "-o", str(exe), "-lm"],
                    COMPILE_TIMEOUT)
        if proc is None or proc.returncode != 0:
            return None, "FD program does not compile: " + (first_error(proc.stderr) if proc
                                                              else "timeout")
        proc = _run([str(exe)] + ([] if long else ["primal"]), RUN_TIMEOUT, env=SAN_ENV)
        if proc is None or proc.returncode != 0:
            return None, "FD program failed: " + (first_error(proc.stderr) if proc else "timeout")
        for line in proc.stdout.splitlines():
            tag, *rest = line.split()
            case = int(rest[0])
            res = results.setdefault(case, FDResult())
            if tag == "Y":
                vals = [float.fromhex(t) for t in rest[1:]]
                if long:
                    res.y_long = vals
                else:
                    res.y_double = vals
            elif tag in ("C", "D"):
                idx, step = int(rest[1]), int(rest[2])
                vals = [float.fromhex(t) for t in rest[3:]]
                (res.columns if tag == "C" else res.directions)[idx] = (step, vals)
    return results, ""


def syntax_ok(source: Path) -> str:
    """An empty string when clang-22 accepts the AD source, else its first error."""
    proc = _run(["clang-22", "-fsyntax-only", "-w", str(source)], COMPILE_TIMEOUT)
    if proc is None or proc.returncode != 0:
        return first_error(proc.stderr) if proc else "timeout"
    return ""
