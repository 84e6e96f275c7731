"""CFG orders, dominator and post-dominator trees on hand-written IR."""

from __future__ import annotations

from analysis_helpers import block, inst, parse_fn

from irgrad.ir.cfg import postorder, predecessors, reachable, reverse_postorder, successors
from irgrad.ir.dominators import DominatorTree, PostDominatorTree

DIAMOND = """
define double @f(i1 %c, double %x) {
entry:
  %a = fmul double %x, 2.0
  br i1 %c, label %then, label %else
then:
  %t = fadd double %a, 1.0
  br label %join
else:
  %e = fsub double %a, 1.0
  br label %join
join:
  %p = phi double [ %t, %then ], [ %e, %else ]
  %r = fmul double %p, %a
  ret double %r
dead:
  %d = fadd double %x, %x
  br label %join
}
"""

LOOP_WITH_EARLY_EXIT = """
define i32 @f(i32 %n) {
entry:
  br label %header
header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %exit
body:
  %b = icmp eq i32 %i, 7
  br i1 %b, label %bail, label %latch
latch:
  %i.next = add i32 %i, 1
  br label %header
bail:
  ret i32 -1
exit:
  ret i32 %i
}
"""

INFINITE = """
define void @f(i1 %c) {
entry:
  br i1 %c, label %spin, label %out
spin:
  br label %spin2
spin2:
  br label %spin
out:
  ret void
}
"""


def names(blocks) -> list[str]:  # type: ignore[no-untyped-def]
    return [b.name for b in blocks]


def test_cfg_orders_and_edges() -> None:
    fn = parse_fn(DIAMOND)
    entry, then, els, join, dead = (block(fn, n) for n in ("entry", "then", "else", "join", "dead"))
    assert successors(entry) == [then, els]
    assert names(predecessors(join)) == ["then", "else", "dead"]
    assert names(postorder(fn)) == ["join", "then", "else", "entry"]
    assert names(reverse_postorder(fn)) == ["entry", "else", "then", "join"]
    assert reachable(fn) == {entry, then, els, join}
    assert dead not in reachable(fn)


def test_dominator_tree_blocks() -> None:
    fn = parse_fn(DIAMOND)
    dt = DominatorTree(fn)
    entry, then, els, join, dead = (block(fn, n) for n in ("entry", "then", "else", "join", "dead"))
    assert dt.idom(entry) is None
    assert dt.idom(then) is entry and dt.idom(els) is entry and dt.idom(join) is entry
    assert set(dt.children(entry)) == {then, els, join}
    assert dt.dominates(entry, join) and dt.dominates(join, join)
    assert not dt.dominates(then, join)
    assert not dt.properly_dominates(join, join)
    assert dt.nearest_common_dominator(then, els) is entry
    assert dt.nearest_common_dominator(then, then) is then
    # unreachable: dominated by everything, dominates nothing reachable
    assert dt.dominates(then, dead) and not dt.dominates(dead, join)
    assert dt.idom(dead) is None and not dt.is_reachable(dead)


def test_dominates_instructions_and_phi_uses() -> None:
    fn = parse_fn(DIAMOND)
    dt = DominatorTree(fn)
    a, t, e, p, r = (inst(fn, n) for n in ("a", "t", "e", "p", "r"))
    x = fn.args[1]
    assert dt.dominates(x, a)  # arguments dominate everything
    assert dt.dominates(a, r) and dt.dominates(a, t)
    assert not dt.dominates(t, r)  # then does not dominate join
    assert not dt.dominates(r, a)
    assert not dt.dominates(a, a)  # a definition does not dominate itself as a use
    # the phi's use of %t happens at the end of %then
    assert dt.dominates(t, p) and dt.dominates(e, p)
    use_t = next(u for u in t.uses if u.user is p)
    assert dt.dominates(t, use_t)
    assert not dt.dominates(e, use_t)
    assert dt.dominates(p, r)
    # instruction vs block start
    assert dt.dominates(a, block(fn, "join")) and not dt.dominates(t, block(fn, "join"))


def test_postdominators_multiple_exits() -> None:
    fn = parse_fn(LOOP_WITH_EARLY_EXIT, "f")
    pdt = PostDominatorTree(fn)
    entry, header, body, latch, bail, exit_ = (
        block(fn, n) for n in ("entry", "header", "body", "latch", "bail", "exit"))
    assert set(pdt.roots) == {bail, exit_}
    assert pdt.ipdom(bail) is None and pdt.ipdom(exit_) is None
    assert pdt.ipdom(latch) is header
    assert pdt.ipdom(entry) is header
    assert pdt.ipdom(body) is None  # body goes to two different exits
    assert pdt.ipdom(header) is None
    assert pdt.post_dominates(header, latch) and pdt.post_dominates(header, entry)
    assert not pdt.post_dominates(exit_, header)
    assert pdt.nearest_common_post_dominator(latch, entry) is header


def test_postdominators_infinite_loop_and_diamond() -> None:
    fn = parse_fn(INFINITE)
    pdt = PostDominatorTree(fn)
    spin, spin2, out = (block(fn, n) for n in ("spin", "spin2", "out"))
    assert out in pdt.roots and spin2 in pdt.roots
    assert pdt.ipdom(spin) is spin2
    assert pdt.ipdom(fn.entry_block) is None
    fn2 = parse_fn(DIAMOND)
    pdt2 = PostDominatorTree(fn2)
    join = block(fn2, "join")
    assert pdt2.roots == [join]
    assert pdt2.ipdom(block(fn2, "then")) is join
    assert pdt2.ipdom(fn2.entry_block) is join
    assert pdt2.ipdom(block(fn2, "dead")) is join
    assert pdt2.post_dominates(join, fn2.entry_block)
