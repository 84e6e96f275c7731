"""LoopInfo, induction variables and trip counts: hand-written IR and clang-22 -O2 loops.

Trip counts are checked by running the code: the emitted trip count is accumulated into
one global in the preheader, the header counts its executions into another, and the JIT
compares them for many inputs.
"""

from __future__ import annotations

import ctypes

import pytest
from analysis_helpers import block, c_module, inst, parse_fn

from irgrad import ir
from irgrad.analysis import Loop, LoopInfo, emit_trip_count
from irgrad.ir.builder import IRBuilder
from irgrad.ir.constants import ConstantInt
from irgrad.ir.control import BranchInst
from irgrad.ir.instructions import BinaryOperator, CastInst, LoadInst, StoreInst
from irgrad.llvm import JITModule

NESTED = """
define void @f(i64 %n, i64 %m) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  br label %inner.pre
inner.pre:
  br label %inner
inner:
  %j = phi i64 [ 0, %inner.pre ], [ %j.next, %inner ]
  %k = phi i64 [ 10, %inner.pre ], [ %k.next, %inner ]
  %j.next = add nuw nsw i64 %j, 1
  %k.next = sub i64 %k, 3
  %cj = icmp slt i64 %j.next, %m
  br i1 %cj, label %inner, label %outer.latch
outer.latch:
  %i.next = add i64 %i, 1
  %ci = icmp eq i64 %i.next, %n
  br i1 %ci, label %exit, label %outer
exit:
  ret void
}
"""

HEADER_EXIT = """
define i32 @f(i32 %n) {
entry:
  br label %header
header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %latch, label %exit
latch:
  %i.next = add i32 %i, 1
  br label %header
exit:
  ret i32 %i
}
"""

TWO_ENTRIES = """
define void @f(i1 %c, i64 %n) {
entry:
  br i1 %c, label %a, label %loop
a:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ 0, %a ], [ %i.next, %loop ]
  %i.next = add i64 %i, 1
  %d = icmp ne i64 %i.next, %n
  br i1 %d, label %loop, label %exit
exit:
  ret void
}
"""


def test_nested_loop_structure() -> None:
    fn = parse_fn(NESTED)
    li = LoopInfo(fn)
    assert len(li) == 2
    (outer,) = li.top_level
    (inner,) = outer.subloops
    assert outer.header is block(fn, "outer") and inner.header is block(fn, "inner")
    assert inner.parent is outer and outer.parent is None
    assert outer.depth == 1 and inner.depth == 2
    assert {b.name for b in outer.blocks} == {"outer", "inner.pre", "inner", "outer.latch"}
    assert inner.blocks == {block(fn, "inner")}
    assert inner.latches == [block(fn, "inner")]
    assert outer.latches == [block(fn, "outer.latch")]
    assert inner.preheader is block(fn, "inner.pre")
    assert outer.preheader is block(fn, "entry")
    assert inner.exiting_blocks == [block(fn, "inner")]
    assert inner.exit_blocks == [block(fn, "outer.latch")]
    assert outer.exit_blocks == [block(fn, "exit")]
    assert li.loop_for(block(fn, "inner")) is inner
    assert li.loop_for(inst(fn, "i.next")) is outer
    assert li.loop_for(block(fn, "exit")) is None
    assert outer.contains(inner) and outer.contains(inst(fn, "j")) and not inner.contains(inst(fn, "i"))
    assert inner.is_invariant(inst(fn, "i")) and not outer.is_invariant(inst(fn, "j"))
    assert inner.is_invariant(fn.args[0])
    assert li.loops == [outer, inner]


def test_induction_variables_and_canonical_iv() -> None:
    fn = parse_fn(NESTED)
    li = LoopInfo(fn)
    inner = li.loop_for(block(fn, "inner"))
    assert inner is not None
    ivs = {iv.phi.name: iv for iv in inner.induction_variables()}
    assert set(ivs) == {"j", "k"}
    assert ivs["j"].step == 1 and ivs["k"].step == -3
    assert isinstance(ivs["k"].start, ConstantInt) and ivs["k"].start.value == 10
    assert inner.canonical_iv() is inst(fn, "j")
    outer = li.top_level[0]
    assert outer.canonical_iv() is inst(fn, "i")


