"""Fixtures of the round-trip corpus: compiled module text, cached for the session."""

from __future__ import annotations

import pytest
from corpus_programs import Case, compile_case


def pytest_configure(config: pytest.Config) -> None:
    # pytest-xdist registers this mark itself; register it too so runs without xdist are quiet
    config.addinivalue_line("markers", "xdist_group(name): run the group on one xdist worker")


class CompiledCorpus:
    """Compiles each case once per session (per xdist worker) and remembers the text."""

    def __init__(self) -> None:
        self._texts: dict[Case, str] = {}

    def text(self, case: Case) -> str:
        if case not in self._texts:
            self._texts[case] = compile_case(case)
        return self._texts[case]


@pytest.fixture(scope="session")
def compiled_corpus() -> CompiledCorpus:
    return CompiledCorpus()
