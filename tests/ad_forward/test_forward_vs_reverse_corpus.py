"""The reverse-mode corpus (tests/ad_programs/*.c) run in forward mode too.

For every ``__enzyme_autodiff`` / ``__enzyme_fwddiff`` call site of every program,
``fwdrev_instrument.py`` inserts a check that differentiates the SAME function at the SAME
point both ways (random tangent t in the shadows and active scalars, random cotangent c)
and compares ``<J t, c>`` (``__enzyme_fwddiff``) with ``<t, J^T c>``
(``__enzyme_autodiff``); the program's own call and checks then run unchanged. Route:
``clang-22 -O{n} -Xclang -disable-llvm-passes | instrument | irgrad opt -O{n} |
lli-22 --extra-module fwdrev_runtime``, at -O0..-O3.

A program passes when it still prints OK, no check reports a mismatch or an error, every
call site was checked at least once and at least one check had a nonzero scale (no
vacuous passes).
"""

from __future__ import annotations

import atexit
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest
from fwdrev_instrument import instrument

from irgrad.toolchain import enzyme_include_dir
from warm_cli import irgrad_command

# one worker builds the whole corpus (a session fixture): the group keeps the other
# from building it again
pytestmark = pytest.mark.xdist_group("forward_vs_reverse")

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
PROGRAMS = sorted((ROOT / "tests" / "ad_programs").glob("*.c"))
LEVELS = ("O0", "O1", "O2", "O3")
INCLUDE = enzyme_include_dir()

# Programs of the corpus this check cannot cover, with the reason. Empty: every program is
# covered (a program added with, say, shadows on the heap, would fail loudly with
# FWDREV-ERROR "points into no known region" and must be listed here with that reason).
NOT_COVERED: dict[str, str] = {
    "libm_complex_float": "computes in float behind a double interface: the identity holds "
    "to float rounding (1e-8 relative), below this check's double tolerance; the program "
    "compares reverse, forward and width-2 forward itself, to float accuracy",
    "libm_special_functions2": "checks float and long double variants too: the float ones "
    "hold the identity to float rounding (1e-7 relative), below this check's double "
    "tolerance; the program compares reverse and forward mode itself, per precision",
    "globals_user_shadow_table": "the user's shadow globals are inputs and outputs of the "
    "derivative that this check neither seeds nor reads (the program seeds them itself)",
    "memory_allocator_hooks": "open: forward mode does not yet take a helper that allocates "
    "through an allocator-hooks struct for an allocator (a located error, 'active value "
    "stored into memory without a shadow'); reverse mode is checked by the corpus",
}


def _run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=300,
                          **kw)  # type: ignore[call-overload]


@cache
def _workdir() -> Path:
    path = Path(tempfile.mkdtemp(prefix="irgrad-fwdrev-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


@cache
def runtime_ll() -> Path:
    out = _workdir() / "fwdrev_runtime.ll"
    build = _run(["clang-22", "-S", "-emit-llvm", "-O2", str(HERE / "fwdrev_runtime.c"),
                  "-o", str(out)])
    assert build.returncode == 0, build.stderr
    return out


def instrumented(prog: Path, level: str) -> tuple[str, int]:
    """(instrumented IR text, number of call sites) of ``prog`` at ``-level``."""
    clang = _run(["clang-22", "-S", "-emit-llvm", f"-{level}", "-Xclang",
                  "-disable-llvm-passes", "-fno-discard-value-names", f"-I{INCLUDE}",
                  str(prog), "-o", "-"])
    assert clang.returncode == 0, clang.stderr
    text, sites = instrument(clang.stdout)
    return text, len(sites)


def run_instrumented(text: str, name: str, level: str) -> subprocess.CompletedProcess[str]:
    path = _workdir() / f"{name}.{level}.ll"
    path.write_text(text)
    lowered = _run([*irgrad_command(), "opt", str(path), "-S", f"-{level}"])
    if lowered.returncode != 0:
        return lowered
    return _run(["lli-22", f"--extra-module={runtime_ll()}"], input=lowered.stdout)


def _case(prog: Path, level: str) -> str:
    """'' when the program passes the forward-vs-reverse check, else why not."""
    text, nsites = instrumented(prog, level)
    run = run_instrumented(text, prog.stem, level)
    out = run.stdout + run.stderr
    if run.returncode != 0 or not re.search(r"^OK$", run.stdout, re.M):
        blame = ""
        if "FWDREV-OK" in out and "FWDREV-MISMATCH" not in out:
            blame = "forward and reverse agree; the program's own check fails. "
        elif "FWDREV-MISMATCH" in out and re.search(r"\.c:\d+: .* but ", out):
            blame = ("forward and reverse disagree AND the program's own reverse-mode check "
                     "fails (see tests/ad_reverse for the same program). ")
        return f"{blame}exit {run.returncode}: {out[-3000:]}"
    if "FWDREV-MISMATCH" in out or "FWDREV-ERROR" in out:
        return out[-3000:]
    checked = {int(m) for m in re.findall(r"^FWDREV-OK (\d+)", out, re.M)}
    if checked != set(range(nsites)):
        return f"call sites checked {sorted(checked)} of {nsites}: {out[-2000:]}"
    scales = [float(s) for s in re.findall(r"scale=(\S+)", out)]
    if not any(s > 0 for s in scales):
        return f"every check was vacuous (scale 0): {out[-2000:]}"
    return ""


@cache
def _results() -> dict[tuple[str, str], str]:
    runtime_ll()
    cases = [(p, lv) for p in PROGRAMS if p.stem not in NOT_COVERED for lv in LEVELS]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outs = list(pool.map(lambda c: _case(*c), cases))
    return {(p.stem, lv): out for (p, lv), out in zip(cases, outs, strict=True)}


def test_corpus_is_covered() -> None:
    assert len(PROGRAMS) >= 70
    assert set(NOT_COVERED) <= {p.stem for p in PROGRAMS}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("prog", [p.stem for p in PROGRAMS if p.stem not in NOT_COVERED])
def test_forward_matches_reverse(prog: str, level: str) -> None:
    failure = _results()[(prog, level)]
    assert failure == "", f"{prog} -{level}: {failure}"


def test_check_detects_a_wrong_tangent() -> None:
    """The check is not vacuous: a forward result off by 1 is reported as a mismatch."""
    prog = ROOT / "tests" / "ad_programs" / "dup_pointer_sum_squares.c"
    text, nsites = instrumented(prog, "O1")
    assert nsites >= 1
    broken = text.replace("call void @fwdrev_after_forward()",
                          "call void @fwdrev_return_tangent(double 1.0)\n"
                          "  call void @fwdrev_after_forward()")
    assert broken != text
    run = run_instrumented(broken, "broken", "O1")
    assert "FWDREV-MISMATCH" in run.stdout, run.stdout + run.stderr


def test_checked_sites_cover_both_entry_points() -> None:
    """Sites of both kinds are instrumented (a corpus program that asks for tangents)."""
    prog = ROOT / "tests" / "ad_programs" / "fwd_scalar_tangent.c"
    text, nsites = instrumented(prog, "O0")
    assert nsites >= 1
    assert "@__enzyme_fwddiff_fwdrev0" in text and "@__enzyme_autodiff_fwdrev0" in text
