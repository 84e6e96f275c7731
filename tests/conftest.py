"""The suite's root conftest: pytest puts this directory on ``sys.path`` for it, so test
modules anywhere under tests/ share helpers kept here (``warm_cli``: ``python -m irgrad``
without paying for the interpreter's start and irgrad's imports on every command)."""
