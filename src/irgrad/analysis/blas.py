"""BLAS and LAPACK routines irgrad knows by name: what each argument is, in each spelling.

One table (:data:`ROUTINES`) describes each routine once, in its logical (CBLAS)
argument order without the layout: the role of every argument (sizes, flags, scalars,
matrices with their leading dimension, vectors with their increment), what the routine
writes and what it returns. Spellings map names and calling conventions onto it:

* CBLAS ``cblas_d<r>`` / ``cblas_s<r>``: integers, flags and scalars by value, a leading
  ``layout`` (``CblasRowMajor``/``CblasColMajor``) for levels 2 and 3;
* Fortran ``d<r>_`` / ``s<r>_``: every argument by reference, LAPACK's ``info`` last, and
  possibly hidden string lengths (flang/gfortran) after the listed arguments;
* LAPACKE ``LAPACKE_d<r>`` / ``LAPACKE_s<r>``: layout first, by value, ``info`` returned
  (``LAPACKE_d<r>_work``: the same, with Fortran's workspace arguments last);
* numba's helpers (``numba_xxdot``, ``numba_xxnrm2``, ``numba_xxgemv``, ``numba_xxgemm``;
  LAPACK: ``numba_xxgetrf``, ``numba_xgesv``, ``numba_ez_xxgetri``, ``numba_xxpotrf``,
  what ``np.linalg.solve``/``inv``/``det``/``cholesky`` compile to): a ``kind`` char selects the element
  type, column-major, unit increments, scalars by reference, dot's result through a
  pointer, LAPACK's ``info`` returned.

Fortran's spelling of some LAPACK routines (and LAPACKE's ``_work`` one) takes a
workspace the other spellings allocate themselves (``getri``: ``work, lwork`` before ``info``): :attr:`Routine.workspace`
lists those arguments, and :attr:`Routine.query` the size argument whose value ``-1`` makes
the call a workspace query (it writes the optimal size to ``work[0]`` and nothing else).
A workspace holds no derivative: the derivatives zero its shadow where the call writes
it, and a query has no other derivative work.

The type analysis asks :func:`pointer_element` (what a pointer argument points to), the
memory analyses :func:`written_arguments`; the derivative rules are in
:mod:`irgrad.ad.rules.blas`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from irgrad.ir.control import CallBase
    from irgrad.ir.values import Value

# roles of arguments (the names the rules use)
FLAGS = ("trans", "transa", "transb", "uplo", "side", "diag")
INTS = ("m", "n", "k", "nrhs", "incx", "incy", "lda", "ldb", "ldc", "lwork")
SCALARS = ("alpha", "beta")
# ipiv: LAPACK's pivot indices (integers); work: Fortran LAPACK's workspace
ARRAYS = ("x", "y", "A", "B", "C", "ipiv", "work")


@dataclass(frozen=True)
class Routine:
    """One routine in CBLAS order (without ``layout``): ``writes`` are the arrays it
    overwrites, ``returns`` whether it returns a floating-point value (dot, nrm2, asum),
    ``level`` 1/2/3 (levels 2 and 3 take a layout in CBLAS), ``lapack`` for LAPACK
    (Fortran ``info`` last, LAPACKE returns it). ``shapes``: per array, ``(a, b, flag)``
    -- a vector's length is ``a`` (``b`` when ``flag`` is set), a matrix is ``a x b``
    logically and stored transposed when ``flag`` is set, a matrix in ``square`` is
    ``a x a`` (``b x b`` when ``flag`` is set), pivots (``ipiv``) number ``a`` (``min(a,
    b)`` when ``b`` is given): what a cached copy spans. ``workspace``: arguments only
    the Fortran spelling passes (before ``info``); ``query``: the one of them whose value
    ``-1`` asks for the workspace size instead of doing the work."""

    name: str
    args: tuple[str, ...]
    writes: tuple[str, ...]
    returns: bool = False
    level: int = 1
    lapack: bool = False
    shapes: tuple[tuple[str, str, str | None, str | None], ...] = ()
    square: tuple[str, ...] = ()  # matrices that are (flag ? b : a) square
    workspace: tuple[str, ...] = ()  # Fortran only: ("work", "lwork")
    query: str | None = None  # its value -1: a workspace query

    def shape(self, role: str) -> tuple[str, str | None, str | None]:
        for r, a, b, flag in self.shapes:
            if r == role:
                return a, b, flag
        raise KeyError(role)


_XY = (("x", "n", None, None), ("y", "n", None, None))

ROUTINES: dict[str, Routine] = {r.name: r for r in [
    Routine("dot", ("n", "x", "incx", "y", "incy"), (), returns=True, shapes=_XY),
    Routine("axpy", ("n", "alpha", "x", "incx", "y", "incy"), ("y",), shapes=_XY),
    Routine("scal", ("n", "alpha", "x", "incx"), ("x",), shapes=_XY[:1]),
    Routine("copy", ("n", "x", "incx", "y", "incy"), ("y",), shapes=_XY),
    Routine("swap", ("n", "x", "incx", "y", "incy"), ("x", "y"), shapes=_XY),
    Routine("nrm2", ("n", "x", "incx"), (), returns=True, shapes=_XY[:1]),
    Routine("asum", ("n", "x", "incx"), (), returns=True, shapes=_XY[:1]),
    # the index of the element of largest (smallest: OpenBLAS's extension) magnitude:
    # an integer from an array it only reads, so the call carries no derivative
    Routine("iamax", ("n", "x", "incx"), (), shapes=_XY[:1]),
    Routine("iamin", ("n", "x", "incx"), (), shapes=_XY[:1]),
    Routine("gemv", ("trans", "m", "n", "alpha", "A", "lda", "x", "incx", "beta", "y",
                     "incy"), ("y",), level=2,
            shapes=(("A", "m", "n", None), ("x", "n", "m", "trans"),
                    ("y", "m", "n", "trans"))),
    Routine("ger", ("m", "n", "alpha", "x", "incx", "y", "incy", "A", "lda"), ("A",),
            level=2, shapes=(("A", "m", "n", None), ("x", "m", None, None),
                             ("y", "n", None, None))),
    Routine("symv", ("uplo", "n", "alpha", "A", "lda", "x", "incx", "beta", "y", "incy"),
            ("y",), level=2, shapes=(("A", "n", "n", None), *_XY)),
    Routine("trmv", ("uplo", "trans", "diag", "n", "A", "lda", "x", "incx"), ("x",),
            level=2, shapes=(("A", "n", "n", None), *_XY[:1])),
    Routine("trsv", ("uplo", "trans", "diag", "n", "A", "lda", "x", "incx"), ("x",),
            level=2, shapes=(("A", "n", "n", None), *_XY[:1])),
    Routine("symm", ("side", "uplo", "m", "n", "alpha", "A", "lda", "B", "ldb", "beta", "C",
                     "ldc"), ("C",), level=3, square=("A",),
            shapes=(("A", "m", "n", "side"), ("B", "m", "n", None), ("C", "m", "n", None))),
    Routine("syrk", ("uplo", "trans", "n", "k", "alpha", "A", "lda", "beta", "C", "ldc"),
            ("C",), level=3, square=("C",),
            shapes=(("A", "n", "k", "trans"), ("C", "n", "n", None))),
    Routine("trmm", ("side", "uplo", "transa", "diag", "m", "n", "alpha", "A", "lda", "B",
                     "ldb"), ("B",), level=3, square=("A",),
            shapes=(("A", "m", "n", "side"), ("B", "m", "n", None))),
    Routine("trsm", ("side", "uplo", "transa", "diag", "m", "n", "alpha", "A", "lda", "B",
                     "ldb"), ("B",), level=3, square=("A",),
            shapes=(("A", "m", "n", "side"), ("B", "m", "n", None))),
    Routine("gemm", ("transa", "transb", "m", "n", "k", "alpha", "A", "lda", "B", "ldb",
                     "beta", "C", "ldc"), ("C",), level=3,
            shapes=(("A", "m", "k", "transa"), ("B", "k", "n", "transb"),
                    ("C", "m", "n", None))),
    Routine("getrf", ("m", "n", "A", "lda", "ipiv"), ("A", "ipiv"), level=3, lapack=True,
            shapes=(("A", "m", "n", None), ("ipiv", "m", "n", None))),  # min(m, n)
    Routine("getrs", ("trans", "n", "nrhs", "A", "lda", "ipiv", "B", "ldb"), ("B",),
            level=3, lapack=True,
            shapes=(("A", "n", "n", None), ("ipiv", "n", None, None),
                    ("B", "n", "nrhs", None))),
    Routine("gesv", ("n", "nrhs", "A", "lda", "ipiv", "B", "ldb"), ("A", "ipiv", "B"),
            level=3, lapack=True,
            shapes=(("A", "n", "n", None), ("ipiv", "n", None, None),
                    ("B", "n", "nrhs", None))),
    Routine("getri", ("n", "A", "lda", "ipiv"), ("A",), level=3, lapack=True,
            shapes=(("A", "n", "n", None), ("ipiv", "n", None, None)),
            workspace=("work", "lwork"), query="lwork"),
    Routine("potrf", ("uplo", "n", "A", "lda"), ("A",), level=3, lapack=True,
            shapes=(("A", "n", "n", None),)),
    Routine("potrs", ("uplo", "n", "nrhs", "A", "lda", "B", "ldb"), ("B",), level=3,
            lapack=True, shapes=(("A", "n", "n", None), ("B", "n", "nrhs", None))),
]}


@dataclass(frozen=True)
class Spelling:
    """How one family passes the arguments."""

    name: str  # "cblas", "fortran", "lapacke", "numba"
    by_reference: bool  # ints, flags and scalars passed through pointers
    has_layout: bool  # a leading CBLAS/LAPACKE layout argument


CBLAS = Spelling("cblas", by_reference=False, has_layout=True)
FORTRAN = Spelling("fortran", by_reference=True, has_layout=False)
LAPACKE = Spelling("lapacke", by_reference=False, has_layout=True)
NUMBA = Spelling("numba", by_reference=False, has_layout=False)

# numba's helpers: their parameters in order (kind first), mapped to roles
NUMBA_HELPERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "numba_xxdot": ("dot", ("kind", "conjugate", "n", "x", "y", "result")),
    "numba_xxgemv": ("gemv", ("kind", "trans", "m", "n", "alpha", "A", "lda", "x", "beta",
                              "y")),
    "numba_xxnrm2": ("nrm2", ("kind", "n", "x", "incx", "result")),
    "numba_xxgemm": ("gemm", ("kind", "transa", "transb", "m", "n", "k", "alpha", "A",
                              "lda", "B", "ldb", "beta", "C", "ldc")),
    "numba_xxgetrf": ("getrf", ("kind", "m", "n", "A", "lda", "ipiv")),
    "numba_xgesv": ("gesv", ("kind", "n", "nrhs", "A", "lda", "ipiv", "B", "ldb")),
    "numba_ez_xxgetri": ("getri", ("kind", "n", "A", "lda", "ipiv")),
    "numba_xxpotrf": ("potrf", ("kind", "uplo", "n", "A", "lda")),
}
NUMBA_KINDS = {ord("d"): "double", ord("s"): "float"}

# numba's LAPACK helpers without a rule, and the numpy functions numba computes with them
# (a derivative error names those: the user wrote np.linalg.svd, not numba_ez_gesdd)
NUMBA_WITHOUT_RULE: dict[str, tuple[str, ...]] = {
    "numba_ez_gesdd": ("np.linalg.svd", "np.linalg.pinv", "np.linalg.cond",
                       "np.linalg.norm of a matrix with ord=2 or -2"),
    "numba_ez_xxxevd": ("np.linalg.eigh", "np.linalg.eigvalsh"),
    "numba_ez_rgeev": ("np.linalg.eig", "np.linalg.eigvals"),
    "numba_ez_cgeev": ("np.linalg.eig", "np.linalg.eigvals"),
    "numba_ez_gelsd": ("np.linalg.lstsq",),
    "numba_ez_geqrf": ("np.linalg.qr",),
    "numba_ez_xxgqr": ("np.linalg.qr",),
}


@dataclass(frozen=True)
class BlasFunction:
    """A function name resolved against the table: the routine, the spelling, the
    element type (``double``/``float``; None for numba, whose ``kind`` argument says) and
    the parameter roles in the function's own order."""

    routine: Routine
    spelling: Spelling
    element: str | None
    params: tuple[str, ...]

    def index(self, role: str) -> int | None:
        return self.params.index(role) if role in self.params else None

    @property
    def written(self) -> tuple[str, ...]:
        extra = ("info",) if self.spelling is FORTRAN and self.routine.lapack else ()
        extra += ("result",) if "result" in self.params else ()
        extra += tuple(r for r in self.routine.workspace if r in ARRAYS and r in self.params)
        return self.routine.writes + extra


