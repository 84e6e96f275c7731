"""The one table of functions irgrad knows by name: allocators and their frees, library
functions that never carry derivatives, intrinsics without derivative meaning, and the C
math library.

Every part of irgrad asks this module (activity analysis, type analysis, forward and
reverse mode, the derivative rules): a library function is taught to irgrad once, here.
The derivative *rules* of the math functions live in :mod:`irgrad.ad.rules`, which takes
the names from :data:`LIBM_FUNCTIONS`. BLAS and LAPACK routines, in every spelling, are
described argument by argument in :mod:`irgrad.analysis.blas` (what they read and write,
what their pointers hold); their rules are :mod:`irgrad.ad.rules.blas` and siblings.
flang's runtime (array intrinsics, allocation and assignment through descriptors) is
:mod:`irgrad.analysis.fortran_runtime`, its rules :mod:`irgrad.ad.rules.fortran`.

A module can teach irgrad its own functions with Enzyme's registrations and attributes
(``__enzyme_inactivefn``, ``__enzyme_function_like``, ``__enzyme_allocation_like``,
``__enzyme_inactive_global``, ``__attribute__((enzyme_inactive))``...): those are read by
:mod:`irgrad.ad.api.registrations` into a :class:`ModuleFunctions` record, which the AD
engine puts in effect (:func:`module_functions`) while it works on that module. Every
query below consults it, so the table stays the one place that answers "what is this
function".
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from irgrad.analysis.fortran_runtime import (
    is_fortran_bookkeeping,
    is_fortran_inactive,
    is_fortran_integer_result,
)
from irgrad.analysis.rust_runtime import (
    RUST_DEALLOC_SIZE_ARG,
    is_rust_deallocator,
    is_rust_inactive,
    rust_allocator_fields,
)

if TYPE_CHECKING:
    from irgrad.ir.control import CallBase
    from irgrad.ir.values import Value


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
    contents move into the result (the result is then not fresh memory); ``align_arg``: the
    argument giving the alignment; ``out_arg``: the memory is returned through this
    ``void **`` argument (``posix_memalign``), the call returning a status instead;
    ``state_args``: pointers to the allocator's own bookkeeping (a stack allocator's
    state), passed as their shadows when the shadow allocation is made (it comes out of
    the shadow state); ``released_with_state``: a block is never freed on its own, the
    state's release (``STATE_RELEASE_FUNCTIONS``) releases every block at once (a stack
    allocator's frames are not heap blocks: ``free`` of one corrupts the heap).
    """

    name: str
    size_args: tuple[int, ...]
    zeroed: bool = False
    reallocates: int | None = None
    align_arg: int | None = None
    out_arg: int | None = None
    # the function that frees this allocator's memory (None: C's free) and, for each of
    # its parameters, the allocator argument passed there (-1: the allocated pointer)
    free_function: str | None = None
    free_args: tuple[int, ...] = (-1,)
    state_args: tuple[int, ...] = ()
    released_with_state: bool = False
    # realloc-like: the argument giving the old block's size (Rust's __rust_realloc);
    # None: the old block's usable size is asked of the C heap
    old_size_arg: int | None = None

    @property
    def fresh(self) -> bool:
        """The result aliases nothing that existed before the call."""
        return self.reallocates is None

    @property
    def returns_memory(self) -> bool:
        """The call's result is the memory (not a status, as for ``posix_memalign``)."""
        return self.out_arg is None


# C++'s allocation functions, each with its nothrow twin (``RKSt9nothrow_t``: a reference
# to std::nothrow after the size and alignment)
_NOTHROW = "RKSt9nothrow_t"
_ALIGN = "St11align_val_t"

