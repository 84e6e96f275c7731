"""Rust's runtime by name: the allocator shims and the functions that never return
(panics, bounds checks, allocation failure).

rustc spells the same runtime function differently from one release and one mangling to
the next: ``__rust_alloc`` (before 1.86), ``__rustc::__rust_alloc`` (the path since then),
v0-mangled ``_RNvCs<hash>_7___rustc12___rust_alloc`` and legacy-mangled
``_ZN7__rustc12__rust_alloc17h<hash>E``. The hash changes with every toolchain. So a
symbol is matched by its *demangled path* (:func:`rust_path`), never by one hash. The
default allocator's functions the shims call, ``__rdl_alloc`` and its siblings (in the
same spellings), are the same allocator: a staticlib built with ``-C linker-plugin-lto``
carries the shims as bitcode, and they inline into the code irgrad differentiates.

The shims' arguments (rustc's ``alloc::alloc`` ABI)::

    __rust_alloc(size, align) -> ptr               __rust_alloc_zeroed(size, align) -> ptr
    __rust_realloc(ptr, old_size, align, new_size) -> ptr
    __rust_dealloc(ptr, size, align)

:func:`rust_allocator` gives the :class:`~irgrad.analysis.known_functions.Allocator`
record of a shim *in the module's own spelling* (its free function is ``__rust_dealloc``
spelled the same way), and :func:`rust_deallocator` the freed-pointer index.
"""

from __future__ import annotations

import re

# the shims' prefix, and that of the default allocator's functions (``std::alloc``'s
# ``__rdl_alloc``, ``__rdl_alloc_zeroed``, ``__rdl_realloc``, ``__rdl_dealloc``: the
# same arguments) that the shims call when no ``#[global_allocator]`` is set
_SHIM = "__rust_"
_DEFAULT_ALLOCATOR = "__rdl_"
_RUNTIME_PREFIXES = (_SHIM, _DEFAULT_ALLOCATOR)

# -- demangling (just enough of it: paths of plain identifiers) --------------------------

_LEGACY_HASH = re.compile(r"17h[0-9a-f]{16}E")
_BASE62 = re.compile(r"[0-9a-zA-Z]*_")


def _ident(s: str, i: int, v0: bool = True) -> tuple[str, int] | None:
    """A length-prefixed identifier at ``s[i:]`` (v0: an ``_`` separates the length from
    an identifier that starts with a digit or ``_``; legacy mangling has none)."""
    if i < len(s) and s[i] == "u":  # punycode: not a runtime name
        return None
    j = i
    while j < len(s) and s[j].isdigit():
        j += 1
    if j == i:
        return None
    n = int(s[i:j])
    if v0 and j < len(s) and s[j] == "_":
        j += 1
    if j + n > len(s):
        return None
    return s[j : j + n], j + n


def _v0_path(s: str, i: int) -> tuple[list[str], int] | None:
    """A v0 path made of ``C`` (crate root) and ``N<namespace>`` (nested) nodes."""
    if i >= len(s):
        return None
    tag = s[i]
    if tag == "C":
        i += 1
        if i < len(s) and s[i] == "s":  # disambiguator: s<base62>_
            m = _BASE62.match(s, i + 1)
            if m is None:
                return None
            i = m.end()
        got = _ident(s, i)
        return ([got[0]], got[1]) if got is not None else None
    if tag == "N" and i + 1 < len(s):
        inner = _v0_path(s, i + 2)
        if inner is None:
            return None
        got = _ident(s, inner[1])
        return ([*inner[0], got[0]], got[1]) if got is not None else None
    return None


# -- generic instances (v0 only): ``<RawVec<String>>::grow_one`` ---------------------------

# a type argument: ("basic", letter) for a primitive (v0's ``h`` = u8, ``d`` = f64...), or
# ("path", segments, its own type arguments)
TypeArg = tuple[object, ...]


def _base62(s: str, i: int) -> tuple[int, int] | None:
    """v0's ``<base-62-number>``: ``_`` is 0, ``<digits>_`` is the digits' value + 1."""
    m = _BASE62.match(s, i)
    if m is None:
        return None
    digits = m.group()[:-1]
    value = 0
    for ch in digits:
        value = value * 62 + "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".index(ch)
    return (value + 1 if digits else 0), m.end()