def _params(r: Routine, s: Spelling) -> tuple[str, ...]:
    lead = ("layout",) if s.has_layout and (r.level > 1 or s is LAPACKE) else ()
    tail = (*r.workspace, "info") if s is FORTRAN and r.lapack else ()
    return lead + r.args + tail


#: the routines spelled with an ``i`` before the element letter (``idamax``, ``icamax``)
INDEX_ROUTINES = ("iamax", "iamin")
#: element letters: real ``d``/``s``, and the index routines' complex ``z``/``c`` (an
#: array of pairs, whose parts are ``double``/``float``)
_ELEMENTS = {"d": "double", "s": "float", "z": "double", "c": "float"}


def _index_routine(rest: str) -> tuple[Routine, str] | None:
    """``idamax`` -> (iamax, double); ``izamax`` -> (iamax, double)."""
    if len(rest) > 2 and rest[0] == "i" and rest[1] in _ELEMENTS and \
            "i" + rest[2:] in INDEX_ROUTINES:
        return ROUTINES["i" + rest[2:]], _ELEMENTS[rest[1]]
    return None


def blas_function(name: str | None) -> BlasFunction | None:
    """The routine a function name calls (None: not a known BLAS/LAPACK name)."""
    if not name:
        return None
    if name.startswith("cblas_i") or (name.startswith("i") and name.endswith("_")):
        index = _index_routine(name.removeprefix("cblas_").removesuffix("_"))
        if index is not None:
            spelling = CBLAS if name.startswith("cblas_") else FORTRAN
            return BlasFunction(index[0], spelling, index[1], _params(index[0], spelling))
    helper = NUMBA_HELPERS.get(name)
    if helper is not None:
        return BlasFunction(ROUTINES[helper[0]], NUMBA, None, helper[1])
    for prefix, spelling in (("cblas_", CBLAS), ("LAPACKE_", LAPACKE)):
        if name.startswith(prefix):
            rest = name[len(prefix):]
            # LAPACKE's middle-level ``LAPACKE_d<r>_work``: the workspace passed by value
            work = spelling is LAPACKE and rest.endswith("_work")
            r = ROUTINES.get(rest[1:-len("_work")] if work else rest[1:])
            if r is None or rest[:1] not in "ds" or \
                    (spelling is LAPACKE) != r.lapack:
                return None
            params = _params(r, spelling) + (r.workspace if work else ())
            return BlasFunction(r, spelling, _element(rest[0]), params)
    if name.endswith("_") and name[:1] in "ds":
        r = ROUTINES.get(name[1:-1])
        if r is not None:
            return BlasFunction(r, FORTRAN, _element(name[0]), _params(r, FORTRAN))
    return None


