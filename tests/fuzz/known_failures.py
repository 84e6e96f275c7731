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
    "global-shadow": (
        "issue 14 item 1: active data copied into a mutable global (static double G[16]; "
        "G[i] = y[i] in a loop or memcpy; then read) has no shadow global: the derivative "
        "through G is silently zero (seen: rev, fwd, width N, split, every level), or, in "
        "other shapes, irgrad refuses with a located 'active value stored into global ... "
        "its derivative would be lost' (a diagnostic, so not a failing run of the slice)."
    ),
    "fwdvec-dominance": (
        "vector forward mode (enzyme_width N) emits IR that fails LLVM's verifier: "
        "'Instruction does not dominate all uses!' (the extractelements of a call's vector "
        "tangent placed after the call to fwddiffe<N>_<callee>; e.g. a noinline callee "
        "taking a struct pointer next to a malloc'd buffer; mostly -O1..-O3), and irgrad "
        "cc then aborts: 'LLVM ERROR: Broken module found' (SIGABRT, no verification first)."
    ),
    "select-const-pointer": (
        "issue 14 item 3, still open for a select of *pointers*: h[q] = c ? T[q] : x[1] "
        "(clang selects the address, then loads) with T a static const table (or an "
        "enzyme_const array): reverse mode refuses, 'no shadow for pointer "
        "<GetElementPtrInst ...>' (a Python repr, item 5; no file:line:col when the "
        "refused instruction is a phi); forward mode gives a tangent through the table "
        "(dx[1] where the true derivative is 0) at -O1..-O3 and dereferences a null "
        "shadow at -O0 (SIGSEGV)."
    ),
    "ubsan-cast-check": (
        "with -fsanitize=undefined, the float-cast-overflow check of (int)(x) on an active "
        "x (a 'bitcast double to i64, !nosanitize' compared against limits) is refused: "
        "'integer operation on an active floating-point value'; the check only decides a "
        "branch and is inactive (Enzyme does not differentiate it). Located, so not a "
        "failing run of the sanitized slice."
    ),
    "realloc-shadow-leak": (
        "reverse mode leaks the shadow of a realloc'd heap buffer: calloc(n), realloc(2n), "
        "fill, free; __enzyme_autodiff at -O0/-O2 -> LeakSanitizer: detected memory leaks."
    ),
}

# (class, kind or "", a substring of the message, or "feature:<name>" of the case) -> tag
TAG_RULES: tuple[tuple[str, str, str, str], ...] = (
    ("crash", "fwdvec", "does not dominate all uses", "fwdvec-dominance"),
    ("crash", "fwdvec", "Broken module found", "fwdvec-dominance"),
    ("diagnostic-unlocated", "", "stored into global", "global-shadow"),
    ("diagnostic-unlocated", "", "stored into a global", "global-shadow"),
    ("diagnostic-unlocated", "", "no shadow for pointer", "select-const-pointer"),
    ("wrong", "", "feature:global_mutable", "global-shadow"),
    ("diagnostic-unlocated", "", "integer operation on an active floating-point value",
     "ubsan-cast-check"),
    ("crash", "", "LeakSanitizer", "realloc-shadow-leak"),
)

KNOWN: dict[str, tuple[str, str]] = {
    "3:1:1:O0": ("crash", "fwdvec-dominance"),
    "3:1:1:O1": ("crash", "fwdvec-dominance"),
    "3:1:1:O2": ("crash", "fwdvec-dominance"),
    "3:1:1:O3": ("crash", "fwdvec-dominance"),
    "8:2:0:O0": ("crash", "fwdvec-dominance"),
    "9:0:2:O1": ("wrong", "global-shadow"),
    "12:0:0:O1": ("crash", "fwdvec-dominance"),
    "12:0:0:O2": ("crash", "fwdvec-dominance"),
    "12:0:0:O3": ("crash", "fwdvec-dominance"),
    "14:2:1:O1": ("crash", "fwdvec-dominance"),
    "14:2:1:O2": ("crash", "fwdvec-dominance"),
    "14:2:1:O3": ("crash", "fwdvec-dominance"),
    "23:0:1:O1": ("crash", "fwdvec-dominance"),
    "23:0:1:O2": ("crash", "fwdvec-dominance"),
    "23:0:1:O3": ("crash", "fwdvec-dominance"),
    "23:1:1:O1": ("crash", "fwdvec-dominance"),
    "23:1:1:O2": ("crash", "fwdvec-dominance"),
    "23:1:1:O3": ("crash", "fwdvec-dominance"),
    "32:0:0:O0": ("diagnostic-unlocated", "select-const-pointer"),
    "32:0:0:O1": ("diagnostic-unlocated", "select-const-pointer"),
    "32:0:0:O2": ("diagnostic-unlocated", "select-const-pointer"),
    "32:0:0:O3": ("diagnostic-unlocated", "select-const-pointer"),
    "san:30:1:0:O0": ("diagnostic-unlocated", "select-const-pointer"),
    "san:30:1:0:O2": ("diagnostic-unlocated", "select-const-pointer"),
    "san:35:2:2:O0": ("crash", "realloc-shadow-leak"),
    "san:35:2:2:O2": ("crash", "realloc-shadow-leak"),
}