def _v0_generic(s: str, i: int, depth: int = 0
                ) -> tuple[tuple[str, ...], tuple[TypeArg, ...], int] | None:
    """A v0 path with generic arguments, inherent impls and back-references: its
    segments (an impl's: its self type's, then the item), the generic arguments of the
    innermost generic type on it, and where it ends. None for what it does not know."""
    if i >= len(s) or depth > 16:
        return None
    tag = s[i]
    if tag == "C":
        got = _v0_path(s, i)
        return (tuple(got[0]), (), got[1]) if got is not None else None
    if tag == "N" and i + 1 < len(s):
        inner = _v0_generic(s, i + 2, depth + 1)
        if inner is None:
            return None
        ident = _ident(s, inner[2])
        return ((*inner[0], ident[0]), inner[1], ident[1]) if ident is not None else None
    if tag == "B":  # back-reference to an offset after "_R"
        ref = _base62(s, i + 1)
        target = _v0_generic(s, 2 + ref[0], depth + 1) if ref is not None else None
        return (target[0], target[1], ref[1]) if target is not None and ref is not None else None
    if tag == "I":
        base = _v0_generic(s, i + 1, depth + 1)
        if base is None:
            return None
        args: list[TypeArg] = []
        j = base[2]
        while j < len(s) and s[j] != "E":
            arg = _v0_type(s, j, depth + 1)
            if arg is None:
                return None
            args.append(arg[0])
            j = arg[1]
        return (base[0], tuple(args), j + 1) if j < len(s) else None
    if tag == "M":  # inherent impl: [disambiguator] impl-path self-type
        j = i + 1
        if j < len(s) and s[j] == "s":
            m = _BASE62.match(s, j + 1)
            if m is None:
                return None
            j = m.end()
        impl = _v0_generic(s, j, depth + 1)
        if impl is None:
            return None
        self_type = _v0_type(s, impl[2], depth + 1)
        if self_type is None or self_type[0][0] != "path":
            return None
        return self_type[0][1], self_type[0][2], self_type[1]  # type: ignore[return-value]
    return None


_BASIC_TYPES = frozenset("abcdefhijlmnostuxyz")


def _v0_type(s: str, i: int, depth: int) -> tuple[TypeArg, int] | None:
    if i < len(s) and s[i] in _BASIC_TYPES:
        return ("basic", s[i]), i + 1
    got = _v0_generic(s, i, depth)
    return (("path", got[0], got[1]), got[2]) if got is not None else None


def rust_instance(name: str | None) -> tuple[tuple[str, ...], tuple[TypeArg, ...]] | None:
    """The path of a v0-mangled generic instance (``alloc::raw_vec::RawVec::grow_one``)
    and the type arguments of its self type (``RawVec<String>``: the path
    ``alloc::string::String``); None for other names."""
    if not name or not name.startswith("_RN"):
        return None
    got = _v0_generic(name, 2)
    return (got[0], got[1]) if got is not None else None


def rust_path(name: str | None) -> tuple[str, ...] | None:
    """The path of a Rust symbol (``("__rustc", "__rust_alloc")``,
    ``("core", "panicking", "panic")``), from v0 or legacy mangling or written out with
    ``::``; None for a symbol that is none of these."""
    if not name:
        return None
    if name.startswith("_RNv") or name.startswith("_RNt"):
        got = _v0_path(name, 2)
        if got is not None and got[1] == len(name):
            return tuple(got[0])
        return None
    if name.startswith("_ZN"):
        parts: list[str] = []
        i = 3
        while i < len(name) and name[i].isdigit():
            if _LEGACY_HASH.fullmatch(name, i):
                break
            got = _ident(name, i, v0=False)
            if got is None:
                return None
            parts.append(got[0])
            i = got[1]
        rest = name[i:]
        if parts and (rest == "E" or _LEGACY_HASH.fullmatch(rest)):
            return tuple(parts)
        return None
    if "::" in name:
        return tuple(name.split("::"))
    return None