def _element(prefix: str) -> str:
    return "double" if prefix == "d" else "float"


# runtimes whose calls irgrad has no derivatives for, by prefix: what to tell the user
_UNSUPPORTED_RUNTIMES = (
    (("__kmpc_", "GOMP_", "omp_"),
     "an OpenMP runtime call (-fopenmp) that irgrad does not run serially inside "
     "derivatives (it does for parallel loops, reductions, atomic updates, critical, "
     "single and master); build the differentiated code without -fopenmp (its pragmas are "
     "then ignored and the loops run serially)"),
    (("MPI_", "PMPI_"), "an MPI call: irgrad has no derivatives of MPI communication"),
    (("pthread_create", "thrd_create"),
     "a thread started inside the differentiated code: irgrad does not differentiate "
     "across threads"),
)


def missing_rule(name: str | None) -> str | None:
    """What has no derivative, in the user's words, when ``name`` is a numba helper
    irgrad has no rule for or a parallel runtime's call (None otherwise)."""
    for prefixes, why in _UNSUPPORTED_RUNTIMES:
        if name is not None and name.startswith(prefixes):
            return why
    users = NUMBA_WITHOUT_RULE.get(name or "")
    if users is None:
        return None
    if len(users) == 1:
        return (f"{users[0]} has no derivative in irgrad yet (numba computes it with its "
                f"LAPACK helper {name})")
    return (f"{', '.join(users[:-1])} and {users[-1]} have no derivative in irgrad yet "
            f"(numba computes them with its LAPACK helper {name})")


