"""Every diagnostic is readable: instructions in IR syntax, never a Python repr
(``<GetElementPtrInst ...>``, ``<... object at 0x...>``), and the file named is the file
irgrad read.

Every expected-error program (``tests/ad_programs/errors``, ``tests/ad_api/errors``) goes
through ``irgrad opt`` as an ``.ll`` file without debug info -- the location must then
name that ``.ll`` file, not the ``.c`` it was made from -- and every malformed IR file
(``tests/malformed``) through ``irgrad opt``; the ``irgrad cc`` harnesses of those
directories check the same on their own output.
"""

from __future__ import annotations

import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

from irgrad.toolchain import enzyme_include_dir, find_tool
from warm_cli import irgrad_command

# the module-scoped fixture builds every case once: keep the tests on the worker that
# built them (spread over two workers, both built them all)
pytestmark = pytest.mark.xdist_group("diagnostics_readable")

ROOT = Path(__file__).resolve().parents[1]
ERROR_PROGRAMS = sorted([*(ROOT / "tests" / "ad_programs" / "errors").glob("*.c"),
                         *(ROOT / "tests" / "ad_api" / "errors").glob("*.c")])
MALFORMED = sorted((ROOT / "tests" / "malformed").glob("*.ll"))
# what a Python object looks like when it leaks into a message
PYTHON_REPR = re.compile(
    r"<[A-Za-z_.]+ object at 0x[0-9a-f]+>|object at 0x[0-9a-f]+"
    r"|<(?:[A-Z][A-Za-z]*(?:Inst|Instruction|Node|Argument|Constant[A-Za-z]*|Value|Function"
    r"|BasicBlock|GlobalVariable|Use|Type|Expr)\b)")


def assert_readable(text: str) -> None:
    found = PYTHON_REPR.search(text)
    assert found is None, f"a Python repr in a diagnostic: {found.group(0)!r} in\n{text}"
    assert "Traceback" not in text, text


def _irgrad_opt(ll: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "IRGRAD_DEBUG"}
    return subprocess.run([*irgrad_command(), "opt", str(ll), "-S", "-o",
                           os.devnull], capture_output=True, text=True, timeout=300,
                          check=False, env=env, cwd=ll.parent)


def _compile_and_opt(src: Path, workdir: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
    ll = workdir / f"{src.parent.parent.name}_{src.stem}.ll"
    subprocess.run([find_tool("clang"), "-S", "-emit-llvm", "-O2", "-Xclang",
                    "-disable-llvm-passes", f"-I{enzyme_include_dir()}", str(src), "-o",
                    str(ll)], check=True, capture_output=True, timeout=120)
    return ll, _irgrad_opt(ll)


@cache
def _results(workdir: str) -> dict[Path, tuple[Path, subprocess.CompletedProcess[str]]]:
    with ThreadPoolExecutor(max_workers=3) as pool:
        done = pool.map(lambda s: _compile_and_opt(s, Path(workdir)), ERROR_PROGRAMS)
        return dict(zip(ERROR_PROGRAMS, done, strict=True))


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory
            ) -> dict[Path, tuple[Path, subprocess.CompletedProcess[str]]]:
    return _results(str(tmp_path_factory.mktemp("diagnostics")))


def _expected(path: Path) -> str:
    m = re.search(r"EXPECT-ERROR: (.*)", path.read_text())
    assert m is not None, path
    return m.group(1).strip()


def test_there_are_cases() -> None:
    assert len(ERROR_PROGRAMS) >= 30 and len(MALFORMED) >= 20


@pytest.mark.parametrize("src", ERROR_PROGRAMS,
                         ids=[f"{p.parent.parent.name}/{p.stem}" for p in ERROR_PROGRAMS])
def test_error_program_through_opt(
        src: Path,
        results: dict[Path, tuple[Path, subprocess.CompletedProcess[str]]]) -> None:
    ll, proc = results[src]
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert _expected(src) in proc.stderr, proc.stderr
    assert_readable(proc.stderr)
    # no debug info: the location names the file irgrad read, not the C source
    first = proc.stderr.splitlines()[0]
    assert first.startswith(f"{ll.name}: error: ") or first.startswith(f"{ll}: error: "), first
    assert f"{src.name}:" not in first


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.stem)
def test_malformed_ir_through_opt(path: Path) -> None:
    """(A few of these are errors for irgrad's own parser only: LLVM reads typed pointers,
    for instance; ``tests/malformed`` checks those messages in-process.)"""
    proc = _irgrad_opt(path)
    assert_readable(proc.stderr)
    if proc.returncode != 0:
        assert proc.returncode == 2, proc.stderr
        assert re.match(rf"{re.escape(str(path))}:\d+:\d+: error: ", proc.stderr), proc.stderr


def test_pattern_catches_reprs() -> None:
    from irgrad import ir

    m = ir.parse_module("define double @f(ptr %p) {\n  %q = getelementptr double, ptr %p, "
                        "i64 1\n  %v = load double, ptr %q\n  ret double %v\n}\n", "t.ll")
    gep = m.get_function("f").blocks[0].instructions[0]
    with pytest.raises(AssertionError):
        assert_readable(f"error: bad {gep!r}")
    with pytest.raises(AssertionError):
        assert_readable(f"error: bad {object()}")
    # str() of any IR value is IR syntax
    assert_readable(f"error: at `{gep}` on {gep.operands[0]} in {m.get_function('f')}")
    assert str(gep.operands[0]) == "ptr %p"