def test_trip_count_records() -> None:
    fn = parse_fn(NESTED)
    li = LoopInfo(fn)
    outer, inner = li.loops
    tc = outer.trip_count()
    assert tc is not None
    assert tc.bound is fn.args[0] and tc.predicate == "ne" and tc.test_after_increment
    assert tc.step == 1 and outer.trip_count_is_known_at_entry()
    assert tc.describe() == "{start=0, step=+1, continue while ne %n, test after increment}"
    tci = inner.trip_count()
    assert tci is not None and tci.predicate == "slt" and tci.bound is fn.args[1]

    fn2 = parse_fn(HEADER_EXIT)
    (lp,) = LoopInfo(fn2).loops
    assert lp.header is block(fn2, "header") and lp.latches == [block(fn2, "latch")]
    tc2 = lp.trip_count()
    assert tc2 is not None and not tc2.test_after_increment and tc2.predicate == "slt"
    assert lp.exiting_blocks == [block(fn2, "header")]


def test_trip_count_constants() -> None:
    text = HEADER_EXIT.replace("%n)", "%unused)").replace("i32 %i, %n", "i32 %i, 9")
    (lp,) = LoopInfo(parse_fn(text)).loops
    tc = lp.trip_count()
    assert tc is not None and tc.constant() == 10  # i = 0..9, the last test fails
    text = NESTED.replace("icmp eq i64 %i.next, %n", "icmp eq i64 %i.next, 4")
    outer = LoopInfo(parse_fn(text)).loops[0]
    tc = outer.trip_count()
    assert tc is not None and tc.constant() == 4
    fn = parse_fn(text)
    outer = LoopInfo(fn).loops[0]
    b = IRBuilder(block=block(fn, "entry"), position=block(fn, "entry").terminator)
    v = emit_trip_count(b, outer)
    assert isinstance(v, ConstantInt) and v.value == 4


def test_no_preheader_and_unknown_trip_count() -> None:
    fn = parse_fn(TWO_ENTRIES)
    (lp,) = LoopInfo(fn).loops
    assert lp.preheader is None
    assert lp.canonical_iv() is inst(fn, "i")
    # a while loop whose exit depends on a float: unknown
    m = c_module("double wh(double x) { while (x > 1.0) x = x * 0.5; return x; }")
    fn = m.get_function("wh")
    assert fn is not None
    (lp,) = LoopInfo(fn).loops
    assert lp.trip_count() is None and not lp.trip_count_is_known_at_entry()
    assert lp.canonical_iv() is None and lp.induction_variables() == []


KERNELS = r"""
double sum(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i]; return s; }
double tri(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) for (int j = 0; j <= i; j++) s += a[j];
  return s;
}
double down(const double *x, long n) { double s = 0; for (long i = n - 1; i >= 0; i -= 2) s += x[i]; return s; }
double step3(const double *x, int lo, int hi) { double s = 0; for (int i = lo; i < hi; i += 3) s += x[i]; return s; }
double upto(const double *x, unsigned lo, unsigned hi) { double s = 0; for (unsigned i = lo; i <= hi; i++) s += x[i & 7]; return s; }
"""


def _split_entry_edge(lp: Loop) -> ir.BasicBlock:
    """Give the loop a preheader (clang's rotated loops may be entered from a guard)."""
    entering = lp.loop_predecessor
    assert entering is not None, f"loop at %{lp.header.name} has several entries"
    fn = lp.function
    pre = ir.BasicBlock(f"{lp.header.name}.pre", fn)
    fn.blocks.insert(fn.blocks.index(lp.header), pre)
    pre.append(BranchInst(lp.header))
    term = entering.terminator
    assert term is not None
    for k, op in enumerate(term.operands):
        if op is lp.header:
            term.set_operand(k, pre)
    for phi in lp.header.phis():
        for k, (_, bb) in enumerate(phi.incoming):
            if bb is entering:
                phi.set_incoming_block(k, pre)
    return pre