def is_blas_function(name: str | None) -> bool:
    return blas_function(name) is not None


def call_element(call: CallBase) -> str | None:
    """The element type of a BLAS call (numba: from its constant ``kind``)."""
    from irgrad.ir.constants import ConstantInt

    f = blas_function(call.called_function.name if call.called_function else None)
    if f is None:
        return None
    if f.element is not None:
        return f.element
    kind = call.args[0]
    return NUMBA_KINDS.get(kind.value) if isinstance(kind, ConstantInt) else None


def pointer_element(call: CallBase, k: int) -> str | None:
    """What pointer argument ``k`` of a BLAS call points to: ``double``/``float`` for its
    arrays and scalars, ``int``/``char`` for Fortran's by-reference sizes and flags."""
    f = blas_function(call.called_function.name if call.called_function else None)
    if f is None or k >= len(f.params):
        return None
    role = f.params[k]
    if role == "ipiv":
        return "int"
    if role in ARRAYS or role in ("result",) or role in SCALARS:
        return call_element(call)
    if role in INTS or role == "info":
        return "int"
    if role in FLAGS:
        return "char"
    return None


def written_arguments(call: CallBase) -> list[Value] | None:
    """The pointer arguments a BLAS call writes through (None: not a BLAS call)."""
    f = blas_function(call.called_function.name if call.called_function else None)
    if f is None:
        return None
    return [call.args[k] for k, role in enumerate(f.params)
            if role in f.written and k < len(call.args)]


__all__ = [
    "ARRAYS",
    "CBLAS",
    "FLAGS",
    "FORTRAN",
    "INDEX_ROUTINES",
    "INTS",
    "LAPACKE",
    "NUMBA",
    "NUMBA_WITHOUT_RULE",
    "ROUTINES",
    "SCALARS",
    "BlasFunction",
    "Routine",
    "Spelling",
    "blas_function",
    "call_element",
    "is_blas_function",
    "missing_rule",
    "pointer_element",
    "written_arguments",
]
