"""Shrinking a failing program while its failure stays the same.

The program is first cut down to the failing case and request, then edited greedily:
delete a statement, replace a compound statement by one of its bodies, replace an
expression by one of its operands or a constant, drop helpers and globals nobody uses.
A candidate is kept when it is still well defined (:func:`checks.check_function`, and the
FD program runs clean under the sanitizers) and the request still fails the same way:
the same class and, for diagnostics and crashes, the same message shape.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from dataclasses import fields, is_dataclass, replace
from pathlib import Path

from .campaign import Outcome, check_program, shape
from .checks import InvalidProgram, check_function
from .drivers import ad_program
from .model import (
    Bin,
    Block,
    Call,
    CallStmt,
    Case,
    Decl,
    Elem,
    Expr,
    For,
    Function,
    If,
    IntToReal,
    Logic,
    Member,
    Neg,
    Num,
    Program,
    Ref,
    Return,
    Select,
    Switch,
    While,
)

Path_ = tuple[tuple[object, ...], ...]
REAL_NODES = (Num, Ref, Elem, Member, Neg, Bin, Call, Select, IntToReal)


def _is_real(e: object) -> bool:
    if isinstance(e, Ref | Bin | Call):
        return not e.is_int
    return isinstance(e, REAL_NODES)


def _slots(node: object) -> Iterator[tuple[tuple[object, ...], object]]:
    for f in fields(node):  # type: ignore[arg-type]
        v = getattr(node, f.name)
        if isinstance(v, tuple):
            for i, item in enumerate(v):
                if isinstance(item, tuple):  # a switch case: (label, body)
                    yield (f.name, i, 1), item[1]
                elif is_dataclass(item):
                    yield (f.name, i), item
        elif is_dataclass(v):
            yield (f.name,), v


def _walk(node: object, path: Path_ = ()) -> Iterator[tuple[Path_, object]]:
    yield path, node
    for slot, child in _slots(node):
        yield from _walk(child, (*path, slot))


def _get(node: object, path: Path_) -> object:
    for slot in path:
        v = getattr(node, slot[0])  # type: ignore[arg-type]
        node = v if len(slot) == 1 else v[slot[1]] if len(slot) == 2 else v[slot[1]][1]
    return node


def _set(node: object, path: Path_, new: object) -> object:
    """``node`` with the subtree at ``path`` replaced by ``new``."""
    if not path:
        return new
    slot, rest = path[0], path[1:]
    name = slot[0]
    v = getattr(node, name)  # type: ignore[arg-type]
    if len(slot) == 1:
        return replace(node, **{name: _set(v, rest, new)})  # type: ignore[type-var]
    items = list(v)
    i = slot[1]
    if len(slot) == 2:
        items[i] = _set(items[i], rest, new)
    else:
        items[i] = (items[i][0], _set(items[i][1], rest, new))
    return replace(node, **{name: tuple(items)})  # type: ignore[type-var]


def _replaceable(fn: Function, path: Path_, helpers: dict[str, Function]) -> bool:
    """Whether the real expression at ``path`` may become another real expression."""
    parent = _get(fn, path[:-1])
    slot = path[-1]
    if isinstance(parent, CallStmt):
        return False
    if isinstance(parent, Decl) and parent.ctype != "real":
        return False
    if isinstance(parent, Return) and fn.ret != "real":
        return False
    if isinstance(parent, Call) and not parent.is_math:
        return helpers[parent.func].params[slot[1]].kind == "real"  # type: ignore[index]
    return True


def _edits(fn: Function, helpers: dict[str, Function]) -> Iterator[Function]:
    """Smaller variants of ``fn``, bigger cuts first."""
    nodes = list(_walk(fn))
    blocks = [(p, n) for p, n in nodes if isinstance(n, Block)]
    stmts = [(bp, i, s) for bp, b in blocks for i, s in enumerate(b.stmts)]  # type: ignore[union-attr]
    stmts.sort(key=lambda t: -len(list(_walk(t[2]))))
    for bp, i, s in stmts:
        block = _get(fn, bp)
        assert isinstance(block, Block)
        keep = block.stmts[:i] + block.stmts[i + 1:]
        yield _set(fn, bp, Block(keep))  # type: ignore[misc]
        bodies: list[Block] = []
        if isinstance(s, If):
            bodies = [s.then, *([s.orelse] if s.orelse else [])]
        elif isinstance(s, For | While):
            bodies = [s.body]
        elif isinstance(s, Switch):
            bodies = [b for _, b in s.cases] + [s.default]
        for body in bodies:
            yield _set(fn, bp, Block(block.stmts[:i] + body.stmts + block.stmts[i + 1:]))  # type: ignore[misc]
    exprs = [(p, n) for p, n in nodes
             if (_is_real(n) or isinstance(n, Logic)) and p and _replaceable(fn, p, helpers)]
    exprs.sort(key=lambda t: -len(list(_walk(t[1]))))
    for p, e in exprs:
        for alt in _simpler(e):
            yield _set(fn, p, alt)  # type: ignore[misc]


def _simpler(e: object) -> list[Expr]:
    if isinstance(e, Logic):
        return [e.a, e.b]
    if isinstance(e, Num):
        return [] if e.value in (0.5, 0.0) else [Num(0.5)]
    if isinstance(e, Call) and not e.is_math:
        return [Num(0.5)]
    out: list[Expr] = [c for _, c in _slots(e) if _is_real(c)]  # type: ignore[misc]
    if not isinstance(e, Ref | Elem | Member) or not out:
        out.append(Num(0.5))
    return out


def _used_names(case: Case) -> set[str]:
    names: set[str] = set()
    for fn in (case.entry, *case.helpers):
        for _, n in _walk(fn):
            if isinstance(n, Ref | Call):
                names.add(n.name if isinstance(n, Ref) else n.func)
            elif isinstance(n, Elem):
                names.add(n.array)
            elif hasattr(n, "dst"):
                names.add(n.dst)  # type: ignore[attr-defined]
    return names


def _prune(case: Case) -> Case:
    """Drop helpers and globals nothing refers to (helpers only used by themselves too)."""
    while True:
        used = set()
        for fn in (case.entry, *case.helpers):
            own = {n.func for _, n in _walk(fn) if isinstance(n, Call)} - {fn.name}
            used |= own
        helpers = tuple(h for h in case.helpers if h.name in used)
        names = _used_names(replace(case, helpers=helpers))
        globals_ = tuple(g for g in case.globals if g.name in names)
        new = replace(case, helpers=helpers, globals=globals_)
        if new == case:
            return case
        case = new


def _valid(case: Case) -> bool:
    file_scope = {g.name for g in case.globals if g.const or g.is_int}
    file_scope |= {h.name for h in case.helpers}
    fillable = {g.name for g in case.globals if not g.const and not g.is_int}
    try:
        for fn in (*case.helpers, case.entry):
            check_function(fn, file_scope | {fn.name}, fillable)
    except InvalidProgram:
        return False
    return True


class Reducer:
    """Greedy reduction of one failing request of one program."""

    def __init__(self, program: Program, target: Outcome, *, sanitize: bool = False,
                 budget: int = 200, seconds: float = 1800.0,
                 log: Callable[[str], None] = lambda s: None) -> None:
        case = program.cases[target.case]
        req = case.requests[target.request] if target.request >= 0 else None
        case = replace(case, requests=(req,) if req else ())
        self.program = replace(program, cases=(case,))
        self.index = target.case
        self.level = target.level
        self.want = shape(target)
        self.sanitize = sanitize
        self.budget = budget
        self.deadline = time.monotonic() + seconds
        self.tried: dict[str, bool] = {}
        self.trials = 0
        self.log = log
        self.last: Outcome | None = None

    def _case(self) -> Case:
        return self.program.cases[0]

    def _fails(self, case: Case) -> bool:
        key = repr(case)
        if key in self.tried:
            return self.tried[key]
        self.trials += 1
        program = replace(self.program, cases=(case,))
        req = 0 if case.requests else -1
        select = {case.index: {0} if case.requests else set()}
        outcomes, _ = check_program(program, (self.level,), sanitize=self.sanitize,
                                    select=select)
        hit = [o for o in outcomes if o.request == req]
        ok = bool(hit) and shape(hit[0]) == self.want
        if ok:
            self.last = hit[0]
        self.tried[key] = ok
        return ok

    def _exhausted(self) -> bool:
        return self.trials >= self.budget or time.monotonic() > self.deadline

    def run(self) -> Program:
        case = _prune(self._case())
        if not self._fails(case):
            self.log("the isolated request does not fail the same way; keeping the whole case")
            case = self._case()
            if not self._fails(case):
                return self.program
        progress = True
        while progress and not self._exhausted():
            progress = False
            helpers = {h.name: h for h in case.helpers}
            for fi, fn in enumerate((case.entry, *case.helpers)):
                for cand in _edits(fn, helpers):
                    if self._exhausted():
                        break
                    new = self._with(case, fi, cand)
                    if new is None or not _valid(new) or not self._fails(new):
                        continue
                    case, progress = new, True
                    self.log(f"trial {self.trials}: {_size(case)} nodes")
                    break
                if progress:
                    break
        self.program = replace(self.program, cases=(case,))
        return self.program

    @staticmethod
    def _with(case: Case, fi: int, fn: Function) -> Case | None:
        if fi == 0:
            return _prune(replace(case, entry=fn))
        helpers = list(case.helpers)
        helpers[fi - 1] = fn
        return _prune(replace(case, helpers=tuple(helpers)))


def _size(case: Case) -> int:
    return sum(len(list(_walk(fn))) for fn in (case.entry, *case.helpers))


def save_reproducer(program: Program, outcome: Outcome, directory: Path, note: str = "") -> Path:
    """Write the reduced AD program with a header saying what fails; returns its path."""
    text, _ = ad_program(program)
    digest = hashlib.sha1(text.encode()).hexdigest()[:10]
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{outcome.cls}-{digest}.c"
    what = ("the values named above differ from central finite differences of the same "
            "function in long double" if outcome.cls in ("wrong", "nan") else
            "irgrad (or the program it builds) fails as quoted above")
    header = [
        f"/* irgrad fuzz reproducer: {outcome.cls} in {outcome.kind} mode at -O{outcome.level}",
        f"   (from seed {outcome.seed}, case {outcome.case}, request {outcome.request})",
        f"   {outcome.detail}",
        *([f"   {note}"] if note else []),
        f"   irgrad cc -O{outcome.level} {path.name} -o repro -lm && ./repro",
        "   prints each request's values between B and E lines;",
        f"   {what}. */",
    ]
    path.write_text("\n".join(header) + "\n" + text)
    return path