ALLOCATORS: dict[str, Allocator] = {
    a.name: a
    for a in (
        Allocator("malloc", (0,)),
        Allocator("calloc", (0, 1), zeroed=True),
        Allocator("realloc", (1,), reallocates=0),
        Allocator("reallocarray", (1, 2), reallocates=0),
        Allocator("aligned_alloc", (1,), align_arg=0),
        Allocator("memalign", (1,), align_arg=0),
        Allocator("posix_memalign", (2,), align_arg=1, out_arg=0),
        Allocator("valloc", (0,)),
        Allocator("pvalloc", (0,)),
        # operator new / new[] (n, [align], [nothrow]): freed by operator delete / delete[]
        # (with the alignment for the aligned forms)
        *(Allocator(f"_Zn{k}m{tail}", (0,), free_function=f"_Zd{'l' if k == 'w' else 'a'}Pv")
          for k in "wa" for tail in ("", _NOTHROW)),
        *(Allocator(f"_Zn{k}m{_ALIGN}{tail}", (0,), align_arg=1,
                    free_function=f"_Zd{'l' if k == 'w' else 'a'}Pv{_ALIGN}", free_args=(-1, 1))
          for k in "wa" for tail in ("", _NOTHROW)),
        # irgrad's own tape (irgrad.ad.core.tape_runtime), as a derivative that is itself
        # differentiated calls it: a push is an n-byte frame out of the stack `state`
        # points at; the shadow frame comes out of the shadow stack
        *(Allocator(f"__irgrad_tape_push{variant}", (1,), state_args=(0,),
                    released_with_state=True) for variant in ("_nocache", "_stable")),
    )
}


@dataclass(frozen=True)
class Deallocator:
    """A function that frees memory: the pointer is its first argument; ``size_arg`` is the
    byte count C++'s sized ``operator delete`` passes (None: no size)."""

    name: str
    size_arg: int | None = None


# releases of everything the pushes on a stack state allocated (the state is their first
# argument): the tape release of irgrad.ad.core.tape_runtime
STATE_RELEASE_FUNCTIONS = frozenset(["__irgrad_tape_release_nocache",
                                     "__irgrad_tape_release_stable"])
# releases of the heap blocks an object owns, through its descriptor (the first
# argument): flang's runtime finalizes a derived-type object and deallocates its
# allocatable components. The shadow object owns the shadow blocks: the derivative
# releases both (reverse mode: after the reverse pass, which still reads them).
OBJECT_RELEASE_FUNCTIONS = frozenset(["_FortranADestroy"])
DEALLOCATORS: dict[str, Deallocator] = {
    d.name: d
    for d in (
        Deallocator("free"),
        *(Deallocator(f"_Zd{k}Pv{tail}") for k in "la"
          for tail in ("", _NOTHROW, _ALIGN, _ALIGN + _NOTHROW)),
        *(Deallocator(f"_Zd{k}Pvm{tail}", size_arg=1) for k in "la" for tail in ("", _ALIGN)),
        *(Deallocator(name) for name in STATE_RELEASE_FUNCTIONS | OBJECT_RELEASE_FUNCTIONS),
    )
}
FREE_FUNCTIONS = frozenset(DEALLOCATORS)


def allocator(name: str | None) -> Allocator | None:
    if name is None:
        return None
    return _module().allocators.get(name) or ALLOCATORS.get(name) or _rust_allocator(name)


@lru_cache(maxsize=1024)
def _rust_allocator(name: str) -> Allocator | None:
    """Rust's allocator shims in whatever spelling rustc gave them
    (:mod:`irgrad.analysis.rust_runtime`)."""
    fields = rust_allocator_fields(name)
    return Allocator(**fields) if fields is not None else None  # type: ignore[arg-type]


def deallocator(name: str | None) -> Deallocator | None:
    if name is None:
        return None
    if is_rust_deallocator(name):  # __rust_dealloc(ptr, size, align)
        return Deallocator(name, size_arg=RUST_DEALLOC_SIZE_ARG)
    return DEALLOCATORS.get(name)


def is_allocation(name: str | None) -> bool:
    """A call whose result is fresh (or reallocated) heap memory."""
    a = allocator(name)
    return a is not None and a.returns_memory


