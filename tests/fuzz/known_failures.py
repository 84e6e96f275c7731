"""Known irgrad bugs that the fuzz slice (programs 0..39) runs into, run by run.

``BUGS`` describes each bug (tag -> what is wrong, with a reduced reproducer's shape).
``KNOWN`` lists every failing run of the slice: ``"seed:case:request:O<level>"`` ->
``(class, tag)``; ``san:`` keys are runs of the sanitized slice. ``test_fuzz_slice`` fails
when a run fails that is not listed (a new bug) and when a listed run no longer fails
that way (a fixed bug: delete its entries).

After a change of the generator, regenerate the table:

    python -m tests.fuzz run -n 40 --seed 0 --out build/fuzz-slice
    python -m tests.fuzz run --seeds 0,5,10,15,20,25,30,35 --levels 02 --sanitize \
        --out build/fuzz-san-slice
    python -m tests.fuzz known build/fuzz-slice     # prints KNOWN; tags by TAG_RULES
    python -m tests.fuzz known build/fuzz-san-slice --prefix san:

and triage every run it prints as ``UNTRIAGED`` (reduce it: ``python -m tests.fuzz reduce``).
"""

from __future__ import annotations

BUGS: dict[str, str] = {
    "ubsan-cast-check": (
        "with -fsanitize=undefined, the float-cast-overflow check of (int)(x) on an active "
        "x (a 'bitcast double to i64, !nosanitize' compared against limits) is refused: "
        "'integer operation on an active floating-point value'; the check only decides a "
        "branch and is inactive (Enzyme does not differentiate it). Located, so not a "
        "failing run of the sanitized slice."
    ),
}

# Fixed and deleted with this table's regeneration: fwdvec-dominance (vector forward mode's
# lanes extracted after the call), global-shadow (shadow globals), select-const-pointer,
# realloc-shadow-leak (the old block's shadow is freed at the reverse of its allocation).
# (class, kind or "", a substring of the message, or "feature:<name>" of the case) -> tag
TAG_RULES: tuple[tuple[str, str, str, str], ...] = (
    ("diagnostic-unlocated", "", "integer operation on an active floating-point value",
     "ubsan-cast-check"),
)

KNOWN: dict[str, tuple[str, str]] = {}
