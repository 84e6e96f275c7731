"""Every intrinsic that optimizing, vectorizing compilers emit for our programs is known to
the AD engine: it has a derivative (an elementwise rule, a vector reduction, a lane map, a
masked memory access) or is known to carry none (lifetimes, integer arithmetic and
reductions, memcpy/memset, which the engine handles as memory).

Each program of tests/ad_programs, tests/ad_cxx, tests/corpus and tests/realworld is
compiled at -O3 with vectorization for one fixed x86-64 target with AVX-512 (clang-22 and
flang-22 with ``-march=znver4 -ffast-math``, rustc with ``-C target-cpu=znver4``), the way
a user's already-optimized IR reaches ``irgrad opt``; an intrinsic called from a function
body that the engine does not know fails the test with the programs that emit it. The
target is fixed, not the build machine's: LLVM's cost model emits masked gathers for Zen 4
but not for Zen 3 (slow gathers there), so ``-march=native`` made what the corpus
exercises depend on the machine. Nothing compiled here is run. (The vectorized IR of the
realworld C programs is also differentiated and run for this machine: tests/realworld.)
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from irgrad import ir
from irgrad.ad.rules import intrinsic_has_derivative
from irgrad.analysis.known_functions import is_ignored_intrinsic, is_memory_transfer, is_memset
from irgrad.frontends import compile_source

# one worker builds the whole corpus (a session fixture): the group keeps the other
# from building it again
pytestmark = pytest.mark.xdist_group("intrinsic_coverage")

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
PROGRAMS = sorted(
    [*(TESTS / "ad_programs").glob("*.c"), *(TESTS / "ad_cxx").glob("*.cpp"),
     *(TESTS / "realworld").glob("*.c"), *(TESTS / "realworld").glob("*.cpp"),
     *(TESTS / "corpus" / "c").glob("*.c"), *(TESTS / "corpus" / "cpp").glob("*.cpp"),
     *(TESTS / "corpus" / "fortran").glob("*.f90"), *(TESTS / "corpus" / "rust").glob("*.rs")])
INCLUDES = ["-I" + str(ROOT / "src" / "irgrad" / "include"), "-I" + str(TESTS / "ad_cxx"),
            "-I/usr/include/eigen3"]


TARGET = "znver4"  # AVX-512 with gathers the cost model uses (see the module docstring)


def _flags(path: Path) -> list[str]:
    if path.suffix == ".rs":
        return ["-C", f"target-cpu={TARGET}"]
    if path.suffix == ".f90":
        return [f"-march={TARGET}", "-ffast-math"]
    return [f"-march={TARGET}", "-ffast-math", "-w", *INCLUDES]


def _intrinsics(path: Path) -> set[str]:
    module = compile_source(path, opt_level=3, flags=_flags(path), for_ad=False)
    model = ir.parse_module(str(module))
    names: set[str] = set()
    for fn in model.functions:
        if fn.is_declaration:
            continue
        for inst in fn.instructions():
            callee = inst.called_function if isinstance(inst, ir.CallBase) else None
            if callee is not None and callee.name.startswith("llvm."):
                names.add(callee.name)
    return names


def _known(name: str) -> bool:
    return (intrinsic_has_derivative(name) or is_ignored_intrinsic(name)
            or is_memory_transfer(name) or is_memset(name))


@pytest.fixture(scope="session")
def emitted() -> dict[str, set[str]]:
    with ThreadPoolExecutor(max_workers=3) as pool:
        found = dict(zip(PROGRAMS, pool.map(_intrinsics, PROGRAMS), strict=True))
    by_name: dict[str, set[str]] = {}
    for path, names in found.items():
        for n in names:
            by_name.setdefault(n, set()).add(f"{path.parent.name}/{path.name}")
    return by_name


def test_every_emitted_intrinsic_is_known(emitted: dict[str, set[str]]) -> None:
    assert len(PROGRAMS) >= 100
    unknown = {n: sorted(p)[:3] for n, p in emitted.items() if not _known(n)}
    assert not unknown, f"intrinsics the AD engine does not know: {unknown}"


def test_vectorized_programs_use_vector_intrinsics(emitted: dict[str, set[str]]) -> None:
    """The corpus does exercise what this is about (reductions, gathers, x86 hadd)."""
    bases = {".".join(n.split(".")[:4]) for n in emitted}
    assert {"llvm.vector.reduce.fadd", "llvm.vector.reduce.fmax",
            "llvm.vector.reduce.fmul"} <= bases
    assert any(n.startswith("llvm.masked.gather") for n in emitted)
    assert any(n.startswith("llvm.x86.avx.hadd") for n in emitted)
