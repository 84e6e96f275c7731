"""irgrad.pipeline: load -> pre-AD -> irgrad.ir -> lower_enzyme_calls -> LLVM -> optimize."""

from __future__ import annotations

import ctypes

import pytest

from irgrad import pipeline
from irgrad.frontends import compile_to_ir
from irgrad.llvm import JITModule
from irgrad.pipeline import PipelineOptions, run_pipeline

SRC = """
double horner(const double *c, int n, double x) {
  double r = 0.0;
  for (int i = n - 1; i >= 0; i--) r = r * x + c[i];
  return r;
}
"""


def _value(module) -> float:
    f = JITModule(str(module)).get(
        "horner", ctypes.c_double, [ctypes.POINTER(ctypes.c_double), ctypes.c_int, ctypes.c_double]
    )
    return f((ctypes.c_double * 3)(1.0, 2.0, 3.0), 3, 2.0)  # 1 + 2*2 + 3*4


@pytest.mark.parametrize("through_ir_model", [False, True])
@pytest.mark.parametrize("opt_level", [0, 3])
def test_pipeline_keeps_semantics(tmp_path, through_ir_model, opt_level) -> None:
    src = tmp_path / "h.c"
    src.write_text(SRC)
    text = compile_to_ir([src], opt_level=0)
    opts = PipelineOptions(opt_level=opt_level, through_ir_model=through_ir_model)
    module = run_pipeline(text, filename="h.ll", options=opts)
    assert "alloca" not in str(module)  # the pre-AD pipeline ran even at -O0
    assert _value(module) == 17.0


def test_hook_is_called_once_with_ir_module(tmp_path, monkeypatch) -> None:
    src = tmp_path / "h.c"
    src.write_text(SRC)
    seen = []

    def hook(module):
        seen.append(module)
        return module

    monkeypatch.setattr(pipeline, "lower_enzyme_calls", hook)
    module = run_pipeline(compile_to_ir([src]), filename="h.ll")
    assert len(seen) == 1
    assert seen[0].get_function("horner") is not None
    assert _value(module) == 17.0


def test_no_pre_ad_still_drops_optnone(tmp_path) -> None:
    from irgrad.toolchain import run_tool

    src = tmp_path / "h.c"
    src.write_text(SRC)
    text = run_tool("clang", ["-O0", "-S", "-emit-llvm", str(src), "-o", "-"]).stdout
    module = run_pipeline(
        text, options=PipelineOptions(opt_level=2, pre_ad=False, through_ir_model=False)
    )
    assert "optnone" not in str(module).split("attributes #0 = ")[1].split("\n")[0]
    assert "alloca" not in str(module)
    assert _value(module) == 17.0
