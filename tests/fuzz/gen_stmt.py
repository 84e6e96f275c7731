"""Random statements: loops, branches, memory, globals, structs and calls.

Each statement kind is one function ``_kind(ctx, out)`` that appends statements to
``out`` (a few kinds need more than one: a buffer and its fill loop). Real stores are
*contracting* (``v = c v + (1 - c) e`` with ``e`` in range, ``v *= factor`` with
``|factor| <= 1``, or an overwrite with a squashed value), so loops of any trip count
keep every value in ``[-VB, VB]``. Heap buffers are freed at the end of the block that
allocates them; a mutable global becomes readable only after a statement that fills it.
"""

from __future__ import annotations

from collections.abc import Callable

from .checks import LOCAL_LEN
from .gen_expr import (
    ArrayVar,
    Ctx,
    LoopVar,
    StructVar,
    call,
    callable_helpers,
    compare,
    index,
    member,
    real,
    squash,
    to_int_bucket,
)
from .model import (
    Assign,
    Bin,
    Block,
    Call,
    CallStmt,
    Compare,
    Decl,
    Elem,
    Expr,
    For,
    Free,
    Global,
    HeapAlloc,
    If,
    Int,
    Member,
    MemCopy,
    Num,
    Realloc,
    Ref,
    Return,
    Stmt,
    Switch,
    While,
)

MAX_DEPTH = 3
Out = list[Stmt]


def mix(ctx: Ctx, old: Expr, new: Expr) -> Expr:
    """``c * old + (1 - c) * new``: a contracting update."""
    c = ctx.rng.choice((0.25, 0.5, 0.75))
    return Bin("+", Bin("*", Num(c), old), Bin("*", Num(1.0 - c), squash(ctx, new)))


def _target(ctx: Ctx) -> Ref | Elem | None:  # a Member is written by _struct_update
    """A writable real: a local scalar or an element of a writable array."""
    writable = [a for a in ctx.arrays if a.writable and a.struct is None]
    if writable and (not ctx.reals or ctx.chance(0.6)):
        arr = ctx.rng.choice(writable)
        return Elem(arr.name, index(ctx, arr))
    if ctx.reals:
        return Ref(ctx.rng.choice(ctx.reals))
    return None


def _decl(ctx: Ctx, out: Out) -> None:
    name = ctx.fresh("t")
    out.append(Decl("real", name, squash(ctx, real(ctx, 3))))
    ctx.reals.append(name)


def _update(ctx: Ctx, out: Out) -> None:
    target = _target(ctx)
    if target is None:
        _decl(ctx, out)
        return
    if isinstance(target, Elem):
        ctx.note("inplace_array_update")
    roll = ctx.rng.random()
    if roll < 0.6:
        out.append(Assign(target, "=", mix(ctx, target, real(ctx, 3))))
    elif roll < 0.8:
        factor = Call(ctx.rng.choice(("sin", "cos", "tanh")), (real(ctx, 2),))
        out.append(Assign(target, "*=", factor))
    else:
        out.append(Assign(target, "=", squash(ctx, real(ctx, 3))))


def _body(ctx: Ctx, size: int) -> Block:
    out: Out = []
    block(ctx, out, size)
    return Block(tuple(out))


def _loop(ctx: Ctx, out: Out) -> None:
    rng = ctx.rng
    var = ctx.fresh("i")
    inner = ctx.child()
    enclosing = [v for v in ctx.loops if isinstance(v.hi, Ref)]
    form = rng.choice(("counted", "counted", "reverse", "stride", "small", "triangular"))
    if ctx.loops:
        ctx.note("loop_nested")
    if form == "triangular" and enclosing:
        ctx.note("loop_triangular")
        outer = rng.choice(enclosing)
        inner.loops.append(LoopVar(var, Ref(outer.name, is_int=True), outer.hi_max))
        out.append(For(var, Int(0), Ref(outer.name, is_int=True), _body(inner, 2)))
        return
    if form == "small":
        ctx.note("loop_small_constant")
        trips = rng.randint(2, 4)
        inner.loops.append(LoopVar(var, Int(trips), trips))
        out.append(For(var, Int(0), Int(trips), _body(inner, 2)))
        return
    inner.loops.append(LoopVar(var, ctx.n, ctx.n_max))
    step, down = (2, False) if form == "stride" else (1, form == "reverse")
    ctx.note("loop_" + ("reverse" if down else "stride" if step == 2 else "counted"))
    out.append(For(var, Int(0), ctx.n, _body(inner, 3), step=step, down=down))


