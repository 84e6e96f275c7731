"""Lazy function bodies: parsed on first access, re-emitted verbatim when untouched."""

from __future__ import annotations

import pytest

from irgrad import ir
from irgrad.errors import IRParseError

SRC = """declare void @ext(i32)

define i32 @a(i32 %0) {
  ; a comment that only the original text has
  %2 = add i32 %0,   1
  call void @ext(i32 %2)
  ret i32 %2
}

define i32 @b(i32 %x) {
entry:
  %y = mul i32 %x, %x
  ret i32 %y
}
"""


def test_bodies_are_lazy_until_accessed() -> None:
    m = ir.parse_module(SRC)
    a, b = m.get_function("a"), m.get_function("b")
    assert not a.is_materialized and not b.is_materialized
    assert not a.is_declaration and m.get_function("ext").is_declaration
    assert [f.name for f in m.functions] == ["ext", "a", "b"]
    assert len(b.blocks) == 1
    assert b.is_materialized and not a.is_materialized
    assert a.args[0].name is None and b.args[0].name == "x"


def test_untouched_body_reemitted_verbatim() -> None:
    m = ir.parse_module(SRC)
    out = ir.print_module(m)
    assert "; a comment that only the original text has" in out
    assert "%2 = add i32 %0,   1" in out
    m.get_function("a").blocks  # noqa: B018 - materialize
    out2 = ir.print_module(m)
    assert "; a comment" not in out2 and "%2 = add i32 %0, 1" in out2


def test_lazy_equals_eager() -> None:
    eager = ir.print_module(ir.parse_module(SRC, lazy=False))
    lazy_m = ir.parse_module(SRC)
    for f in lazy_m.functions:
        f.materialize()
    assert ir.print_module(lazy_m) == eager


def test_global_uses_materialize_bodies() -> None:
    m = ir.parse_module(SRC)
    ext = m.get_function("ext")
    users = [u.user for u in ext.uses]
    assert len(users) == 1 and users[0].opcode == "call"
    assert m.get_function("a").is_materialized


def test_renaming_global_keeps_bodies_consistent() -> None:
    m = ir.parse_module(SRC)
    m.get_function("ext").name = "external_fn"
    out = ir.print_module(m)
    assert "call void @external_fn(i32 %2)" in out and "@ext(" not in out


def test_lazy_error_has_absolute_location() -> None:
    bad = SRC.replace("%y = mul i32 %x, %x", "%y = mul i32 %x, %nope")
    m = ir.parse_module(bad, "bad.ll")
    with pytest.raises(IRParseError) as err:
        m.get_function("b").blocks  # noqa: B018
    assert err.value.format() == "bad.ll:12:20: error: use of undefined value '%nope'"
    with pytest.raises(IRParseError):
        ir.parse_module(bad, "bad.ll", lazy=False)
    # still lazy after the failure: the error repeats
    with pytest.raises(IRParseError):
        m.get_function("b").blocks  # noqa: B018


def test_numbered_globals_match_references_in_untouched_bodies() -> None:
    # clang's sanitizers emit unnamed globals (@0, @1...): printed as "@\"0\"" they would be
    # a different, named global from the @0 an untouched (verbatim) body refers to
    from ir_helpers import check_roundtrip, clang_ir

    src = "double g(double *x, int n) { double s = 0; for (int i = 0; i < n; i++) " \
          "s += x[i] * x[i]; return s; }\n"
    text = clang_ir(src, "-O2", extra=("-fsanitize=undefined",))
    assert "@0 = " in text
    out = check_roundtrip(text, "ubsan.c")
    assert "@0 = " in out and '@"0"' not in out