def is_fresh_allocation(name: str | None) -> bool:
    a = allocator(name)
    return a is not None and a.fresh and a.returns_memory


def is_free(name: str | None) -> bool:
    return free_pointer_arg(name) is not None


def free_pointer_arg(name: str | None) -> int | None:
    """The index of the argument a deallocator frees (None: not a deallocator)."""
    if name is None:
        return None
    if name in FREE_FUNCTIONS or is_rust_deallocator(name):
        return 0
    return _module().deallocators.get(name)


def freed_pointer(call: CallBase) -> Value | None:
    """The pointer a call of a deallocator frees, or None."""
    k = free_pointer_arg(callee_name(call))
    args = call.args
    return args[k] if k is not None and k < len(args) else None


def is_state_release(name: str | None) -> bool:
    """Frees what a stack allocator's pushes allocated (its argument is the state)."""
    return name in STATE_RELEASE_FUNCTIONS


def is_object_release(name: str | None) -> bool:
    """Frees the heap blocks an object owns (its argument is the object's descriptor)."""
    return name in OBJECT_RELEASE_FUNCTIONS


# -- pointer structure ----------------------------------------------------------------

# Library functions that only walk or relink the nodes of a linked structure (the
# red-black tree under std::map/std::set, std::list's nodes) and touch no floating-point
# data. Their derivative is the same call on the shadows: the shadow structure, built as
# a copy of the primal one, stays one.
SHADOW_MIRRORED_FUNCTIONS = frozenset([
    "_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base",
    "_ZSt18_Rb_tree_incrementPKSt18_Rb_tree_node_base",
    "_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base",
    "_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base",
    "_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_",
    "_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_",
    "_ZNSt8__detail15_List_node_base7_M_hookEPS0_",
    "_ZNSt8__detail15_List_node_base9_M_unhookEv",
    "_ZNSt8__detail15_List_node_base10_M_reverseEv",
    "_ZNSt8__detail15_List_node_base11_M_transferEPS0_S1_",
    "_ZNSt8__detail15_List_node_base4swapERS0_S1_",
])


def is_shadow_mirrored(name: str | None) -> bool:
    """A function whose derivative is the same call on the shadows of its pointers."""
    return name in SHADOW_MIRRORED_FUNCTIONS


# -- library functions without derivatives ------------------------------------------------

# numba's runtime (NRT_*, numba_gil_*), the CPython API (Py*, _Py*) and the sanitizers'
# runtimes: bookkeeping that never carries derivatives
SANITIZER_PREFIXES = ("__ubsan_", "__asan_", "__sanitizer_", "__msan_", "__tsan_")
INACTIVE_PREFIXES = ("NRT_", "numba_gil_", "Py", "_Py",
                     # the sanitizers' runtime: UBSan's handlers, ASan's checks
                     *SANITIZER_PREFIXES)


def is_sanitizer_runtime(name: str | None) -> bool:
    """A check or report of a sanitizer's runtime (``-fsanitize=...`` instrumentation)."""
    return name is not None and name.startswith(SANITIZER_PREFIXES)

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
    # std::to_string(double) formats through vsnprintf in this variadic helper
    "_ZN9__gnu_cxx12__to_xstring",
    "_ZStplIcSt11char_traitsIcESaIcEE",  # std::string operator+
    "_ZSteqIcSt11char_traitsIcESaIcEE",  # std::string operator==
    # std::allocator<char> (a std::string's allocator: constructed and destroyed around
    # string temporaries, its memory holds characters only)
    "_ZNSaIcE", "_ZNKSaIcE", "_ZNSt15__new_allocatorIcE", "_ZNKSt15__new_allocatorIcE",
    # unordered containers' bucket arithmetic (_M_need_rehash, _M_next_bkt) and std::hash
    # of strings: integers from a load factor or from bytes, defined only in libstdc++.so
    "_ZNKSt8__detail20_Prime_rehash_policy", "_ZSt11_Hash_bytes", "_ZSt15_Fnv_hash_bytes",
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


