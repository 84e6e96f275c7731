"""Rust programs differentiated through ``irgrad cc`` (Enzyme's API from Rust: ``extern
"C"`` declarations of ``__enzyme_autodiff``/``__enzyme_fwddiff`` and the markers as
statics), at -O0, -O1, -O2 and -O3. Each program checks its own derivatives (central
differences; forward against reverse where it asks for both) and prints OK:

* ``rust/nbody_vec.rs``: ``Vec<Body>`` built with ``push`` from capacity 1 (RawVec's
  ``grow_one``/``finish_grow``, ``__rust_realloc``), a ``Vec`` collected per step and per
  pair, all dropped inside the differentiated function;
* ``rust/least_squares.rs``: slices, ``chunks_exact().map().unzip()``, ``reserve`` +
  ``extend``, ``iter().zip().map().sum()``;
* ``rust/crate_fit/``: a two-file crate (``mod fit;``) whose markers are ``#[no_mangle]
  static mut`` items;
* ``rust/matrix_ops.rs``: a ``struct Matrix`` with ``Index<(usize, usize)>``/``IndexMut``
  and ``&Matrix * &Matrix``, ``Vec<Vec<f64>>`` rows, ``Vec<[f64; 3]>`` points, a ``Copy``
  ``Vec3`` with ``Add``/``Sub``/``Mul<f64>``;
* ``rust/signal_features.rs``: ``windows(2)``, ``chunks``, ``enumerate().fold``,
  ``rev().skip().step_by()``, ``fold(f64::NEG_INFINITY, f64::max)``, ``collect``, and the
  ``f64`` methods (``sin_cos``, ``hypot``, ``atan2``, ``powi``, ``powf``, ``ln_1p``,
  ``exp_m1``, ``mul_add``, ``tanh``, ``clamp``, ``signum``, ``max``/``min``);
* ``rust/ode_models.rs``: a generic RK4 taking a capturing closure
  (``F: Fn(f64, &[f64], &mut [f64])``), ``Vec<Box<dyn Model>>`` and ``&dyn Model``
  dispatch, generic code over a small ``Float`` trait;
* ``rust/robust_stats.rs``: ``sort_by(partial_cmp)``, ``VecDeque``, ``Result``/``Option``
  with ``?`` (an error holding a ``String``), ``format!`` into a ``Vec<String>`` (whose
  growth rustc takes from the standard library's native code), ``println!``, a
  ``Box<[f64]>``, and both a ``String`` and ``Vec<f64>`` growing (``finish_grow``'s
  dangling pointer is then the alignment argument);
* ``rust/fallible_stats.rs``: a ``Result<f64, StatError>`` whose variants hold a
  ``String`` or an index in the slot where ``Ok`` holds the float (at -O2 one integer
  merges a fresh block's address, an index and a string's pointer), ``eprintln!``, the
  failing inputs differentiated too, and ``sort_unstable_by`` (its quicksort is called
  with a null ``ancestor_pivot`` and recurses with a pointer into the slice).

One test is one compilation (pytest-xdist spreads them); panics and bounds checks are on
every path (inactive: they never return).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from warm_cli import irgrad_command

HERE = Path(__file__).resolve().parent / "rust"
PROGRAMS = {
    "nbody_vec": HERE / "nbody_vec.rs",
    "least_squares": HERE / "least_squares.rs",
    "crate_fit": HERE / "crate_fit" / "main.rs",
    "matrix_ops": HERE / "matrix_ops.rs",
    "signal_features": HERE / "signal_features.rs",
    "ode_models": HERE / "ode_models.rs",
    "robust_stats": HERE / "robust_stats.rs",
    "fallible_stats": HERE / "fallible_stats.rs",
}
LEVELS = ["-O0", "-O1", "-O2", "-O3"]


def _build(src: Path, level: str, exe: Path) -> None:
    proc = subprocess.run([*irgrad_command(), "cc", level, str(src), "-o", str(exe)],
                          capture_output=True, text=True, check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_rust_program(name: str, level: str, tmp_path: Path) -> None:
    exe = tmp_path / name
    _build(PROGRAMS[name], level, exe)
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=120)
    assert run.returncode == 0 and run.stdout.rstrip().endswith("OK"), run.stdout + run.stderr


def test_rust_program_differentiates_the_allocator(tmp_path: Path) -> None:
    """The n-body really allocates, grows and frees inside the derivative: the IR irgrad
    writes calls rustc's shims from the synthesized gradient. (At -O0: from -O1 on, LLVM
    may inline the gradient into ``main``, where the primal's own frees would hide it.)"""
    out = tmp_path / "nbody.ll"
    proc = subprocess.run([*irgrad_command(), "cc", "-O0", "-S", "-emit-llvm",
                           str(PROGRAMS["nbody_vec"]), "-o", str(out)],
                          capture_output=True, text=True, check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    text = out.read_text()
    # the gradient and the augmented forward passes of what it calls (RawVec's finish_grow)
    gradient = [block for block in text.split("\ndefine ")
                if block.split("(")[0].split("@")[-1].startswith(("diffe", "augmented"))]
    assert gradient, "no synthesized gradient in the output"
    body = "\n".join(gradient)
    for shim in ("___rust_alloc", "___rust_realloc", "___rust_dealloc"):
        assert shim in body, shim
    assert "__enzyme_autodiff" not in text and "enzyme_dup" not in text


def _readme_section(title: str) -> str:
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end]


def test_readme_rust_section(tmp_path: Path) -> None:
    """README.md's Rust example, compiled and run as the README says."""
    blocks = re.findall(r"^```rust\n(.*?)^```", _readme_section("Rust"), flags=re.S | re.M)
    assert len(blocks) == 1
    src = tmp_path / "weighted.rs"
    src.write_text(blocks[0])
    _build(src, "-O2", tmp_path / "weighted")
    run = subprocess.run([str(tmp_path / "weighted")], capture_output=True, text=True,
                         check=False, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "[2.0, 8.0, 18.0]", run.stdout
