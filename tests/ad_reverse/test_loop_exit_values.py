"""Forward values the reverse of a loop needs, looked up once at the loop's exit.

A value defined before a loop, used in the loop's reverse and not recomputable there (a
pointer loaded from memory that is written later) is taped at the loop's exit, through
a phi when some path reaches that exit without defining it. Several loops may leave
through the same exit (Eigen's redux: a vectorized loop, its remainder loop and a short
scalar loop, all skipped for an empty vector): the phi must carry the value on the edge
of every loop, or the reverse of all but one loop reads poison (a null shadow pointer in
eigen_least_squares.cpp at -O3 -march=native). The numeric check is
tests/ad_programs/loop_shared_exit_taped_pointer.c; here every such phi is checked to be
poison only on edges the value does not reach.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from irgrad import ir
from irgrad.frontends.c import compile_c
from irgrad.ir.dominators import DominatorTree
from irgrad.llvm import module_text
from irgrad.pipeline import PipelineOptions, run_pipeline

PROGRAM = (Path(__file__).resolve().parents[1] / "ad_programs"
           / "loop_shared_exit_taped_pointer.c")


@pytest.mark.parametrize("level", [1, 2])
def test_exit_phis_carry_the_value_from_every_loop(level: int) -> None:
    bitcode = compile_c(PROGRAM, opt_level=level)
    out = run_pipeline(bitcode, filename=PROGRAM.name, options=PipelineOptions(opt_level=0))
    module = ir.parse_module(module_text(out))
    checked = 0
    for fn in module.functions:
        if fn.is_declaration or not fn.name.startswith(("diffe", "augmented", "reverse")):
            continue
        dom = DominatorTree(fn)
        for inst in fn.instructions():
            if not (isinstance(inst, ir.PHINode) and ".exit" in (inst.name or "")):
                continue
            values = {v for v, _ in inst.incoming if not isinstance(v, ir.PoisonValue)}
            for v, block in inst.incoming:
                if isinstance(v, ir.PoisonValue):
                    assert not any(isinstance(d, ir.Instruction) and dom.dominates(
                        d.parent, block) for d in values), (
                        f"{fn.name}: {inst.name} is poison on an edge from {block.name}, "
                        "which its value reaches")
            checked += 1
    assert checked, "no value was taped at a loop exit: the program no longer tests this"