def unmangled_name(name: str) -> str:
    """A free function's identifier from its Itanium C++ mangling (``_Z13__enzyme_iterll``
    -> ``__enzyme_iter``); other names as they are."""
    if name.startswith("_Z") and len(name) > 2 and name[2].isdigit():
        digits = len(name) - len(name[2:].lstrip("0123456789"))
        length = int(name[2:digits])
        return name[digits : digits + length]
    return name


# Enzyme's in-code hints: calls with no effect on memory that carry no derivative (their
# result is their first argument, or nothing). Matched by prefix after C++ demangling, as
# Enzyme matches by name; the API layer removes them after AD (irgrad.ad.api.hints).
ENZYME_HINT_FUNCTIONS = (
    "__enzyme_iter", "__enzyme_ignore_derivatives", "__enzyme_double", "__enzyme_float",
    "__enzyme_integer", "__enzyme_pointer",
)  # fmt: skip


def enzyme_hint(name: str | None) -> str | None:
    """The Enzyme hint a function name stands for (``__enzyme_double2`` -> ``__enzyme_double``)."""
    if name is None or "__enzyme_" not in name:
        return None
    base = unmangled_name(name)
    return next((h for h in ENZYME_HINT_FUNCTIONS if base.startswith(h)), None)


class InactiveNames(frozenset[str]):
    """A set of function names that also contains every name with an inactive prefix
    (C runtimes, the C++ standard library's text, I/O and error machinery, Enzyme's
    hints, Rust's panics and runtime probes, flang's I/O and termination calls)."""

    def __contains__(self, name: object) -> bool:
        return super().__contains__(name) or (
            isinstance(name, str)
            and (name.startswith(INACTIVE_PREFIXES) or is_cxx_inactive(name)
                 or super().__contains__(_unfortified(name))
                 or enzyme_hint(name) is not None or is_rust_inactive(name)
                 or is_fortran_inactive(name)))


def _unfortified(name: str) -> str:
    """What glibc's fortified variant ``__snprintf_chk`` checks and then calls
    (``snprintf``; _FORTIFY_SOURCE routes the library's calls there): as (in)active."""
    return name[2:-4] if name.startswith("__") and name.endswith("_chk") else ""


