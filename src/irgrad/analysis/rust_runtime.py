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
# among them) and write only to the terminal, like C's printf
_STD_PRINTERS = frozenset([("std", "io", "stdio", "_print"), ("std", "io", "stdio", "_eprint")])


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
    "rust_path",
    "rust_runtime_name",
]
