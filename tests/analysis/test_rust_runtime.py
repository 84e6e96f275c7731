"""Rust's runtime in the table of known functions: the allocator shims in every spelling
(by demangled name, whatever the hash) and the functions that never return."""

from __future__ import annotations

import pytest

from irgrad import ir
from irgrad.ad.api.integer_pointers import restore_pointers
from irgrad.analysis.known_functions import (
    allocator,
    deallocator,
    free_pointer_arg,
    is_allocation,
    is_fresh_allocation,
    is_inactive_call,
)
from irgrad.analysis.rust_runtime import rust_instance, rust_path, rust_runtime_name
from irgrad.ir.parser import parse_module

V0 = "_RNvCsfLfy6EI15iL_7___rustc"  # rustc 1.95's crate path of the shims
OTHER_HASH = "_RNvCs9aBcDeFgH12_7___rustc"


@pytest.mark.parametrize("prefix", [V0, OTHER_HASH])
def test_v0_shims(prefix: str) -> None:
    alloc = allocator(f"{prefix}12___rust_alloc")
    assert alloc is not None and alloc.size_args == (0,) and alloc.align_arg == 1
    assert not alloc.zeroed and alloc.fresh
    assert alloc.free_function == f"{prefix}14___rust_dealloc"
    assert alloc.free_args == (-1, 0, 1)  # __rust_dealloc(ptr, size, align)
    zeroed = allocator(f"{prefix}19___rust_alloc_zeroed")
    assert zeroed is not None and zeroed.zeroed
    realloc = allocator(f"{prefix}14___rust_realloc")
    assert realloc is not None and not realloc.fresh and is_allocation(realloc.name)
    assert (realloc.reallocates, realloc.old_size_arg, realloc.align_arg,
            realloc.size_args) == (0, 1, 2, (3,))
    assert not is_fresh_allocation(realloc.name)
    d = deallocator(f"{prefix}14___rust_dealloc")
    assert d is not None and d.size_arg == 1
    assert free_pointer_arg(f"{prefix}14___rust_dealloc") == 0
    assert is_inactive_call(f"{prefix}35___rust_no_alloc_shim_is_unstable_v2")


def test_other_spellings() -> None:
    for name in ("__rust_alloc", "__rustc::__rust_alloc",
                 "_ZN7__rustc12__rust_alloc17h0123456789abcdefE"):
        assert rust_runtime_name(name) == "__rust_alloc", name
        alloc = allocator(name)
        assert alloc is not None and alloc.size_args == (0,), name
    assert allocator("__rust_alloc").free_function == "__rust_dealloc"  # type: ignore[union-attr]
    assert allocator("__rustc::__rust_alloc").free_function == "__rustc::__rust_dealloc"  # type: ignore[union-attr]
    # legacy mangling: the free's hash is another one; C's free releases the shadow
    assert allocator("_ZN7__rustc12__rust_alloc17h0123456789abcdefE").free_function is None  # type: ignore[union-attr]
    assert free_pointer_arg("__rustc::__rust_dealloc") == 0
    assert free_pointer_arg("_ZN7__rustc14__rust_dealloc17hfedcba9876543210E") == 0


def test_not_shims() -> None:
    for name in ("my_rust_alloc", "_RNvCsfLfy6EI15iL_5mycrate12___rust_alloc", "malloc_rust",
                 "_RNvCsfLfy6EI15iL_7___rustc12___rust_allo"):
        assert rust_runtime_name(name) is None or allocator(name) is None, name


def test_paths() -> None:
    assert rust_path("_RNvNtCsgEmfK2I1SDS_4core9panicking5panic") == ("core", "panicking", "panic")
    assert rust_path("_ZN4core6option13unwrap_failed17h0123456789abcdefE") == (
        "core", "option", "unwrap_failed")
    assert rust_path("malloc") is None


@pytest.mark.parametrize("name", [
    "_RNvNtCsgEmfK2I1SDS_4core9panicking5panic",
    "_RNvNtCsgEmfK2I1SDS_4core9panicking9panic_fmt",
    "_RNvNtCsgEmfK2I1SDS_4core9panicking18panic_bounds_check",
    "_RNvNtCslNYArtu3iFV_5alloc7raw_vec12handle_error",
    "_ZN4core6option13unwrap_failed17h0123456789abcdefE",
    "_ZN5alloc5alloc18handle_alloc_error17h0123456789abcdefE",
    "rust_eh_personality",
    # println!/eprintln! (std::io::stdio::_print, _eprint): only the terminal is written
    "_RNvNtNtCsjrHSEGnQ3l9_3std2io5stdio6__print",
    "_RNvNtNtCsjrHSEGnQ3l9_3std2io5stdio7__eprint",
    "_ZN3std2io5stdio6_print17h0123456789abcdefE",
])
def test_never_returning_runtime_is_inactive(name: str) -> None:
    assert is_inactive_call(name)