# External functions that never carry derivatives and never write user data: I/O, time,
# random numbers, process control, C string inspection, static-initialization guards.
INACTIVE_FUNCTIONS = InactiveNames(
    [
        "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "puts", "fputs",
        "putchar", "fputc", "putc", "fwrite", "write", "fflush", "perror", "__printf_chk",
        "__fprintf_chk", "abort", "exit", "_exit", "__assert_fail", "time", "clock",
        "gettimeofday", "clock_gettime", "rand", "srand", "random", "srandom", "getenv",
        "atoi", "atof", "strlen", "strcmp", "strncmp", "malloc_usable_size", "vsprintf",
        # byte comparisons (std::string's compare and operator< call memcmp): an integer
        # from memory they only read
        "memcmp", "bcmp", "strnlen", "strcasecmp", "strncasecmp", "strcoll", "strspn",
        "strcspn",
        "vsnprintf", "__chk_fail", "__stack_chk_fail", "__fdelt_chk",
        # opening, positioning and closing files (what is read is an input function's)
        "fopen", "fclose", "feof", "ferror", "clearerr", "rewind", "fseek", "ftell",
        "fgetc", "getc", "getchar", "ungetc", "open", "close",
        "__errno_location", "__cxa_guard_acquire", "__cxa_guard_release",
        # numba's helpers of array views: reshape/ravel compute the new view's integer
        # strides (the shadow view is made by the same code from the same integers)
        "numba_attempt_nocopy_reshape",
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
    """A call that carries no derivative whatever its arguments (the library functions
    above, flang's descriptor bookkeeping and its routines with integer result arrays,
    and the module's own functions registered inactive: those may write memory)."""
    return (is_inactive_function(name) or is_ignored_intrinsic(name)
            or is_fortran_bookkeeping(name) or is_fortran_integer_result(name)
            or (name is not None and name in _module().inactive))


def is_inactive_global(name: str | None) -> bool:
    """A global variable the module declared inactive (``__enzyme_inactive_global``,
    ``__attribute__((enzyme_inactive))``): it never carries derivatives."""
    return name is not None and name in _module().inactive_globals


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
    user memory other than through its out-parameters (frexp, modf) and errno. Functions
    a module declared like one (``__enzyme_function_like``) count too."""
    return name is not None and (name in _LIBM_SPELLINGS or name in _module().math_like)


def math_function_like(name: str | None) -> str | None:
    """The C math function a module declared ``name`` to behave like (``{fn, "log1p"}``):
    its derivative rule applies to calls of ``name``. None when there is no such
    declaration."""
    return _module().math_like.get(name) if name is not None else None


# -- what a module declares about its own functions ---------------------------------------


@dataclass(frozen=True)
class ModuleFunctions:
    """A module's own entries of the table (Enzyme's registrations and attributes).

    ``inactive``: functions that carry no derivatives (they may write memory);
    ``inactive_globals``: global variables that carry no derivatives; ``math_like``:
    function -> the C math function whose derivative rule it has; ``allocators`` and
    ``deallocators`` (name -> index of the freed pointer): allocation functions.
    """

    inactive: frozenset[str] = frozenset()
    inactive_globals: frozenset[str] = frozenset()
    math_like: Mapping[str, str] = field(default_factory=dict)
    allocators: Mapping[str, Allocator] = field(default_factory=dict)
    deallocators: Mapping[str, int] = field(default_factory=dict)


NO_MODULE_FUNCTIONS = ModuleFunctions()
_MODULE_FUNCTIONS: contextvars.ContextVar[ModuleFunctions] = contextvars.ContextVar(
    "irgrad_module_functions", default=NO_MODULE_FUNCTIONS)


def _module() -> ModuleFunctions:
    return _MODULE_FUNCTIONS.get()


@contextlib.contextmanager
def module_functions(known: ModuleFunctions) -> Iterator[None]:
    """Within the block, the queries of this module also answer from ``known`` (the
    declarations of the module being differentiated)."""
    token = _MODULE_FUNCTIONS.set(known)
    try:
        yield
    finally:
        _MODULE_FUNCTIONS.reset(token)


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
    "DEALLOCATORS",
    "ENZYME_HINT_FUNCTIONS",
    "FREE_FUNCTIONS",
    "IGNORED_INTRINSICS",
    "INACTIVE_FUNCTIONS",
    "LIBM_FUNCTIONS",
    "MEMORY_TRANSFER_PREFIXES",
    "NO_MODULE_FUNCTIONS",
    "OBJECT_RELEASE_FUNCTIONS",
    "SANITIZER_PREFIXES",
    "SHADOW_MIRRORED_FUNCTIONS",
    "Allocator",
    "Deallocator",
    "InactiveNames",
    "ModuleFunctions",
    "allocator",
    "callee_name",
    "deallocator",
    "enzyme_hint",
    "free_pointer_arg",
    "freed_pointer",
    "is_allocation",
    "is_cxx_inactive",
    "is_free",
    "is_fresh_allocation",
    "is_ignored_intrinsic",
    "is_inactive_call",
    "is_inactive_function",
    "is_inactive_global",
    "is_math_function",
    "is_math_intrinsic",
    "is_memory_transfer",
    "is_memset",
    "is_object_release",
    "is_sanitizer_runtime",
    "is_shadow_mirrored",
    "is_state_release",
    "libm_names",
    "math_function_like",
    "module_functions",
    "unmangled_name",
]
