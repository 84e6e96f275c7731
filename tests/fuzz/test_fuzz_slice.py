"""The fixed-seed slice of the differential fuzzer (tests/fuzz), at -O0..-O3.

Programs 0..39 (their focus features cycle through every statement kind, helper kind,
mode and marker, and together they exercise every feature of the generator: see
``test_slice_covers_every_feature``) are compiled by ``irgrad cc`` and checked against
finite differences. The test fails on every wrong, NaN-only, crashing or unlocated-
diagnostic run that is not in :mod:`known_failures`, and on every entry there that no
longer fails (a fixed bug: delete its entries), so the list stays exact.

Every fifth program also runs under AddressSanitizer (all code, derivatives included) and
UndefinedBehaviorSanitizer (the program's own code) at -O0 and -O2; its known failures
are the ``san:`` entries.
"""

from __future__ import annotations

import pytest

from .campaign import Outcome, check_program
from .classify import FAILING
from .gen_case import ALL_FEATURES, focus_of, generate
from .known_failures import BUGS, KNOWN

SLICE = range(40)
CHUNKS = 10
SANITIZED = range(0, 40, 5)
SANITIZED_LEVELS = (0, 2)


def test_slice_covers_every_feature() -> None:
    covered: set[str] = set()
    for seed in SLICE:
        covered |= generate(seed, focus_of(seed)).features
    assert covered == ALL_FEATURES, sorted(ALL_FEATURES - covered)


def test_known_failures_are_well_formed() -> None:
    for key, (cls, bug) in KNOWN.items():
        sanitized = key.startswith("san:")
        seed = int(key.removeprefix("san:").split(":")[0])
        assert seed in (SANITIZED if sanitized else SLICE), key
        assert cls in (*FAILING, "invalid") and bug in BUGS, key


def _describe(key: str, cls: str, outcomes: dict[str, Outcome]) -> str:
    o = outcomes.get(key)
    return f"  {key} {o.kind if o else ''}: {cls} {o.detail[:200] if o else ''}"


def _compare(seeds: list[int], outcomes: dict[str, Outcome], prefix: str = "") -> None:
    got = {prefix + k: o.cls for k, o in outcomes.items() if o.cls in (*FAILING, "invalid")}
    mine = [k for k in KNOWN if k.startswith(prefix) and (prefix or not k.startswith("san:"))]
    expected = {k: KNOWN[k][0] for k in mine if int(k[len(prefix):].split(":")[0]) in seeds}
    new = sorted(k for k in got if expected.get(k) != got[k])
    gone = sorted(k for k in expected if got.get(k) != expected[k])
    runs = {prefix + k: o for k, o in outcomes.items()}
    lines = []
    if new:
        lines.append("new failures (a regression, or a bug to add to known_failures.py):")
        lines += [_describe(k, got[k], runs) for k in new]
    if gone:
        lines.append("known failures that no longer fail that way (delete their entries):")
        lines += [_describe(k, f"{expected[k]} -> {runs[k].cls if k in runs else '?'}", runs)
                  for k in gone]
    assert not lines, "\n".join(lines)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fuzz_slice(chunk: int) -> None:
    seeds = [s for s in SLICE if s % CHUNKS == chunk]
    outcomes: dict[str, Outcome] = {}
    for seed in seeds:
        for o in check_program(generate(seed, focus_of(seed)))[0]:
            outcomes[o.key] = o
    _compare(seeds, outcomes)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SANITIZED)
def test_fuzz_slice_sanitized(seed: int) -> None:
    outcomes = {o.key: o for o in check_program(generate(seed, focus_of(seed)),
                                                SANITIZED_LEVELS, sanitize=True)[0]}
    _compare([seed], outcomes, "san:")
