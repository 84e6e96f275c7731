"""The table of BLAS/LAPACK routines: every spelling resolves to the same routine, every
routine has a rule, and the analyses read what each argument is from it."""

from __future__ import annotations

import pytest

from irgrad.ad.rules import BLAS_RULES
from irgrad.analysis.blas import (
    CBLAS,
    FORTRAN,
    LAPACKE,
    NUMBA,
    ROUTINES,
    blas_function,
)


def test_every_routine_has_a_rule() -> None:
    assert set(ROUTINES) == set(BLAS_RULES)


@pytest.mark.parametrize(("name", "routine", "spelling", "element"), [
    ("cblas_ddot", "dot", CBLAS, "double"),
    ("cblas_sgemm", "gemm", CBLAS, "float"),
    ("dgemm_", "gemm", FORTRAN, "double"),
    ("strsm_", "trsm", FORTRAN, "float"),
    ("dpotrf_", "potrf", FORTRAN, "double"),
    ("LAPACKE_dgetrs", "getrs", LAPACKE, "double"),
    ("numba_xxgemm", "gemm", NUMBA, None),
    ("numba_xxnrm2", "nrm2", NUMBA, None),
    ("numba_xxgetrf", "getrf", NUMBA, None),
    ("numba_xgesv", "gesv", NUMBA, None),
    ("numba_ez_xxgetri", "getri", NUMBA, None),
    ("dgesv_", "gesv", FORTRAN, "double"),
    ("LAPACKE_sgesv", "gesv", LAPACKE, "float"),
    ("dgetri_", "getri", FORTRAN, "double"),
    ("LAPACKE_sgetri", "getri", LAPACKE, "float"),
])
def test_spellings(name: str, routine: str, spelling: object, element: str | None) -> None:
    f = blas_function(name)
    assert f is not None
    assert (f.routine.name, f.spelling, f.element) == (routine, spelling, element)


def test_layout_and_info_arguments() -> None:
    gemm = blas_function("cblas_dgemm")
    assert gemm is not None and gemm.params[0] == "layout" and gemm.index("C") == 12
    dot = blas_function("cblas_ddot")
    assert dot is not None and "layout" not in dot.params  # level 1 takes none
    potrf = blas_function("dpotrf_")
    assert potrf is not None and potrf.params == ("uplo", "n", "A", "lda", "info")
    assert potrf.written == ("A", "info")
    lapacke = blas_function("LAPACKE_dpotrf")
    assert lapacke is not None and lapacke.params == ("layout", "uplo", "n", "A", "lda")


def test_workspace_arguments() -> None:
    """Fortran's getri takes the workspace LAPACKE and numba allocate themselves."""
    fortran = blas_function("dgetri_")
    assert fortran is not None
    assert fortran.params == ("n", "A", "lda", "ipiv", "work", "lwork", "info")
    assert fortran.written == ("A", "info", "work")
    assert fortran.routine.query == "lwork"
    lapacke = blas_function("LAPACKE_dgetri")
    assert lapacke is not None and lapacke.params == ("layout", "n", "A", "lda", "ipiv")
    middle = blas_function("LAPACKE_dgetri_work")  # LAPACKE's middle level
    assert middle is not None and middle.spelling is LAPACKE
    assert middle.params == ("layout", "n", "A", "lda", "ipiv", "work", "lwork")
    assert middle.written == ("A", "work")
    getrf = blas_function("LAPACKE_sgetrf_work")
    assert getrf is not None and getrf.params == ("layout", "m", "n", "A", "lda", "ipiv")
    numba = blas_function("numba_ez_xxgetri")
    assert numba is not None and numba.params == ("kind", "n", "A", "lda", "ipiv")


@pytest.mark.parametrize("name", ["cblas_dsyr2k", "dgemm", "cblas_zgemm", "LAPACKE_ddot",
                                  "cblas_dpotrf", "numba_xxgetrs", "ddot_x",
                                  "cblas_dgemm_work", "LAPACKE_dgesdd_work",
                                  "numba_ez_gesdd"])
def test_unknown_names(name: str) -> None:
    assert blas_function(name) is None


def test_every_numba_helper_is_known() -> None:
    """Each of numba's BLAS/LAPACK helpers has a rule or a message naming the numpy
    functions that call it (a new numba helper shows up here first)."""
    from numba.np.linalg import _BLAS, _LAPACK

    from irgrad.analysis.blas import NUMBA_HELPERS, NUMBA_WITHOUT_RULE, missing_rule

    helpers = {name for cls in (_BLAS, _LAPACK) for name in vars(cls)
               if name.startswith("numba_")}
    assert "numba_ez_gesdd" in helpers and "numba_xxgetrf" in helpers
    assert helpers <= set(NUMBA_HELPERS) | set(NUMBA_WITHOUT_RULE)
    assert not set(NUMBA_HELPERS) & set(NUMBA_WITHOUT_RULE)
    note = missing_rule("numba_ez_gelsd")
    assert note is not None and note.startswith("np.linalg.lstsq has no derivative")
    assert missing_rule("dgemm_") is None and missing_rule(None) is None
