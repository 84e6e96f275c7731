"""``irgrad opt``: IR in (file or stdin, text or bitcode), IR out (text or bitcode)."""

from __future__ import annotations

import subprocess

import llvmlite.binding as llvm

from irgrad.llvm import is_bitcode, parse_llvm
from irgrad.toolchain import find_tool

AXPY_C = """
void axpy(int n, double a, const double *restrict x, double *restrict y) {
  for (int i = 0; i < n; i++) y[i] += a * x[i];
}
"""


def _clang_O0_ll(tmp_path) -> str:
    src = tmp_path / "axpy.c"
    src.write_text(AXPY_C)
    out = subprocess.run(
        [find_tool("clang"), "-O0", "-S", "-emit-llvm", str(src), "-o", "-"],
        capture_output=True,
        check=True,
    )
    return out.stdout.decode()


def test_opt_file_to_text_file(tmp_path, irgrad) -> None:
    (tmp_path / "in.ll").write_text(_clang_O0_ll(tmp_path))
    proc = irgrad("opt", "in.ll", "-S", "-O3", "-o", "out.ll")
    assert proc.returncode == 0, proc.stderr.decode()
    text = (tmp_path / "out.ll").read_text()
    mod = parse_llvm(text, "out.ll")
    assert not mod.get_function("axpy").is_declaration
    # clang -O0 output was optimized: optnone gone, allocas gone, O3 vectorized the loop
    assert "optnone" not in text.split("attributes #0")[-1].split("\n")[0]
    assert "alloca" not in text
    assert "<2 x double>" in text or "<4 x double>" in text


def test_opt_stdin_to_bitcode_stdout(tmp_path, irgrad) -> None:
    proc = irgrad("opt", "-", "-O2", input=_clang_O0_ll(tmp_path).encode())
    assert proc.returncode == 0, proc.stderr.decode()
    assert is_bitcode(proc.stdout)
    mod = llvm.parse_bitcode(proc.stdout)
    assert mod.get_function("axpy") is not None
    (tmp_path / "o.bc").write_bytes(proc.stdout)
    dis = subprocess.run(
        [find_tool("llvm-dis"), str(tmp_path / "o.bc"), "-o", "-"], capture_output=True, check=True
    )
    assert "define dso_local void @axpy(" in dis.stdout.decode()


def test_opt_bitcode_input_O0(tmp_path, irgrad) -> None:
    (tmp_path / "in.ll").write_text(_clang_O0_ll(tmp_path))
    subprocess.run([find_tool("llvm-as"), "in.ll", "-o", "in.bc"], cwd=tmp_path, check=True)
    proc = irgrad("opt", "in.bc", "-S", "-O0")
    assert proc.returncode == 0, proc.stderr.decode()
    text = proc.stdout.decode()
    assert "define dso_local void @axpy(" in text
    # pre-AD pipeline ran (no allocas) but -O0 did not vectorize
    assert "alloca" not in text and "<2 x double>" not in text


def test_opt_bad_input_exits_2_with_location(tmp_path, irgrad) -> None:
    (tmp_path / "bad.ll").write_text("define i32 @f() {\n  ret i64 0\n}\n")
    proc = irgrad("opt", "bad.ll", "-S")
    err = proc.stderr.decode()
    assert proc.returncode == 2
    assert err.startswith("bad.ll:2:7: error: value doesn't match function result type")
    assert "Traceback" not in err


def test_opt_missing_file_and_bad_usage(irgrad) -> None:
    proc = irgrad("opt", "nope.ll", "-S")
    assert proc.returncode == 2 and b"cannot read 'nope.ll'" in proc.stderr
    assert b"Traceback" not in proc.stderr
    assert irgrad("frobnicate").returncode == 2
    assert irgrad("opt", "x.ll", "-O7").returncode == 2
