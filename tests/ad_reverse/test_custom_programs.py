"""Programs that use Enzyme's registrations and attributes (tests/ad_custom): custom
gradients and forward derivatives of routines of an opaque library, inactive functions
and globals, function_like, allocation_like, ``enzyme_*`` attributes. Each program
declares the API itself, checks its derivatives against central finite differences (and
forward against reverse), prints OK and aborts on a mismatch; it runs at -O0..-O3
through ``irgrad cc`` and at -O0 and -O2 through ``clang-22 | irgrad opt - | lli-22`` (the
harness and the cases of test_programs.py, with the program's ``<stem>.lib.c`` compiled
natively and linked in).
The malformed registrations in tests/ad_custom/errors run in tests/ad_api/test_api_errors.py.
"""

from __future__ import annotations

import functools
import tempfile

import pytest
from test_programs import CASES, ROOT, _case, run_all

# one worker compiles every case (the session fixture), so keep the tests on it
pytestmark = pytest.mark.xdist_group("custom_programs")

DIR = ROOT / "tests" / "ad_custom"
PROGRAMS = sorted(p for p in DIR.glob("*.c") if not p.name.endswith(".lib.c"))
_RESULTS: dict[tuple[str, str, str], str] = {}


@pytest.fixture(scope="session")
def custom_results() -> dict[tuple[str, str, str], str]:
    if not _RESULTS:
        with tempfile.TemporaryDirectory() as tmp:
            _RESULTS.update(run_all({
                (p.stem, lv, r): functools.partial(_case, p, lv, r, tmp)
                for p in PROGRAMS for lv, r in CASES
            }))
    return _RESULTS


def test_custom_programs_exist() -> None:
    assert len(PROGRAMS) >= 5
    assert any(p.with_name(p.stem + ".lib.c").exists() for p in PROGRAMS)


@pytest.mark.parametrize(("level", "route"), CASES)
@pytest.mark.parametrize("prog", [p.stem for p in PROGRAMS])
def test_custom_program(prog: str, level: str, route: str,
                        custom_results: dict[tuple[str, str, str], str]) -> None:
    failure = custom_results[(prog, level, route)]
    assert failure == "", f"{prog} -{level} via {route}: {failure}"

