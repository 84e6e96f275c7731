"""Object emission and linking through clang-22."""

from __future__ import annotations

import subprocess

from irgrad.llvm import LinkOptions, emit_object, link, parse_llvm

MAIN = """\
@fmt = private constant [6 x i8] c"v=%d\\0A\\00"
declare i32 @printf(ptr, ...)
define i32 @main() {
  %r = call i32 (ptr, ...) @printf(ptr @fmt, i32 42)
  ret i32 0
}
"""


def test_emit_object_and_link(tmp_path) -> None:
    obj = tmp_path / "m.o"
    data = emit_object(parse_llvm(MAIN, "m.ll"), obj)
    assert data[:4] == b"\x7fELF"
    exe = link([obj], tmp_path / "m", LinkOptions(use_lld=True))
    out = subprocess.run([str(exe)], capture_output=True, check=True, text=True)
    assert out.stdout == "v=42\n"