def _while(ctx: Ctx, out: Out) -> None:
    counter = ctx.fresh("k")
    inner = ctx.child()
    roll = ctx.rng.random()
    if roll < 0.4:
        ctx.note("loop_while_counted")
        inner.loops.append(LoopVar(counter, ctx.n, ctx.n_max))
        out.append(While(counter, ctx.n, None, _body(inner, 3)))
        return
    limit = ctx.rng.randint(2, 6)
    inner.loops.append(LoopVar(counter, Int(limit), limit))
    cond = compare(inner, 2)
    do_while = roll > 0.8
    ctx.note("loop_do_while" if do_while else "loop_while_data")
    out.append(While(counter, Int(limit), cond, _body(inner, 3), do_while=do_while))


def _if(ctx: Ctx, out: Out) -> None:
    if ctx.loops and ctx.chance(0.3):
        ctx.note("branch_int")
        i = Ref(ctx.rng.choice(ctx.loops).name, is_int=True)
        cond: Expr = Compare("==", Bin("%", i, Int(2), is_int=True), Int(0), recorded=False)
    else:
        cond = compare(ctx, 2)
    then = _body(ctx.child(), 2)
    orelse = _body(ctx.child(), 2) if ctx.chance(0.6) else None
    if orelse is not None:
        ctx.note("branch_else")
    out.append(If(cond, then, orelse))


def _switch(ctx: Ctx, out: Out) -> None:
    if ctx.loops and ctx.chance(0.5):
        ctx.note("switch_int")
        i = Ref(ctx.rng.choice(ctx.loops).name, is_int=True)
        subject: Expr = Bin("%", i, Int(3), is_int=True)
        labels = [0, 1, 2]
    else:
        ctx.note("switch_data")
        subject = to_int_bucket(ctx, 2)
        labels = [0, 1, 2, 3]
    ctx.rng.shuffle(labels)
    cases = tuple((k, _body(ctx.child(), 1)) for k in sorted(labels[: ctx.rng.randint(1, 3)]))
    out.append(Switch(subject, cases, _body(ctx.child(), 1)))


def _fill_loop(ctx: Ctx, arr: ArrayVar, length: Expr, max_len: int) -> For:
    var = ctx.fresh("i")
    inner = ctx.child()
    inner.loops.append(LoopVar(var, length, max_len))
    return For(var, Int(0), length, Block((
        Assign(Elem(arr.name, Ref(var, is_int=True)), "=", squash(inner, real(inner, 3))),)))


def _stack_array(ctx: Ctx, out: Out) -> None:
    ctx.note("stack_array")
    name = ctx.fresh("s")
    arr = ArrayVar(name, Int(LOCAL_LEN), LOCAL_LEN, True)
    out.append(Decl("real", name, length=LOCAL_LEN))
    out.append(_fill_loop(ctx, arr, ctx.n, ctx.n_max))
    ctx.arrays.append(arr)


