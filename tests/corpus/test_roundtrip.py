"""Round trip of modules compiled at test time from our own C, C++, Fortran and Rust programs.

For every program at -O0, -O2, -O3 (and -g variants of a few): irgrad's parser reads
the front end's output, the printer writes it, a second parse/print gives identical text,
LLVM parses and verifies our print, and LLVM's print of it equals LLVM's print of the
original. ``full`` parses every function body (the real test of the parser); ``lazy``
is the default mode.
"""

from __future__ import annotations

import pytest
from corpus_programs import MINIMUM_PROGRAMS, Case, all_cases, programs
from roundtrip_check import check_roundtrip

CASES = all_cases()


def _param(case: Case) -> object:
    # keep every level of one program on one xdist worker: the compiled text is cached there
    return pytest.param(case, id=case.id, marks=pytest.mark.xdist_group(case.program))


PARAMS = [_param(c) for c in CASES]


@pytest.mark.parametrize("case", PARAMS)
def test_roundtrip_full(case: Case, compiled_corpus) -> None:
    text = compiled_corpus.text(case)
    printed = check_roundtrip(text, case.id, lazy=False)
    assert "define " in printed


@pytest.mark.parametrize("case", PARAMS)
def test_roundtrip_lazy(case: Case, compiled_corpus) -> None:
    text = compiled_corpus.text(case)
    check_roundtrip(text, case.id, lazy=True)


def test_corpus_size() -> None:
    """The corpus holds at least the required number of programs per language."""
    for directory, minimum in MINIMUM_PROGRAMS.items():
        found = programs(directory)
        assert len(found) >= minimum, f"{directory}: {len(found)} programs, need {minimum}"
    levels = {(c.program, c.opt_level) for c in CASES if not c.debug}
    assert len(levels) == 3 * sum(len(programs(d)) for d in MINIMUM_PROGRAMS)
    assert any(c.debug and c.opt_level == 0 for c in CASES)


@pytest.mark.parametrize(
    "case",
    [_param(c) for c in CASES if c.debug and c.program == "c/debug_kernel"],
)
def test_debug_info_present(case: Case, compiled_corpus) -> None:
    """-g variants really carry debug records and DI metadata through the round trip."""
    text = compiled_corpus.text(case)
    printed = check_roundtrip(text, case.id, lazy=False)
    assert "!llvm.dbg.cu" in printed
    assert "DISubprogram" in printed
    record = "#dbg_declare(" if case.opt_level == 0 else "#dbg_value("
    assert record in text
    assert printed.count(record) == text.count(record)