def _instrument(module: ir.Module, fn_name: str) -> None:
    """Accumulate emitted trip counts into @tc and header executions into @hdr."""
    fn = module.get_function(fn_name)
    assert fn is not None
    tc_g = module.add_global(ir.GlobalVariable("tc", ir.i64, ConstantInt(ir.i64, 0)))
    hdr_g = module.add_global(ir.GlobalVariable("hdr", ir.i64, ConstantInt(ir.i64, 0)))
    li = LoopInfo(fn)
    assert li.loops, f"{fn_name}: no loop found"
    for lp in li.loops:
        pre = lp.preheader or _split_entry_edge(lp)
        b = IRBuilder(position=pre.terminator)
        v = emit_trip_count(b, lp)
        assert v is not None, f"{fn_name}: unknown trip count for %{lp.header.name}"
        for g, where, amount in ((tc_g, pre.terminator, v), (hdr_g, lp.header.first_non_phi, None)):
            b = IRBuilder(position=where)
            if amount is None:
                amount = ConstantInt(ir.i64, 1)
            elif amount.type != ir.i64:
                amount = b.insert(CastInst("zext", amount, ir.i64))
            old = b.insert(LoadInst(ir.i64, g))
            b.insert(StoreInst(b.insert(BinaryOperator("add", old, amount)), g))


@pytest.fixture(scope="module")
def kernels() -> str:
    m = c_module(KERNELS)
    return ir.print_module(m)


@pytest.mark.parametrize(
    ("name", "argtypes", "cases"),
    [
        ("sum", [ctypes.c_int], [(0,), (1,), (5,), (17,)]),
        ("tri", [ctypes.c_int], [(1,), (2,), (6,)]),
        ("down", [ctypes.c_long], [(1,), (2,), (5,), (8,), (9,)]),
        ("step3", [ctypes.c_int, ctypes.c_int], [(0, 1), (0, 3), (0, 4), (-5, 7), (2, 2), (5, 3)]),
        ("upto", [ctypes.c_uint, ctypes.c_uint], [(0, 0), (3, 9), (4, 4), (7, 3)]),
    ],
)
def test_emitted_trip_counts_match_execution(kernels: str, name: str, argtypes: list, cases: list) -> None:  # type: ignore[type-arg]
    module = ir.parse_module(kernels)
    _instrument(module, name)
    jit = JITModule(ir.print_module(module), opt_level=0)
    fn = jit.get(name, ctypes.c_double, [ctypes.POINTER(ctypes.c_double), *argtypes])
    tc = ctypes.c_int64.from_address(jit.address("tc"))
    hdr = ctypes.c_int64.from_address(jit.address("hdr"))
    data = (ctypes.c_double * 64)(*range(64))
    for args in cases:
        tc.value = 0
        hdr.value = 0
        fn(data, *args)
        assert tc.value == hdr.value, f"{name}{args}: emitted {tc.value}, header ran {hdr.value}"
    assert any(True for _ in cases)


HEADER_EXIT_DOWN = """
define i32 @f(i32 %lo, i32 %hi) {
entry:
  br label %header
header:
  %i = phi i32 [ %hi, %entry ], [ %i.next, %latch ]
  %c = icmp sge i32 %i, %lo
  br i1 %c, label %latch, label %exit
latch:
  %i.next = sub i32 %i, 2
  br label %header
exit:
  ret i32 %i
}
"""


@pytest.mark.parametrize("text", [HEADER_EXIT, HEADER_EXIT_DOWN])
def test_header_exit_form_trip_counts(text: str) -> None:
    module = ir.parse_module(text)
    _instrument(module, "f")
    jit = JITModule(ir.print_module(module), opt_level=0)
    fn = jit.get("f", ctypes.c_int, [ctypes.c_int, ctypes.c_int])
    tc = ctypes.c_int64.from_address(jit.address("tc"))
    hdr = ctypes.c_int64.from_address(jit.address("hdr"))
    for args in [(0, 0), (0, 5), (3, 4), (-4, 7), (6, 2)]:
        tc.value = hdr.value = 0
        fn(*args)
        assert hdr.value >= 1
        assert tc.value == hdr.value, f"{args}: emitted {tc.value}, header ran {hdr.value}"
