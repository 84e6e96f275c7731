"""irgrad.llvm.load: .ll and .bc input, stdin, and LLVM's diagnostics as LLVMError."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from irgrad.errors import LLVMError
from irgrad.llvm import is_bitcode, load_file, parse_llvm
from irgrad.toolchain import find_tool

SQUARE = """\
define double @square(double %x) {
entry:
  %y = fmul double %x, %x
  ret double %y
}
"""


def test_parse_text_module() -> None:
    mod = parse_llvm(SQUARE, "sq.ll")
    assert [f.name for f in mod.functions] == ["square"]


def test_load_bitcode_made_by_llvm_as(tmp_path) -> None:
    ll = tmp_path / "sq.ll"
    ll.write_text(SQUARE)
    bc = tmp_path / "sq.bc"
    subprocess.run([find_tool("llvm-as"), str(ll), "-o", str(bc)], check=True)
    assert is_bitcode(bc.read_bytes())
    mod = load_file(bc)
    assert "fmul double %x, %x" in str(mod)


def test_load_from_stdin(monkeypatch) -> None:
    fake = io.TextIOWrapper(io.BytesIO(SQUARE.encode()))
    monkeypatch.setattr(sys, "stdin", fake)
    mod = load_file("-")
    assert mod.get_function("square").name == "square"


def test_malformed_text_reports_file_line_col(tmp_path) -> None:
    bad = tmp_path / "bad.ll"
    bad.write_text("define i32 @f() {\n  ret i64 0\n}\n")
    with pytest.raises(LLVMError) as info:
        load_file(bad)
    err = info.value
    assert err.location is not None
    assert (err.location.filename, err.location.line, err.location.column) == (str(bad), 2, 7)
    assert err.format().startswith(f"{bad}:2:7: error: value doesn't match function result type")


def test_undefined_value_message() -> None:
    with pytest.raises(LLVMError) as info:
        parse_llvm("define void @g() {\n  %a = fadd double %nope, 1.0\n  ret void\n}\n", "u.ll")
    assert "u.ll:2:" in info.value.format()
    assert "use of undefined value '%nope'" in info.value.message


def test_verifier_failure_names_problem() -> None:
    text = (
        "define void @g() {\n"
        "entry:\n"
        "  %x = add i32 %y, 1\n"
        "  %y = add i32 1, 1\n"
        "  ret void\n"
        "}\n"
    )
    with pytest.raises(LLVMError) as info:
        parse_llvm(text, "dom.ll")
    assert "Instruction does not dominate all uses!" in info.value.message
    assert info.value.location is not None
    assert info.value.location.filename == "dom.ll"
    # the quoted use is found in the input: it points at the defining line of %y or %x
    assert info.value.location.line in (3, 4)


def test_garbage_bitcode() -> None:
    with pytest.raises(LLVMError) as info:
        parse_llvm(b"BC\xc0\xde" + b"\x00" * 12, "junk.bc")
    assert info.value.format().startswith("junk.bc: error: cannot read LLVM bitcode")


def test_missing_file() -> None:
    with pytest.raises(LLVMError, match="cannot read"):
        load_file("/nonexistent/x.ll")
