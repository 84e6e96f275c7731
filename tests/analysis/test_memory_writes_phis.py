"""Writes through a phi or select of pointers (:mod:`irgrad.analysis.memory_writes`): a
store through a pointer that alternates between two buffers of the function (swapped
each sweep) or is chosen by a branch may write only the objects the pointer may be based
on. Before, such a store counted as a write of anything, so every load after it was
taped, however unrelated."""

from __future__ import annotations

from analysis_helpers import inst, parse_fn

from irgrad import ir
from irgrad.analysis.memory_writes import MemoryWrites

SOURCE = r"""
declare ptr @malloc(i64)
declare void @free(ptr)

define double @swap(ptr %coef, ptr %out, i64 %n) {
entry:
  %a = call ptr @malloc(i64 64)
  %b = call ptr @malloc(i64 64)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %cur = phi ptr [ %a, %entry ], [ %nxt, %loop ]
  %nxt = phi ptr [ %b, %entry ], [ %cur, %loop ]
  %c = load double, ptr %coef
  %u = load double, ptr %cur
  %v = fmul double %c, %u
  store double %v, ptr %nxt
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = load double, ptr %cur
  call void @free(ptr %cur)
  call void @free(ptr %nxt)
  ret double %r
}

define void @chosen(ptr %coef, ptr %arg, i1 %which) {
entry:
  %a = alloca double
  %p = select i1 %which, ptr %a, ptr %arg
  %c = load double, ptr %coef
  store double %c, ptr %p
  ret void
}
"""


def test_swapped_buffers_leave_arguments_alone() -> None:
    fn = parse_fn(SOURCE, "swap")
    writes = MemoryWrites(fn)
    c, u = inst(fn, "c"), inst(fn, "u")
    assert isinstance(c, ir.LoadInst) and isinstance(u, ir.LoadInst)
    # the store and the frees reach the two mallocs only: the coefficient is re-readable
    assert not writes.may_be_overwritten(c.pointer, after=c, size=8)
    # the iterate is overwritten by the next sweep's store (through the other phi)
    assert writes.may_be_overwritten(u.pointer, after=u, size=8)


def test_select_with_an_argument_may_write_arguments() -> None:
    fn = parse_fn(SOURCE, "chosen")
    writes = MemoryWrites(fn)
    c = inst(fn, "c")
    assert isinstance(c, ir.LoadInst)
    # one side is an argument, which %coef may alias
    assert writes.may_be_overwritten(c.pointer, after=c, size=8)
