"""The pre-AD pipeline (canonicalize) and the post-AD pipeline (optimize)."""

from __future__ import annotations

import subprocess

from irgrad.llvm import canonicalize, load_file, optimize, parse_llvm, strip_optnone_text
from irgrad.toolchain import find_tool

AXPY = """
void axpy(int n, double a, const double *restrict x, double *restrict y) {
  for (int i = 0; i < n; i++) y[i] += a * x[i];
}
__attribute__((noinline)) double keep(double v) { return v * 2.0; }
"""


def _clang_ll(tmp_path, flags: list[str]) -> str:
    src = tmp_path / "axpy.c"
    src.write_text(AXPY)
    out = tmp_path / "axpy.ll"
    subprocess.run(
        [find_tool("clang"), "-S", "-emit-llvm", *flags, str(src), "-o", str(out)], check=True
    )
    return out.read_text()


def test_strip_optnone_from_clang_O0(tmp_path) -> None:
    text = _clang_ll(tmp_path, ["-O0"])
    assert "optnone" in text
    mod = canonicalize(parse_llvm(text, "axpy.ll"), filename="axpy.ll")
    out = str(mod)
    attr_lines = [ln for ln in out.splitlines() if ln.startswith(("attributes", "define"))]
    assert attr_lines and not any("optnone" in ln for ln in attr_lines)
    # O2 ran: the allocas of -O0 are gone (SROA) and the loop is a phi loop
    assert "alloca" not in out
    assert "phi i64" in out or "phi i32" in out


def test_strip_keeps_user_noinline_without_optnone() -> None:
    text = (
        "define void @a() #0 {\n  ret void\n}\n"
        "define void @b() #1 {\n  ret void\n}\n"
        'attributes #0 = { noinline nounwind optnone "x"="optnone" }\n'
        "attributes #1 = { noinline nounwind }\n"
    )
    out = strip_optnone_text(text)
    assert 'attributes #0 = { nounwind "x"="optnone" }' in out
    assert "attributes #1 = { noinline nounwind }" in out


def test_pre_ad_does_not_vectorize_but_O3_does(tmp_path) -> None:
    text = _clang_ll(tmp_path, ["-O2", "-Xclang", "-disable-llvm-passes"])
    mod = canonicalize(parse_llvm(text, "axpy.ll"))
    pre = str(mod)
    assert "define" in pre and "fmul" in pre
    assert "<2 x double>" not in pre and "<4 x double>" not in pre
    # no unrolling either: exactly one fmul in the loop body of axpy
    axpy_body = pre.split("@axpy(")[1].split("\n}\n")[0]
    assert axpy_body.count("fmul") == 1
    post = str(optimize(mod, 3))
    assert "<2 x double>" in post or "<4 x double>" in post


def test_optimize_O0_keeps_code(tmp_path) -> None:
    ll = tmp_path / "k.ll"
    ll.write_text(_clang_ll(tmp_path, ["-O0", "-Xclang", "-disable-O0-optnone"]))
    mod = optimize(load_file(ll), 0)
    assert "alloca" in str(mod)
