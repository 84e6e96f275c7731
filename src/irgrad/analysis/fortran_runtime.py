"""flang's runtime by name: the routines irgrad differentiates (array intrinsics,
assignment and allocation through descriptors), the descriptor bookkeeping that carries
no derivative, and the I/O and termination calls that never do.

flang-22 calls its runtime (``libflang_rt``) where Fortran semantics need more than a
loop: at ``-O0`` for ``sum``, ``product``, ``maxval``, ``dot_product``, ``matmul``,
``transpose``, ``reshape``, ``cshift`` of a vector; at every level for ``norm2``,
``spread``, ``pack`` and ``sum(a, dim=k)``; at every level for ``allocate``/``deallocate``
with ``stat=``, of derived types, for ``move_alloc`` and for assignment to an allocatable
that may (re)allocate it (``_FortranAAssign``), for the copy-in/copy-out of a possibly
non-contiguous actual argument to an explicit-shape dummy and for the default
initialization of derived-type objects. Routines that only produce
integers or logicals (``minloc``, ``count``, ``size``) carry no derivative. Each takes
its arrays as *descriptors* (``flang/ISO_Fortran_binding.h``, ``flang/Runtime/
descriptor-consts.h``), a ``CFI_cdesc_t``::

    offset  0  void *base_addr        offset 20  u8 rank      offset 22  u8 attribute
    offset  8  size_t elem_len        offset 21  i8 type      offset 23  u8 extra
    offset 16  int version            offset 24  dim[rank]: {i64 lower_bound, i64 extent,
                                                              i64 sm (byte stride)}

followed, when ``extra & 1``, by an addendum (the derived type's description, then its
length parameters). ``attribute`` 2 is an allocatable, whose block the runtime
allocates with ``malloc`` and releases with ``free`` (allocator index ``extra >> 1`` =
0); ``type`` 27/28 is ``real(4)``/``real(8)``, 34/35 their complex, 42 a derived type.
Argument orders are those of ``flang/Runtime/{reduction,matmul,matmul-transpose,
transformational,assign,allocatable}.h``.

The derivative rules are :mod:`irgrad.ad.rules.fortran`; the type analysis asks
:mod:`irgrad.analysis.fortran_descriptors` what the descriptors hold, the memory
analysis :func:`fortran_written_arguments` what a call writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from irgrad.ir.control import CallBase
    from irgrad.ir.values import Value

# -- the descriptor -------------------------------------------------------------------------
BASE_OFFSET = 0
ELEM_LEN_OFFSET = 8
RANK_OFFSET = 20
TYPE_OFFSET = 21
ATTRIBUTE_OFFSET = 22
EXTRA_OFFSET = 23
HEADER_BYTES = 24  # through ``extra``
DIM_BYTES = 24  # {lower_bound, extent, sm}
EXTENT_OFFSET = 8  # within a dimension
SM_OFFSET = 16
MAX_RANK = 15
ADDENDUM_BYTES = 16  # the derived type's description and one length parameter
MAX_DESCRIPTOR_BYTES = HEADER_BYTES + MAX_RANK * DIM_BYTES + ADDENDUM_BYTES
ATTRIBUTE_OTHER = 0
ATTRIBUTE_ALLOCATABLE = 2
ADDENDUM_FLAG = 1
TYPE_FLOAT = 27
TYPE_DOUBLE = 28
TYPE_COMPLEX_FLOAT = 34
TYPE_COMPLEX_DOUBLE = 35
TYPE_STRUCT = 42
# real kinds 2, 3, 10, 16 (and their complex): floating-point data irgrad has no rules for
UNSUPPORTED_REAL_TYPES = (25, 26, 29, 30, 31, 32, 33, 36, 37, 38)


# -- the routines with derivative rules ----------------------------------------------------
@dataclass(frozen=True)
class FortranRoutine:
    """One runtime entry point: ``family`` names its rule, ``params`` the role of each
    argument (descriptors: ``array``, ``x``, ``y``, ``mask``, ``result``, ``matrix``,
    ``to``, ``from``, ``desc``, ``source_desc``, ``shape``, ``pad``, ``order``, ``temp``,
    ``var``; the rest inactive), ``element`` the
    element type a reduction returns (``"double"``/``"float"``, None: any, read from the
    descriptors at run time)."""

    name: str
    family: str
    params: tuple[str, ...]
    element: str | None = None

    def index(self, role: str) -> int | None:
        return self.params.index(role) if role in self.params else None


DESCRIPTOR_ROLES = frozenset(["array", "x", "y", "mask", "result", "matrix", "to", "from",
                              "desc", "source_desc", "shape", "pad", "order", "temp", "var"])
# what each family writes through its descriptor arguments (the descriptor and the
# storage it gets); None: anything the descriptors lead to (an assignment's left side)
_WRITES: dict[str, tuple[str, ...] | None] = {
    "sum": (), "product": (), "maxval": (), "minval": (), "dot_product": (), "norm2": (),
    "matmul": ("result",), "matmul_transpose": ("result",), "transpose": ("result",),
    "reshape": ("result",), "spread": ("result",), "sum_dim": ("result",),
    "cshift_vector": ("result",), "pack": ("result",),
    "assign": None, "allocate": ("desc",), "allocate_source": ("desc",),
    # the block moves from one descriptor to the other (``to``'s old one freed)
    "move_alloc": ("to", "from"),
    # frees the block (and its components'): anything loaded from them is gone
    "deallocate": None,
    # a contiguous copy of ``var`` in a block ``temp`` gets; back into ``var`` (when given)
    # and ``temp``'s block freed; the components of an existing object initialized
    "copy_in": ("temp",), "copy_out": None, "initialize": None,
}
_KINDS = {"4": "float", "8": "double"}
_REDUCTION = ("array", "source", "line", "dim", "mask")
_PATTERNS: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    (re.compile(r"_FortranA(Sum|Product|Maxval|Minval)Real([48])"), "", _REDUCTION),
    (re.compile(r"_FortranADotProductReal([48])"), "dot_product", ("x", "y", "source", "line")),
    (re.compile(r"_FortranANorm2_([48])"), "norm2", ("array", "source", "line", "dim")),
    (re.compile(r"_FortranAMatmul(Transpose)?Real([48])Real\2"), "",
     ("result", "x", "y", "source", "line")),
)
_FIXED: dict[str, tuple[str, tuple[str, ...]]] = {
    "_FortranATranspose": ("transpose", ("result", "matrix", "source", "line")),
    "_FortranAReshape": ("reshape", ("result", "array", "shape", "pad", "order", "source",
                                     "line")),
    "_FortranACshiftVector": ("cshift_vector", ("result", "array", "shift", "source",
                                                "line")),
    "_FortranASpread": ("spread", ("result", "array", "dim", "ncopies", "source", "line")),
    # pack(array, mask[, vector]): ``vector`` a descriptor or null
    "_FortranAPack": ("pack", ("result", "array", "mask", "vector", "source", "line")),
    "_FortranASumDim": ("sum_dim", ("result", "array", "dim", "source", "line", "mask")),
    "_FortranAAssign": ("assign", ("to", "from", "source", "line")),
    # flang-22 passes a memcpy function last; flang-20 did not
    "_FortranAAllocatableAllocate": (
        "allocate", ("desc", "async", "has_stat", "errmsg", "source", "line", "memcpy")),
    "_FortranAAllocatableAllocateSource": (
        "allocate_source", ("desc", "source_desc", "has_stat", "errmsg", "source", "line")),
    "_FortranAMoveAlloc": (
        "move_alloc", ("to", "from", "derived", "has_stat", "errmsg", "source", "line")),
    "_FortranAAllocatableDeallocate": (
        "deallocate", ("desc", "has_stat", "errmsg", "source", "line")),
    "_FortranAAllocatableDeallocatePolymorphic": (
        "deallocate", ("desc", "declared_type", "has_stat", "errmsg", "source", "line")),
    # an assumed-shape array passed to an explicit-shape dummy (``call dgemv(..., a, ...)``
    # with ``a(:)`` possibly non-contiguous): copied into a temporary and back
    "_FortranACopyInAssign": ("copy_in", ("temp", "var", "source", "line")),
    "_FortranACopyOutAssign": ("copy_out", ("var", "temp", "source", "line")),
    # default initialization of a derived-type object (its allocatable components
    # unallocated): a local array of a type with allocatable components
    "_FortranAInitialize": ("initialize", ("desc", "source", "line")),
}


def fortran_routine(name: str | None) -> FortranRoutine | None:
    """The runtime routine ``name`` is, when irgrad has its derivative rule."""
    if name is None or not name.startswith("_FortranA"):
        return None
    fixed = _FIXED.get(name)
    if fixed is not None:
        return FortranRoutine(name, fixed[0], fixed[1])
    for pattern, family, params in _PATTERNS:
        m = pattern.fullmatch(name)
        if m is None:
            continue
        if family in ("dot_product", "norm2"):
            return FortranRoutine(name, family, params, _KINDS[m.group(1)])
        if params is _REDUCTION:
            return FortranRoutine(name, m.group(1).lower(), params, _KINDS[m.group(2)])
        fam = "matmul_transpose" if m.group(1) else "matmul"
        return FortranRoutine(name, fam, params, _KINDS[m.group(2)])
    return None


def routine_element(name: str | None) -> str | None:
    r = fortran_routine(name)
    return r.element if r is not None else None


def descriptor_arguments(call: CallBase) -> list[int]:
    """The indices of a runtime call's descriptor arguments (empty: not a routine
    irgrad knows, or no descriptors)."""
    fn = call.called_function
    r = fortran_routine(fn.name if fn is not None else None)
    if r is None:
        return []
    return [k for k, role in enumerate(r.params)
            if role in DESCRIPTOR_ROLES and k < len(call.args)]


def fortran_written_arguments(call: CallBase) -> list[Value] | None:
    """The descriptor arguments a runtime call with a rule (or a bookkeeping call)
    writes through (None: not such a call, or it may write anything its descriptors
    lead to)."""
    fn = call.called_function
    name = fn.name if fn is not None else None
    if is_fortran_bookkeeping(name) or is_fortran_integer_result(name):
        return list(call.args[:1])
    r = fortran_routine(name)
    if r is None:
        return None
    written = _WRITES[r.family]
    if written is None:
        return None
    return [call.args[k] for k, role in enumerate(r.params)
            if role in written and k < len(call.args)]


def reads_descriptor(name: str | None, index: int) -> bool:
    """Does the runtime call only read through argument ``index`` (a descriptor it takes
    as input), or write nothing there but integers (the bookkeeping calls, the routines
    with integer results)?"""
    if is_fortran_bookkeeping(name) or is_fortran_integer_result(name) or (
            name is not None and _INTEGER_VALUE.fullmatch(name) is not None):
        return True
    r = fortran_routine(name)
    if r is None or index >= len(r.params) or r.params[index] not in DESCRIPTOR_ROLES:
        return False
    written = _WRITES[r.family]
    return written is not None and r.params[index] not in written and not (
        r.family == "assign" and r.params[index] == "to")


# -- calls without derivatives --------------------------------------------------------------

# Descriptor bookkeeping before an ALLOCATE: they set the type, rank and bounds of an
# unallocated allocatable (never its data, never an allocated one). The shadow
# descriptor needs none of it: the rule of the allocation that follows gives it the
# primal's shape and a block of its own. They write their first argument.
_BOOKKEEPING = frozenset(
    f"_FortranAAllocatable{n}" for n in (
        "InitIntrinsic", "InitCharacter", "InitDerived", "InitIntrinsicForAllocate",
        "InitCharacterForAllocate", "InitDerivedForAllocate", "SetBounds", "SetCoBounds",
        "SetDerivedLength", "ApplyMold", "CheckAllocated", "CheckLengthParameter"))
# I/O statements (everything but the input items, which write user data), the
# termination statements and the program's start and end: no derivatives, no writes of
# user data
_INACTIVE_PREFIXES = ("_FortranAio", "_FortranAStop", "_FortranAFailImage",
                      "_FortranAExit", "_FortranAAbort", "_FortranAReportFatalUserError",
                      "_FortranAProgramStart", "_FortranAProgramEndStatement")


# Routines whose results are integers, logicals or characters (indices, counts, bounds,
# kinds, type tests): no derivative, whatever real data they read. Those that return
# their result write nothing; the others write it through their first argument (a
# result descriptor, or raw memory for ``Lbound``/``Ubound``/``Shape``), and only there.
# The generic ``SumDim``/``MaxvalDim``/``MinvalDim``/``ProductDim`` may be real: not here.
_INT = r"(?:Integer|Unsigned)\d+"
_INTEGER_VALUE = re.compile(
    rf"_FortranA(?:(?:Sum|Product|Maxval|Minval|DotProduct){_INT}|DotProductLogical"
    r"|I(?:All|Any|Parity)\d+|All|Any|Count|Parity|Size|SizeDim|LboundDim"
    r"|IsContiguous(?:UpTo)?|IsAssumedSize|ClassIs|SameTypeAs|ExtendsTypeOf"
    r"|PointerIsAssociated(?:With)?|(?:Ceiling|Floor|Nint|Exponent)\d+_\d+|IsNaN\d+"
    r"|(?:Mod|Modulo)Integer\d+|Selected(?:Char|Int|Logical|Real)Kind(?:Masked)?"
    r"|(?:LenTrim|Index|Scan|Verify)\d|CharacterCompareScalar\d?)")
_INTEGER_RESULT = re.compile(
    r"_FortranA(?:(?:Max|Min)loc(?:Character|Dim|(?:Integer|Unsigned|Real)\d+)"
    r"|Findloc(?:Dim)?|I(?:All|Any|Parity)Dim|(?:All|Any|Count|Parity)Dim"
    r"|(?:Max|Min)valCharacter|Lbound|Ubound|Shape|LenTrim|Index|Scan|Verify"
    r"|Trim|Adjustl|Adjustr)")


def is_fortran_integer_result(name: str | None) -> bool:
    """A routine that writes an integer, logical or character result through its first
    argument (``minloc``, ``count(dim=)``, ``lbound``) and nothing else: no
    derivative."""
    return name is not None and _INTEGER_RESULT.fullmatch(name) is not None


def is_fortran_bookkeeping(name: str | None) -> bool:
    """A runtime call that only sets the shape of an unallocated descriptor."""
    return name is not None and name in _BOOKKEEPING


# flang's description of a derived type (``_QMmodEXdtXtype``: its size, components,
# bindings -- the procedures ``call obj%proc()`` dispatches to --, special procedures)
_TYPE_DESCRIPTION = re.compile(r"_Q\w*XdtX\w+(?:\.\d+)?")


def is_fortran_type_description(v: Value | None) -> bool:
    """``v`` is flang's constant description of a derived type, which a polymorphic
    object's descriptor points to: metadata no derivative reaches, its own shadow (the
    shadow descriptor of a ``class(t)`` dummy finds the same bindings)."""
    from irgrad.ir.globals import GlobalVariable

    return (isinstance(v, GlobalVariable) and v.is_constant
            and _TYPE_DESCRIPTION.fullmatch(v.name) is not None)


def is_fortran_inactive(name: str) -> bool:
    """flang's I/O (output and statement control) and termination calls, and the
    routines that return an integer or logical (``count``, ``maxval`` of integers,
    ``size``)."""
    return (name.startswith(_INACTIVE_PREFIXES) and not name.startswith("_FortranAioInput")
            ) or _INTEGER_VALUE.fullmatch(name) is not None


__all__ = [
    "DESCRIPTOR_ROLES",
    "MAX_DESCRIPTOR_BYTES",
    "FortranRoutine",
    "descriptor_arguments",
    "fortran_routine",
    "fortran_written_arguments",
    "is_fortran_bookkeeping",
    "is_fortran_inactive",
    "is_fortran_integer_result",
    "is_fortran_type_description",
    "reads_descriptor",
    "routine_element",
]
