"""`make test` runs pytest with `-n 2 --dist loadgroup`: each corpus module is one
xdist group, so that one worker builds its session-scoped corpus once. A pytest or
pytest-xdist upgrade that drops the groups (pytest 9.2 did: pytest-xdist#1386) doubles
CI's time without failing anything else; this test is what fails then."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.xdist_group("xdist_probe")


def test_groups_reach_the_scheduler(request: pytest.FixtureRequest) -> None:
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not under `pytest -n N --dist loadgroup` (make test runs it so)")
    # xdist's loadgroup scheduler reads the group from the node id's '@' suffix
    assert request.node.nodeid.endswith("@xdist_probe"), request.node.nodeid