@pytest.mark.parametrize("name", [
    "_RNvNtCsgEmfK2I1SDS_4core3f6411sqrt_helper",  # core, but not a panic
    "_RNvNtCs1sLtFQZSptO_5nbody9panicking5panic",  # a user crate's own 'panic'
    "_RNvNtNtCs1sLtFQZSptO_5nbody2io5stdio6__print",  # and its own 'io::stdio::_print'
    "_RNvMs4_NtCslNYArtu3iFV_5alloc7raw_vecNtB5_11RawVecInner14grow_amortizedCsduwmD7cSIQq_5gimli",
])
def test_other_rust_functions_are_not_inactive(name: str) -> None:
    assert not is_inactive_call(name)


def test_pointer_carried_through_an_integer_phi() -> None:
    """``inttoptr (phi [ptrtoint %block], [8])`` becomes a pointer phi (its shadow is the
    block's shadow); an address computed with arithmetic stays an integer."""
    module = parse_module("""
declare ptr @__rust_alloc(i64, i64)
define ptr @f(i1 %c, i64 %k) {
entry:
  br i1 %c, label %a, label %b
a:
  %p = call ptr @__rust_alloc(i64 16, i64 8)
  %i = ptrtoint ptr %p to i64
  br label %m
b:
  br label %m
m:
  %v = phi i64 [ %i, %a ], [ 8, %b ]
  %q = inttoptr i64 %v to ptr
  %w = add i64 %v, %k
  %r = inttoptr i64 %w to ptr
  %s = select i1 %c, i64 %v, i64 %i
  %t = inttoptr i64 %s to ptr
  store ptr %r, ptr %t
  ret ptr %q
}
""")
    fn = module.get_function("f")
    assert fn is not None
    assert restore_pointers(fn) == 2
    text = str(module)
    assert "phi ptr [ %p, %a ], [ inttoptr (i64 8 to ptr), %b ]" in text
    assert "select i1 %c, ptr %v.ptr, ptr %p" in text
    assert "%r = inttoptr i64 %w to ptr" in text  # arithmetic: left alone
    assert "ret ptr %v.ptr" in text
    assert isinstance(fn.blocks[-1].instructions[0], ir.PHINode)


def test_dangling_pointer_of_a_constant_argument() -> None:
    """``inttoptr i64 %align`` where every caller passes a constant alignment (Rust's
    ``NonNull::dangling()`` in ``RawVecInner::finish_grow``, shared by a ``String`` and a
    ``Vec<f64>``) becomes null-based: its own shadow. An integer a caller outside the
    module may pass stays an ``inttoptr``."""
    module = parse_module("""
define internal ptr @finish(i64 %align, i1 %c) {
  %p = inttoptr i64 %align to ptr
  ret ptr %p
}
define internal ptr @grow(i64 %a) {
  %r = call ptr @finish(i64 %a, i1 false)
  ret ptr %r
}
define ptr @strings() {
  %r = call ptr @grow(i64 1)
  ret ptr %r
}
define ptr @floats(i1 %c) {
  %a = select i1 %c, i64 8, i64 16
  %r = call ptr @finish(i64 %a, i1 true)
  ret ptr %r
}
define ptr @exported(i64 %bits) {
  %p = inttoptr i64 %bits to ptr
  ret ptr %p
}
""")
    functions = [f for f in module.functions if not f.is_declaration]
    assert sum(restore_pointers(f) for f in functions) == 1
    text = str(module)
    assert "%p = getelementptr i8, ptr null, i64 %align" in text
    assert "%p = inttoptr i64 %bits to ptr" in text


STD_STRING_GROW = ("_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecNtNtB7_6string6StringE"
                   "8grow_oneCsjrHSEGnQ3l9_3std")


def test_generic_instances() -> None:
    """v0 names of generic instances: an inherent impl's self type with its arguments,
    back-references to the crate root."""
    assert rust_instance(STD_STRING_GROW) == (
        ("alloc", "raw_vec", "RawVec", "grow_one"), (("path", ("alloc", "string", "String"), ()),))
    assert rust_instance("_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVechE8grow_oneB7_") == (
        ("alloc", "raw_vec", "RawVec", "grow_one"), (("basic", "h"),))
    assert rust_instance("malloc") is None


def test_upstream_growth_of_float_free_vectors_is_inactive() -> None:
    """``Vec<String>::push`` and ``Vec<u8>::push`` call the standard library's native
    ``RawVec<String>::grow_one``/``RawVec<u8>::grow_one`` (rustc reuses its
    ``#[inline(never)]`` instances): no float in what they move. ``RawVec<f64>``'s
    would move derivatives: not inactive (its IR is the crate's own)."""
    assert is_inactive_call(STD_STRING_GROW)
    assert is_inactive_call("_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVechE8grow_oneB7_")
    assert not is_inactive_call(
        "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecdE8grow_oneCsjrHSEGnQ3l9_3std")
    # Vec<Vec<f64>>: a buffer of pointers to floats
    assert not is_inactive_call(
        "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecINtNtB7_3vec3VecdEE8grow_oneB7_")
    assert is_inactive_call(  # format!'s alloc::fmt::format::format_inner: a new String
        "_RNvNvNtCslNYArtu3iFV_5alloc3fmt6format12format_inner")
