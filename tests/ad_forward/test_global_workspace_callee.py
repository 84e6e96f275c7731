"""A function-static ``std::vector`` workspace that an earlier primal call allocated,
then differentiated: ``vector::assign`` (a callee of the differentiated function) reads
the vector's pointers through the global, whose shadow the derivative zeroed, so the
shadow of its buffer is unknown. Both modes stop with the located run-time message
(reverse mode checked such loads already; forward mode checked them only in the
function itself, and the callee wrote through the null shadow: SIGSEGV) -- at every
optimization level, never a crash. The first use inside the derivative works
(tests/ad_cxx/stream_labels_static_workspace.cpp).
"""

from __future__ import annotations

import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from irgrad.toolchain import enzyme_include_dir
from warm_cli import irgrad_command

WORKSPACE = r"""
#include <cstdio>
#include <vector>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);

double energy(const double* c, int n) {
  static std::vector<double> work;  // workspace kept between calls
  work.assign(c, c + n);
  double s = 0;
  for (int i = 0; i < n; ++i) s += work[i] * work[i];
  return s;
}

int main() {
  double c[3] = {1, 2, 3}, t[3] = {1, 0, 0}, d[3] = {0};
  std::printf("f = %g\n", energy(c, 3));  // the workspace now holds a buffer
#ifdef REVERSE
  __enzyme_autodiff((void*)energy, enzyme_dup, c, d, enzyme_const, 3);
#else
  d[0] = __enzyme_fwddiff((void*)energy, enzyme_dup, c, t, enzyme_const, 3);
#endif
  std::printf("not reached %g\n", d[0]);
  return 0;
}
"""

MESSAGE = "was set before this derivative was called"


def _build_and_run(src: Path, level: str, mode: str) -> tuple[str, int, str, str]:
    """("build" or "run", exit status, stdout, stderr) of one case."""
    exe = src.with_name(f"workspace_{mode}_{level}")
    define = ["-DREVERSE"] if mode == "reverse" else []
    cc = subprocess.run([*irgrad_command(), "cc", f"-I{enzyme_include_dir()}", f"-{level}",
                         *define, str(src), "-o", str(exe)], capture_output=True, text=True,
                        timeout=300, check=False)
    if cc.returncode != 0:
        return "build", cc.returncode, cc.stdout, cc.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=False)
    return "run", run.returncode, run.stdout, run.stderr


# reverse mode at -O0 refuses the program when it is built (the memmove in
# vector::_M_assign_aux copies data no instruction gives a type): a located error too
BUILD_ERRORS = {("reverse", "O0")}


def test_workspace_from_an_earlier_call_stops_with_a_message(tmp_path: Path) -> None:
    src = tmp_path / "workspace.cpp"
    src.write_text(WORKSPACE)
    cases = [(lv, mode) for mode in ("forward", "reverse") for lv in ("O0", "O1", "O2", "O3")]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda c: _build_and_run(src, *c), cases))
    for (level, mode), (stage, status, out, err) in zip(cases, results, strict=True):
        where = (level, mode, stage, status, out, err[-1000:])
        if (mode, level) in BUILD_ERRORS and stage == "build":
            assert status == 2 and "error:" in err and "Traceback" not in err, where
            continue
        assert stage == "run" and "not reached" not in out, where
        assert status == -signal.SIGABRT, where  # the check's abort, no SIGSEGV
        assert "the pointer in global @_ZZ6energyPKdiE4work " + MESSAGE in err, where


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])
