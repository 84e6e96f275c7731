"""``irgrad cc --irgrad-no-pre-ad``: AD on the unoptimized IR (PipelineOptions(pre_ad=False)),
the same post-AD optimization; the derivative numbers are those of the default pipeline."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import pytest

from irgrad.frontends.driver import parse_cc_args
from warm_cli import irgrad_command

PROGRAM = r"""
#include <enzyme/enzyme.h>
#include <math.h>
#include <stdio.h>

static double f(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i] * sin(x[i]);
    return s;
}

int main(void) {
    double x[3] = {0.5, -1.25, 2.0}, dx[3] = {0, 0, 0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 3);
    printf("%.17g %.17g %.17g\n", dx[0], dx[1], dx[2]);
    return 0;
}
"""


def test_option_maps_to_pipeline_pre_ad(tmp_path: Path) -> None:
    src = tmp_path / "a.c"
    src.write_text("int main(void) { return 0; }\n")
    assert parse_cc_args([str(src)]).pre_ad is True
    assert parse_cc_args(["--irgrad-no-pre-ad", "-O3", str(src)]).pre_ad is False


@pytest.mark.parametrize("level", ["-O0", "-O2", "-O3"])
@pytest.mark.parametrize("extra", [[], ["--irgrad-no-pre-ad"]], ids=["pre-ad", "no-pre-ad"])
def test_no_pre_ad_gives_the_same_gradient(tmp_path: Path, level: str, extra: list[str]) -> None:
    (tmp_path / "f.c").write_text(PROGRAM)
    cmd = [*irgrad_command(), "cc", level, *extra, "f.c", "-o", "prog", "-lm"]
    subprocess.run(cmd, cwd=tmp_path, check=True, capture_output=True, timeout=300)
    out = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, check=True)
    got = [float(v) for v in out.stdout.split()]
    want = [2 * x * math.sin(x) + x * x * math.cos(x) for x in (0.5, -1.25, 2.0)]
    assert got == pytest.approx(want, rel=1e-12, abs=1e-14)


def test_no_pre_ad_differentiates_the_unoptimized_ir(tmp_path: Path) -> None:
    """Without the pre-AD pipeline the IR handed to AD still has its allocas; at -O0 (no
    post-AD optimization either) they survive into the output, while the default
    pipeline promotes them before AD."""
    (tmp_path / "f.c").write_text(PROGRAM)

    def ir(*extra: str) -> str:
        cmd = [*irgrad_command(), "cc", "-O0", *extra, "-S", "-emit-llvm", "f.c"]
        cmd += ["-o", "-"]
        return subprocess.run(cmd, cwd=tmp_path, check=True, capture_output=True, text=True).stdout

    def allocas(text: str) -> int:
        return sum(" alloca " in line for line in text.splitlines())

    assert allocas(ir("--irgrad-no-pre-ad")) > allocas(ir())