def _heap(ctx: Ctx, out: Out) -> None:
    name = ctx.fresh("h")
    fill_var = ctx.fresh("q")
    kind = ctx.rng.choice(("malloc", "malloc", "calloc"))
    ctx.note("heap_" + kind)
    inner = ctx.child()
    inner.loops.append(LoopVar(fill_var, ctx.n, ctx.n_max))
    fill = squash(inner, real(inner, 3)) if kind == "malloc" else None
    out.append(HeapAlloc(name, kind, ctx.n, fill, fill_var))
    arr = ArrayVar(name, ctx.n, ctx.n_min, True)
    if ctx.allow_realloc and ctx.chance(0.35):
        ctx.note("heap_realloc")
        fill_var2 = ctx.fresh("q")
        grown = Bin("*", Int(2), ctx.n, is_int=True)
        inner = ctx.child()
        inner.loops.append(LoopVar(fill_var2, grown, 2 * ctx.n_max))
        out.append(Realloc(name, ctx.n, grown, squash(inner, real(inner, 2)), fill_var2))
        arr = ArrayVar(name, grown, 2 * ctx.n_min, True)
    ctx.arrays.append(arr)
    ctx.pending_frees.append(name)


def _memcpy(ctx: Ctx, out: Out) -> None:
    sources = [a for a in ctx.arrays if ctx.holds_n(a)]
    targets = [a for a in sources if a.writable]
    if not sources or not targets:
        _stack_array(ctx, out)
        return
    dst = ctx.rng.choice(targets)
    if ctx.n_min >= 1 and ctx.chance(0.25):  # n - 1 >= 0 reals move
        ctx.note("memmove_shift")
        out.append(MemCopy(dst.name, dst.name, ctx.n, shift=ctx.rng.choice((-1, 1))))
        return
    if ctx.chance(0.3):
        ctx.note("memset")
        out.append(MemCopy(dst.name, "", ctx.n, zero=True))
        return
    src = ctx.rng.choice([a for a in sources if a.name != dst.name] or sources)
    if src.name == dst.name:
        return
    ctx.note("memcpy")
    out.append(MemCopy(dst.name, src.name, ctx.n))


def _global_copy(ctx: Ctx, out: Out) -> None:
    """Active data copied into a mutable global that is then read (Enzyme: shadow global)."""
    sources = [a for a in ctx.arrays if ctx.holds_n(a)]
    if not sources:
        _stack_array(ctx, out)
        return
    src = ctx.rng.choice(sources)
    name = f"{ctx.prefix}G{ctx.fresh('')}"
    ctx.new_globals.append(Global(name, LOCAL_LEN, const=False))
    loop = ctx.chance(0.5)
    ctx.note("global_mutable_" + ("loop" if loop else "memcpy"))
    out.append(MemCopy(name, src.name, ctx.n, loop=loop))
    # only the first n elements are filled: the rest keep what an earlier call left, so
    # reading them would make the function depend on the calls before it
    ctx.arrays.append(ArrayVar(name, ctx.n, ctx.n_min, True))


def _global_counter(ctx: Ctx, out: Out) -> None:
    ctx.note("global_int_counter")
    name = f"{ctx.prefix}C{ctx.fresh('')}"
    ctx.new_globals.append(Global(name, 0, const=False, is_int=True))
    out.append(Assign(Ref(name, is_int=True), "+=", Int(1)))


def _struct_local(ctx: Ctx, out: Out) -> None:
    if ctx.struct_name is None:
        _decl(ctx, out)
        return
    name = ctx.fresh("p")
    fields = ctx.struct_fields[ctx.struct_name]
    if ctx.chance(0.5):
        ctx.note("struct_array")
        arr = ArrayVar(name, Int(LOCAL_LEN), LOCAL_LEN, True, struct=ctx.struct_name)
        out.append(Decl(f"struct {ctx.struct_name}", name, length=LOCAL_LEN))
        var = ctx.fresh("i")
        inner = ctx.child()
        inner.loops.append(LoopVar(var, ctx.n, ctx.n_max))
        body = tuple(Assign(Member(name, f, index=Ref(var, is_int=True)), "=",
                            squash(inner, real(inner, 2))) for f in fields)
        out.append(For(var, Int(0), ctx.n, Block(body)))
        ctx.arrays.append(arr)
        return
    ctx.note("struct_local")
    out.append(Decl(f"struct {ctx.struct_name}", name))
    for f in fields:
        out.append(Assign(Member(name, f), "=", squash(ctx, real(ctx, 2))))
    ctx.structs.append(StructVar(name, ctx.struct_name, arrow=False))


