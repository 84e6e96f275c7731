"""The one table of functions irgrad knows by name: allocators and their frees, library
functions that never carry derivatives, intrinsics without derivative meaning, and the C
math library.

Every part of irgrad asks this module (activity analysis, type analysis, forward and
reverse mode, the derivative rules): a library function is taught to irgrad once, here.
The derivative *rules* of the math functions live in :mod:`irgrad.ad.rules`, which takes
the names from :data:`LIBM_FUNCTIONS`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from irgrad.ir.control import CallBase


def callee_name(call: CallBase) -> str | None:
    """The name of the function a call calls directly (None: indirect or inline asm)."""
    fn = call.called_function
    return fn.name if fn is not None else None


# -- allocation -------------------------------------------------------------------------


@dataclass(frozen=True)
class Allocator:
    """A function that returns fresh heap memory.

    ``size_args``: the byte count is the product of these arguments; ``zeroed``: the memory
    comes back zero-filled; ``reallocates``: index of the old block's pointer (realloc), whose
    contents move into the result (the result is then not fresh memory).
    """

    name: str
    size_args: tuple[int, ...]
    zeroed: bool = False
    reallocates: int | None = None

    @property
    def fresh(self) -> bool:
        """The result aliases nothing that existed before the call."""
        return self.reallocates is None


ALLOCATORS: dict[str, Allocator] = {
    a.name: a
    for a in (
        Allocator("malloc", (0,)),
        Allocator("calloc", (0, 1), zeroed=True),
        Allocator("realloc", (1,), reallocates=0),
        Allocator("aligned_alloc", (1,)),
        Allocator("valloc", (0,)),
        Allocator("_Znwm", (0,)),  # operator new(size_t)
        Allocator("_Znam", (0,)),  # operator new[](size_t)
    )
}
# deallocators (the pointer is their first argument; C++'s sized delete passes the size)
FREE_FUNCTIONS = frozenset(["free", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm"])


def allocator(name: str | None) -> Allocator | None:
    return ALLOCATORS.get(name) if name is not None else None


def is_allocation(name: str | None) -> bool:
    return name in ALLOCATORS


def is_fresh_allocation(name: str | None) -> bool:
    a = allocator(name)
    return a is not None and a.fresh


def is_free(name: str | None) -> bool:
    return name in FREE_FUNCTIONS


# -- library functions without derivatives ------------------------------------------------

# numba's runtime (NRT_*, numba_gil_*), the CPython API (Py*, _Py*) and the sanitizers'
# runtimes: bookkeeping that never carries derivatives
INACTIVE_PREFIXES = ("NRT_", "numba_gil_", "Py", "_Py",
                     # the sanitizers' runtime: UBSan's handlers, ASan's checks
                     "__ubsan_", "__asan_", "__sanitizer_", "__msan_", "__tsan_")

# The C++ standard library's text, I/O and error machinery, by Itanium-mangled prefix
# (``_ZN`` nested name, ``K`` const member, ``St`` = ``std::``, ``So`` = ``std::ostream``,
# ``Si`` = ``std::istream``, ``Sd`` = ``std::iostream``, ``Ss`` = ``std::string`` of the
# old ABI, a number = the length of the next name). Whether defined in the module
# (templates instantiated by the program) or not, these functions never carry a
# derivative: they format, parse, copy characters, manage locales and exceptions. Numbers
# printed with ``std::cout << x`` are read, not differentiated. Containers of numbers
# (``std::vector``, ``std::array``, ``std::map``...) are NOT here: they hold active data.
CXX_INACTIVE_PREFIXES = (
    # streams: std::ostream / istream / iostream members (operator<<(double), put, write,
    # flush, _M_insert<double>), basic_ios, ios_base (std::ios_base::Init), stream buffers
    "_ZNSo", "_ZNKSo", "_ZNSi", "_ZNKSi", "_ZNSd", "_ZNKSd",
    "_ZNSt9basic_ios", "_ZNKSt9basic_ios", "_ZNSt8ios_base", "_ZNKSt8ios_base",
    "_ZNSt13basic_ostream", "_ZNKSt13basic_ostream", "_ZNSt13basic_istream",
    "_ZNKSt13basic_istream", "_ZNSt14basic_iostream", "_ZNSt15basic_streambuf",
    "_ZNKSt15basic_streambuf", "_ZNSt13basic_filebuf", "_ZNKSt13basic_filebuf",
    "_ZNSt14basic_ofstream", "_ZNSt14basic_ifstream", "_ZNSt13basic_fstream",
    "_ZNKSt14basic_ofstream", "_ZNKSt14basic_ifstream", "_ZNKSt13basic_fstream",
    # free functions of std: operator<< / operator>> (``_ZStls``/``_ZStrs``), std::endl,
    # std::ends, std::flush, __ostream_insert, getline, manipulators
    "_ZStls", "_ZStrs", "_ZSt4endl", "_ZSt4ends", "_ZSt5flush", "_ZSt16__ostream_insert",
    "_ZSt7getline", "_ZSt12setprecision", "_ZSt4setw", "_ZSt7setfill",
    # strings (both ABIs), string streams, std::to_string, char_traits
    "_ZNSt7__cxx1112basic_string", "_ZNKSt7__cxx1112basic_string",
    "_ZNSt7__cxx1115basic_stringbuf", "_ZNKSt7__cxx1115basic_stringbuf",
    "_ZNSt7__cxx1118basic_stringstream", "_ZNKSt7__cxx1118basic_stringstream",
    "_ZNSt7__cxx1119basic_ostringstream", "_ZNKSt7__cxx1119basic_ostringstream",
    "_ZNSt7__cxx1119basic_istringstream", "_ZNKSt7__cxx1119basic_istringstream",
    "_ZNSt7__cxx119to_string", "_ZNSs", "_ZNKSs", "_ZNSt11char_traits",
    "_ZStplIcSt11char_traitsIcESaIcEE",  # std::string operator+
    "_ZSteqIcSt11char_traitsIcESaIcEE",  # std::string operator==
    # locales and facets (num_put formats a double)
    "_ZNSt6locale", "_ZNKSt6locale", "_ZSt9use_facet", "_ZSt9has_facet", "_ZNKSt5ctype",
    "_ZNSt5ctype", "_ZNKSt7num_put", "_ZNKSt7num_get", "_ZNKSt8numpunct", "_ZNSt8numpunct",
    # exceptions: the library's error classes, std::terminate; clock reads
    "_ZNSt9exception", "_ZNKSt9exception", "_ZNSt13runtime_error", "_ZNKSt13runtime_error",
    "_ZNSt11logic_error", "_ZNKSt11logic_error", "_ZNSt12length_error", "_ZNSt12out_of_range",
    "_ZNSt16invalid_argument", "_ZNSt12domain_error", "_ZNSt11range_error",
    "_ZNSt14overflow_error", "_ZNSt9bad_alloc", "_ZSt9terminate", "_ZNSt6chrono",
    # the C++ ABI runtime: exception objects, guards of static locals, atexit
    "__cxa_", "__gxx_personality", "__clang_call_terminate", "_Unwind_",
    # Boost's exception wrapper (boost::throw_exception, wrapexcept<E>)
    "_ZN5boost15throw_exception", "_ZN5boost10wrapexcept", "_ZNK5boost10wrapexcept",
    "_ZN5boost16exception_detail", "_ZNK5boost16exception_detail",
)  # fmt: skip
# std::__throw_length_error, __throw_bad_alloc, __throw_out_of_range_fmt, ...
# (``_ZSt`` + the length of the name + ``__throw_``)
_CXX_THROW_RE = re.compile(r"^_ZSt\d+__throw_")


def is_cxx_inactive(name: str) -> bool:
    """A C++ standard library function of :data:`CXX_INACTIVE_PREFIXES` or a
    ``std::__throw_*``."""
    return name.startswith(CXX_INACTIVE_PREFIXES) or _CXX_THROW_RE.match(name) is not None


class InactiveNames(frozenset[str]):
    """A set of function names that also contains every name with an inactive prefix
    (C runtimes, and the C++ standard library's text, I/O and error machinery)."""

    def __contains__(self, name: object) -> bool:
        return super().__contains__(name) or (
            isinstance(name, str) and (name.startswith(INACTIVE_PREFIXES)
                                       or is_cxx_inactive(name)))


# External functions that never carry derivatives and never write user data: I/O, time,
# random numbers, process control, C string inspection, static-initialization guards.
INACTIVE_FUNCTIONS = InactiveNames(
    [
        "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "puts", "fputs",
        "putchar", "fputc", "putc", "fwrite", "write", "fflush", "perror", "__printf_chk",
        "__fprintf_chk", "abort", "exit", "_exit", "__assert_fail", "time", "clock",
        "gettimeofday", "clock_gettime", "rand", "srand", "random", "srandom", "getenv",
        "atoi", "atof", "strlen", "strcmp", "strncmp", "malloc_usable_size",
        "__errno_location", "__cxa_guard_acquire", "__cxa_guard_release",
    ]
)  # fmt: skip

# Intrinsics without derivative meaning: debug info, lifetimes, assumptions, stack
# save/restore, hints, and integer arithmetic (matched by prefix).
IGNORED_INTRINSICS = (
    "llvm.dbg.", "llvm.lifetime.", "llvm.assume", "llvm.experimental.noalias.scope.decl",
    "llvm.stacksave", "llvm.stackrestore", "llvm.prefetch", "llvm.invariant.",
    "llvm.var.annotation", "llvm.annotation", "llvm.sideeffect", "llvm.pseudoprobe",
    "llvm.objectsize", "llvm.expect", "llvm.trap", "llvm.debugtrap", "llvm.donothing",
    "llvm.is.fpclass", "llvm.ctpop", "llvm.ctlz", "llvm.cttz", "llvm.abs", "llvm.smax",
    "llvm.smin", "llvm.umax", "llvm.umin", "llvm.sadd", "llvm.uadd", "llvm.ssub",
    "llvm.usub", "llvm.smul", "llvm.umul", "llvm.bswap", "llvm.fshl", "llvm.fshr",
    "llvm.bitreverse", "llvm.scmp", "llvm.ucmp", "llvm.is.constant", "llvm.readcyclecounter",
    # integer reductions (vectorized integer loops; the float ones have rules)
    "llvm.vector.reduce.add", "llvm.vector.reduce.mul", "llvm.vector.reduce.and",
    "llvm.vector.reduce.or", "llvm.vector.reduce.xor", "llvm.vector.reduce.smax",
    "llvm.vector.reduce.smin", "llvm.vector.reduce.umax", "llvm.vector.reduce.umin",
    # exception and varargs bookkeeping, thread-local and relative addresses
    "llvm.eh.typeid.for", "llvm.va_start", "llvm.va_end", "llvm.va_copy",
    "llvm.threadlocal.address", "llvm.load.relative",
)  # fmt: skip

MEMORY_TRANSFER_PREFIXES = ("llvm.memcpy.", "llvm.memmove.")  # also llvm.memcpy.inline.*
MEMSET_PREFIXES = ("llvm.memset.",)


def is_inactive_function(name: str | None) -> bool:
    return name is not None and name in INACTIVE_FUNCTIONS


def is_ignored_intrinsic(name: str | None) -> bool:
    return name is not None and name.startswith(IGNORED_INTRINSICS)


def is_inactive_call(name: str | None) -> bool:
    """A call that carries no derivative whatever its arguments."""
    return is_inactive_function(name) or is_ignored_intrinsic(name)


def is_memory_transfer(name: str | None) -> bool:
    return name is not None and name.startswith(MEMORY_TRANSFER_PREFIXES)


def is_memset(name: str | None) -> bool:
    return name is not None and name.startswith(MEMSET_PREFIXES)


# -- the C math library ---------------------------------------------------------------------

# C name -> the elementary function whose derivative it has (see irgrad.ad.rules). Each
# comes in double, float (``f``) and long double (``l``) spelling.
LIBM_FUNCTIONS: dict[str, str] = {
    **{n: n for n in (
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
        "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
        "exp", "exp2", "exp10", "expm1", "log", "log1p", "log2", "log10",
        "pow", "sqrt", "cbrt", "hypot", "fabs", "copysign", "fma", "fmod",
        "erf", "erfc", "tgamma", "lgamma", "frexp", "ldexp", "modf",
        # piecewise constant: zero derivative
        "floor", "ceil", "trunc", "round", "roundeven", "rint", "nearbyint",
        "lround", "llround", "lrint", "llrint",
    )},
    "fmax": "maxnum",
    "fmin": "minnum",
    "scalbn": "ldexp",
}  # fmt: skip


def libm_names(base: str) -> list[str]:
    """``sin`` -> ``["sin", "sinf", "sinl"]`` (double, float, long double)."""
    return [base, base + "f", base + "l"]


_LIBM_SPELLINGS = frozenset(n for base in LIBM_FUNCTIONS for n in libm_names(base))


def is_math_function(name: str | None) -> bool:
    """A C math library function: its result follows from its operands, and it writes no
    user memory other than through its out-parameters (frexp, modf) and errno."""
    return name is not None and name in _LIBM_SPELLINGS


# floating-point intrinsics beyond the libm names (``llvm.<name>.<types>``)
_MATH_INTRINSICS = frozenset(["fmuladd", "powi", "minnum", "maxnum", "minimum", "maximum",
                              "minimumnum", "maximumnum", "sincos"])


def is_math_intrinsic(name: str | None) -> bool:
    """``llvm.sin.f64``, ``llvm.fmuladd.v4f64``, ...: an elementwise math intrinsic."""
    if name is None or not name.startswith("llvm."):
        return False
    base = name[5:].split(".")[0]
    return base in LIBM_FUNCTIONS or base in _MATH_INTRINSICS


__all__ = [
    "ALLOCATORS",
    "CXX_INACTIVE_PREFIXES",
    "FREE_FUNCTIONS",
    "IGNORED_INTRINSICS",
    "INACTIVE_FUNCTIONS",
    "LIBM_FUNCTIONS",
    "MEMORY_TRANSFER_PREFIXES",
    "Allocator",
    "InactiveNames",
    "allocator",
    "callee_name",
    "is_allocation",
    "is_cxx_inactive",
    "is_free",
    "is_fresh_allocation",
    "is_ignored_intrinsic",
    "is_inactive_call",
    "is_inactive_function",
    "is_math_function",
    "is_math_intrinsic",
    "is_memory_transfer",
    "is_memset",
    "libm_names",
]