def _runtime_identifier(name: str | None) -> str | None:
    """The identifier a runtime symbol spells (``__rust_alloc``, ``__rdl_alloc``), from
    any mangling; None for other names."""
    if name is None:
        return None
    if name.startswith(_RUNTIME_PREFIXES):
        return name
    path = rust_path(name)
    if path is not None and len(path) == 2 and path[0] == "__rustc" \
            and path[1].startswith(_RUNTIME_PREFIXES):
        return path[1]
    return None


def rust_runtime_name(name: str | None) -> str | None:
    """``__rust_alloc`` for every spelling of that shim (and of the others), and for the
    default allocator's ``__rdl_alloc`` the shim calls (rustc's allocator shim, compiled
    into the bitcode of a ``-C linker-plugin-lto`` staticlib, inlines into its caller);
    None for other names."""
    ident = _runtime_identifier(name)
    if ident is not None and ident.startswith(_DEFAULT_ALLOCATOR):
        return _SHIM + ident.removeprefix(_DEFAULT_ALLOCATOR)
    return ident


# -- allocation ----------------------------------------------------------------------------

# base name -> (size arguments, zeroed, reallocated pointer, alignment argument, old size)
RUST_ALLOCATOR_SHIMS: dict[str, tuple[tuple[int, ...], bool, int | None, int, int | None]] = {
    "__rust_alloc": ((0,), False, None, 1, None),
    "__rust_alloc_zeroed": ((0,), True, None, 1, None),
    "__rust_realloc": ((3,), False, 0, 2, 1),
}
# the freed pointer of __rust_dealloc(ptr, size, align); its size argument
RUST_DEALLOCATOR = "__rust_dealloc"
RUST_DEALLOC_SIZE_ARG = 1

# __rust_dealloc's arguments, for a block that __rust_alloc(size, align) returned:
# (-1: the pointer, then the allocator's size and alignment arguments)
_FREE_ARGS = {"__rust_alloc": (-1, 0, 1), "__rust_alloc_zeroed": (-1, 0, 1),
              "__rust_realloc": (-1, 3, 2)}


def rust_dealloc_spelling(name: str, base: str) -> str | None:
    """The deallocator of the family ``name`` (a spelling of shim ``base``, or of the
    default allocator's function for it) belongs to, spelled the way ``name`` is:
    ``__rust_dealloc``, ``_RNvCs…_7___rustc13___rdl_dealloc``; None for legacy mangling,
    whose hash differs from symbol to symbol (C's ``free`` then releases the shadows, as
    Rust's default allocator does)."""
    if name.startswith("_ZN"):
        return None
    ident = _runtime_identifier(name) or base
    family = _DEFAULT_ALLOCATOR if ident.startswith(_DEFAULT_ALLOCATOR) else _SHIM
    dealloc = family + RUST_DEALLOCATOR.removeprefix(_SHIM)
    if name == ident:
        return dealloc
    if name.startswith("_RNv"):
        return name.replace(f"{len(ident)}_{ident}", f"{len(dealloc)}_{dealloc}")
    return name.replace(ident, dealloc)


def rust_allocator_fields(name: str | None) -> dict[str, object] | None:
    """The :class:`Allocator` fields of a Rust allocator shim called ``name`` (in any
    spelling), or None."""
    base = rust_runtime_name(name)
    if name is None or base not in RUST_ALLOCATOR_SHIMS:
        return None
    sizes, zeroed, reallocates, align, old_size = RUST_ALLOCATOR_SHIMS[base]
    return {"name": name, "size_args": sizes, "zeroed": zeroed, "reallocates": reallocates,
            "align_arg": align, "old_size_arg": old_size,
            "free_function": rust_dealloc_spelling(name, base), "free_args": _FREE_ARGS[base]}


def is_rust_deallocator(name: str | None) -> bool:
    return rust_runtime_name(name) == RUST_DEALLOCATOR


# -- functions that carry no derivative ------------------------------------------------------

# runtime functions with no effect on numbers: the allocator's "is the shim linked" probe,
# the out-of-memory handler, the exception personality
_INACTIVE_RUNTIME = ("__rust_no_alloc_shim_is_unstable", "__rust_alloc_error_handler",
                     "__rust_probestack", "__rust_start_panic", "__rust_panic_cleanup")