def _struct_update(ctx: Ctx, out: Out) -> None:
    if not ctx.structs and not any(a.struct for a in ctx.arrays):
        _struct_local(ctx, out)
        return
    target = member(ctx)
    out.append(Assign(target, "=", mix(ctx, target, real(ctx, 2))))


def _call_stmt(ctx: Ctx, out: Out) -> None:
    void = callable_helpers(ctx, "void")
    if void and ctx.chance(0.7):
        fn = ctx.rng.choice(void)
        out.append(CallStmt(call(ctx, fn, 3)))
        return
    scalar = callable_helpers(ctx, "real")
    if scalar:
        ctx.note("call_result_unused")
        out.append(CallStmt(call(ctx, ctx.rng.choice(scalar), 3)))
        return
    _update(ctx, out)


def _struct_call(ctx: Ctx, out: Out) -> None:
    ptr = [h for h in ctx.helpers if any(p.kind == "struct_ptr" for p in h.params)]
    ret = [h for h in ctx.helpers if h.ret.startswith("struct")]
    if ret and (not ptr or ctx.chance(0.5)):
        ctx.note("call_struct_return")
        fn = ctx.rng.choice(ret)
        name = ctx.fresh("p")
        out.append(Decl(fn.ret, name, call(ctx, fn, 2)))
        ctx.structs.append(StructVar(name, fn.ret.split()[1], arrow=False))
        return
    locals_ = [s for s in ctx.structs if not s.arrow]
    if ptr and locals_:
        ctx.note("call_struct_pointer")
        fn = ctx.rng.choice(ptr)
        sv = ctx.rng.choice(locals_)
        args: list[Expr] = [Ref(sv.name)]
        args += [real(ctx, 2) for p in fn.params[1:]]
        out.append(CallStmt(Call(fn.name, tuple(args), is_math=False)))
        return
    _struct_local(ctx, out)


KINDS: dict[str, tuple[float, Callable[[Ctx, Out], None]]] = {
    "decl": (3.0, _decl),
    "update": (4.0, _update),
    "loop": (3.0, _loop),
    "while": (1.0, _while),
    "if": (2.0, _if),
    "switch": (0.7, _switch),
    "stack_array": (0.8, _stack_array),
    "heap": (0.8, _heap),
    "memcpy": (0.6, _memcpy),
    "global_copy": (0.3, _global_copy),
    "global_counter": (0.2, _global_counter),
    "struct": (0.7, _struct_local),
    "struct_update": (0.5, _struct_update),
    "struct_call": (0.5, _struct_call),
    "call": (1.2, _call_stmt),
}
NESTING = {"loop", "while", "if", "switch"}


def statement(ctx: Ctx, out: Out, kind: str | None = None) -> None:
    if kind is None:
        kinds = [k for k in KINDS if ctx.depth < MAX_DEPTH or k not in NESTING]
        weights = [KINDS[k][0] for k in kinds]
        kind = ctx.rng.choices(kinds, weights)[0]
    KINDS[kind][1](ctx, out)


def block(
    ctx: Ctx, out: Out, size: int, focus: str | None = None,
    epilogue: Callable[[Ctx, Out], None] | None = None,
) -> None:
    """``size`` random statements (``focus`` first), ``epilogue``, the frees of the block."""
    frees_before = len(ctx.pending_frees)
    if focus is not None:
        statement(ctx, out, focus)
    for _ in range(ctx.rng.randint(1, size)):
        statement(ctx, out)
    if epilogue is not None:
        epilogue(ctx, out)
    frees = [Free(name) for name in reversed(ctx.pending_frees[frees_before:])]
    del ctx.pending_frees[frees_before:]
    last = out[-1] if out else None
    if frees and isinstance(last, Return) and last.value is not None:
        # the result is computed before the buffers it may read are freed
        name = ctx.fresh("ret")
        out[-1] = Decl("real", name, last.value)
        out += [*frees, Return(Ref(name))]
    else:
        out += frees
