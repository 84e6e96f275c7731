"""``irgrad cc``: build and run real programs (C, Fortran, Rust) through the pipeline."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from irgrad.llvm import is_bitcode, parse_llvm

HEADER = """\
#pragma once
double dot(const double *a, const double *b, int n);
double scale_sum(const double *a, int n, double s);
"""
DOT_C = """\
#include "vec.h"
double dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
"""
SCALE_C = """\
#include "vec.h"
double scale_sum(const double *a, int n, double s) {
  double t = 0;
  for (int i = 0; i < n; i++) t += s * a[i];
  return t;
}
"""
MAIN_C = """\
#include <stdio.h>
#include <math.h>
#include "vec.h"
int main(void) {
  double a[5] = {1, 2, 3, 4, SHIFT}, b[5] = {4, 3, 2, 1, 0};
  printf("dot=%.1f scaled=%.2f root=%.4f\\n", dot(a, b, 5), scale_sum(a, 5, 0.5),
         sqrt(dot(a, a, 5)));
  return 0;
}
"""


def _project(tmp_path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "vec.h").write_text(HEADER)
    (tmp_path / "dot.c").write_text(DOT_C)
    (tmp_path / "scale.c").write_text(SCALE_C)
    (tmp_path / "main.c").write_text(MAIN_C)


# a = {1,2,3,4,3}: dot(a,b) = 4+6+6+4+0 = 20; scale_sum = 0.5*13 = 6.5; |a|^2 = 39
OUTPUT = "dot=20.0 scaled=6.50 root=6.2450\n"


@pytest.mark.parametrize("level", ["-O0", "-O3"])
def test_cc_multi_file_program(tmp_path, irgrad, level, run_program) -> None:
    _project(tmp_path)
    proc = irgrad("cc", level, "-Iinc", "-DSHIFT=3", "main.c", "dot.c", "scale.c", "-o", "prog", "-lm")
    assert proc.returncode == 0, proc.stderr.decode()
    assert run_program(tmp_path / "prog") == OUTPUT


def test_cc_compile_then_link(tmp_path, irgrad, run_program) -> None:
    _project(tmp_path)
    proc = irgrad("cc", "-O2", "-I", "inc", "-c", "dot.c", "scale.c")
    assert proc.returncode == 0, proc.stderr.decode()
    assert is_bitcode((tmp_path / "dot.o").read_bytes())  # an LTO object
    proc = irgrad("cc", "-O2", "-Iinc", "-D", "SHIFT=3", "-c", "main.c", "-o", "m.o")
    assert proc.returncode == 0, proc.stderr.decode()
    proc = irgrad("cc", "m.o", "dot.o", "scale.o", "-o", "linked", "-fuse-ld=lld")
    assert proc.returncode == 0, proc.stderr.decode()
    assert run_program(tmp_path / "linked") == OUTPUT


def test_cc_emit_llvm(tmp_path, irgrad) -> None:
    _project(tmp_path)
    assert irgrad("cc", "-O2", "-Iinc", "-S", "-emit-llvm", "dot.c").returncode == 0
    text = (tmp_path / "dot.ll").read_text()
    assert parse_llvm(text, "dot.ll").get_function("dot") is not None
    assert irgrad("cc", "-O2", "-Iinc", "-c", "-emit-llvm", "scale.c", "-o", "s.bc").returncode == 0
    assert is_bitcode((tmp_path / "s.bc").read_bytes())


def test_cc_fortran_program(tmp_path, irgrad, run_program) -> None:
    (tmp_path / "p.f90").write_text(
        "program p\n"
        "  implicit none\n"
        "  integer :: i\n"
        "  real(8) :: s\n"
        "  s = 0\n"
        "  do i = 1, 10\n"
        "    s = s + sqrt(dble(i))\n"
        "  end do\n"
        "  write(*, '(A,F10.6)') 'sum=', s\n"
        "end program\n"
    )
    proc = irgrad("cc", "-O2", "p.f90", "-o", "pf")
    assert proc.returncode == 0, proc.stderr.decode()
    assert run_program(tmp_path / "pf") == "sum= 22.468278\n"


def test_cc_rust_program(tmp_path, irgrad, run_program) -> None:
    (tmp_path / "r.rs").write_text(
        "fn square(x: f64) -> f64 { x * x }\n"
        "fn main() {\n"
        "    let v: Vec<f64> = (1..5).map(|i| square(i as f64)).collect();\n"
        '    println!("sum={} n={}", v.iter().sum::<f64>(), v.len());\n'
        "}\n"
    )
    proc = irgrad("cc", "-O2", "r.rs", "-o", "pr")
    assert proc.returncode == 0, proc.stderr.decode()
    assert run_program(tmp_path / "pr") == "sum=30 n=4\n"


def test_cc_compile_error_exits_2(tmp_path, irgrad) -> None:
    (tmp_path / "bad.c").write_text("double f(double x) {\n  return x +;\n}\n")
    proc = irgrad("cc", "-c", "bad.c")
    err = proc.stderr.decode()
    assert proc.returncode == 2
    assert "bad.c:2:13: error: expected expression" in err
    assert "Traceback" not in err


def test_cc_bad_ir_input_exits_2(tmp_path, irgrad) -> None:
    (tmp_path / "bad.ll").write_text("define void @f() {\n  %x = fadd double 1.0\n  ret void\n}\n")
    proc = irgrad("cc", "-c", "bad.ll")
    err = proc.stderr.decode()
    assert proc.returncode == 2
    # LLVM notices the missing operand at the next token, on line 3
    assert err.startswith("bad.ll:3:3: error: expected ','")
    assert "Traceback" not in err


def test_cc_cplusplus_program(tmp_path, irgrad, run_program) -> None:
    (tmp_path / "s.cpp").write_text(
        "#include <iostream>\n#include <map>\n#include <string>\n"
        "int main() {\n"
        "  std::map<std::string, double> m{{\"b\", 2.5}, {\"a\", 1.25}};\n"
        "  double s = 0;\n"
        "  for (auto &kv : m) { std::cout << kv.first; s += kv.second; }\n"
        "  std::cout << ' ' << s << std::endl;\n"
        "}\n"
    )
    proc = irgrad("cc", "-O2", "s.cpp", "-o", "sp")
    assert proc.returncode == 0, proc.stderr.decode()
    assert run_program(tmp_path / "sp") == "ab 3.75\n"


def test_cc_shared_library(tmp_path, irgrad) -> None:
    import ctypes

    (tmp_path / "k.c").write_text("double twice_plus(double x) { return 2.0 * x + 0.5; }\n")
    proc = irgrad("cc", "-O2", "-shared", "k.c", "-o", "libk.so")
    assert proc.returncode == 0, proc.stderr.decode()
    lib = ctypes.CDLL(str(tmp_path / "libk.so"))
    lib.twice_plus.restype = ctypes.c_double
    lib.twice_plus.argtypes = [ctypes.c_double]
    assert lib.twice_plus(3.0) == 6.5


def test_cc_finds_enzyme_header(tmp_path, irgrad) -> None:
    (tmp_path / "e.c").write_text(
        "#include <enzyme/enzyme.h>\n"
        "double sq(double x) { return x * x; }\n"
        "void *which(void) { return (void *)__enzyme_autodiff; }\n"
    )
    proc = irgrad("cc", "-O2", "-S", "-emit-llvm", "e.c", "-o", "e.ll")
    assert proc.returncode == 0, proc.stderr.decode()
    assert "@__enzyme_autodiff" in (tmp_path / "e.ll").read_text()


def test_compile_steps_do_not_load_the_ad_engine(tmp_path: Path) -> None:
    """A build compiles each source with ``irgrad cc -c``; only the link step
    differentiates, so the compile steps start without importing the AD engine."""
    (tmp_path / "a.c").write_text("double sq(double x) { return x * x; }\n")
    probe = (
        "import sys\n"
        "from irgrad.cli import main\n"
        "code = main(['cc', '-c', '-O2', 'a.c', '-o', 'a.o'])\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('irgrad.ad', 'irgrad.pipeline')))\n"
        "print(code, loaded)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                          text=True, check=False, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0 []", proc.stdout
    assert (tmp_path / "a.o").stat().st_size > 0