_INACTIVE_SYMBOLS = frozenset(["rust_eh_personality", "rust_begin_unwind", "rust_panic"])
# functions of the standard library's crates that never return normally: panics, failed
# bounds and unwrap checks, capacity overflow and allocation failure
_STD_CRATES = frozenset(["core", "alloc", "std"])
_NEVER_RETURNING = re.compile(
    r"^(panic\w*|begin_panic\w*|\w*_fail|\w*_failed|unwrap_failed|expect_failed"
    r"|handle_error|handle_alloc_error|capacity_overflow|panic_bounds_check"
    r"|assert_failed\w*|slice_\w+_fail)$")
# what ``print!``/``println!``/``eprint!``/``eprintln!`` expand to: ``std::io::stdio::_print``
# and ``_eprint`` read their ``fmt::Arguments`` (references to the values shown, a float
# among them) and write only to the terminal, like C's printf; ``format!``'s
# ``alloc::fmt::format::format_inner`` writes the text into a new ``String``, like sprintf
_STD_PRINTERS = frozenset([("std", "io", "stdio", "_print"), ("std", "io", "stdio", "_eprint"),
                           ("alloc", "fmt", "format", "format_inner")])


# Generic methods that rustc takes from the standard library's native code, without IR:
# it reuses the standard library's own instance of an ``#[inline(never)]`` generic even
# under ``-Z share-generics=no``, as it does for ``Vec<String>::push`` and
# ``Vec<u8>::push``, which call ``RawVec<String>::grow_one`` and ``RawVec<u8>::grow_one``.
# They reallocate a buffer whose elements hold no floating-point data (bytes, strings),
# so no derivative goes through them: what they move is inactive.
_RAW_VEC = ("alloc", "raw_vec", "RawVec")
_RAW_VEC_GROWTH = frozenset(["grow_one"])
_NO_FLOAT_BASIC = frozenset("abcehijlmnostuxy")  # integers, bool, char, str, ()
_NO_FLOAT_PATHS = frozenset([("alloc", "string", "String")])
_OWNING_PATHS = frozenset([("alloc", "vec", "Vec"), ("alloc", "boxed", "Box")])


def _holds_no_float(arg: TypeArg) -> bool:
    if arg[0] == "basic":
        return arg[1] in _NO_FLOAT_BASIC
    path, args = arg[1], arg[2]
    if path in _NO_FLOAT_PATHS:
        return True
    return path in _OWNING_PATHS and all(_holds_no_float(a) for a in args)  # type: ignore[union-attr]


def _grows_float_free_buffer(name: str) -> bool:
    """``RawVec<T>::grow_one`` for an element type ``T`` that holds no float."""
    got = rust_instance(name)
    if got is None:
        return False
    path, args = got
    return (path[:-1] == _RAW_VEC and path[-1] in _RAW_VEC_GROWTH and len(args) >= 1
            and _holds_no_float(args[0]))


def is_rust_inactive(name: str | None) -> bool:
    """A Rust runtime function that never carries derivatives: panics and the failed
    checks that lead to them (they never return, so nothing after them is
    differentiated), allocation failure, the allocator's link probe, unwinding, and the
    standard library's printing to stdout and stderr."""
    if not name:
        return False
    if name in _INACTIVE_SYMBOLS:
        return True
    base = rust_runtime_name(name)
    if base is not None:
        return base.startswith(_INACTIVE_RUNTIME)
    if not name.startswith(("_RNv", "_ZN")):
        return False
    if _grows_float_free_buffer(name):
        return True
    path = rust_path(name)
    if path is None or path[0] not in _STD_CRATES:
        return False
    return _NEVER_RETURNING.match(path[-1]) is not None or path in _STD_PRINTERS


__all__ = [
    "RUST_ALLOCATOR_SHIMS",
    "RUST_DEALLOCATOR",
    "RUST_DEALLOC_SIZE_ARG",
    "is_rust_deallocator",
    "is_rust_inactive",
    "rust_allocator_fields",
    "rust_dealloc_spelling",
    "rust_instance",
    "rust_path",
    "rust_runtime_name",
]
