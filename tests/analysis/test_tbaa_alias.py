"""Type-based alias queries (:meth:`irgrad.analysis.tbaa.TBAATypes.may_alias`) on the
TBAA trees clang and flang emit: accesses of unrelated scalar types do not alias (strict
aliasing, as LLVM assumes), ``char`` aliases everything, and tags of different type
systems (other roots) or of an unreadable form may alias."""

from __future__ import annotations

import pytest

from irgrad.analysis.tbaa import TBAATypes

# clang -O2 (C, struct-path tags, pointer types under "any pointer")
METADATA = """
!5 = !{!"Simple C/C++ TBAA"}
!6 = !{!"omnipotent char", !5, i64 0}
!7 = !{!"double", !6, i64 0}
!8 = !{!"int", !6, i64 0}
!9 = !{!"any pointer", !6, i64 0}
!10 = !{!"p1 double", !9, i64 0}
!11 = !{!"p1 int", !9, i64 0}
!12 = !{!"mesh", !8, i64 0, !10, i64 8, !11, i64 16}
!20 = !{!7, !7, i64 0}
!21 = !{!8, !8, i64 0}
!22 = !{!6, !6, i64 0}
!23 = !{!10, !10, i64 0}
!24 = !{!11, !11, i64 0}
!25 = !{!12, !8, i64 0}
!26 = !{!12, !10, i64 8}
!27 = !{!9, !9, i64 0}
!30 = !{!"Flang function root f"}
!31 = !{!"any access", !30, i64 0}
!32 = !{!"any data access", !31, i64 0}
!33 = !{!32, !32, i64 0}
!40 = !{i64 8, !"not a type node"}
""".strip().splitlines()

CASES = [
    ("!20", "!20", True),   # double, double
    ("!20", "!21", False),  # double, int
    ("!20", "!22", True),   # double, char
    ("!22", "!21", True),   # char, int
    ("!23", "!24", False),  # double *, int *
    ("!23", "!27", True),   # double *, any pointer
    ("!25", "!21", True),   # mesh.n (an int), int
    ("!26", "!20", False),  # mesh.x (a double *), double
    ("!26", "!23", True),   # mesh.x, double *
    ("!33", "!20", True),   # flang's tree against clang's: another root
    ("!40", "!20", True),   # unreadable tag
    ("!99", "!20", True),   # missing node
]


@pytest.mark.parametrize(("a", "b", "expected"), CASES)
def test_may_alias(a: str, b: str, expected: bool) -> None:
    types = TBAATypes(METADATA)
    assert types.may_alias(a, b) is expected
    assert types.may_alias(b, a) is expected
