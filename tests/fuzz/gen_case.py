"""Random cases and programs: helpers, the entry function, arguments and requests.

:func:`generate` is deterministic in ``(seed, focus)``. ``focus`` names one feature the
program must exercise (a statement kind of :mod:`gen_stmt` or a request feature such as
``mode_split``), so a short slice of seeds can cover every feature.
"""

from __future__ import annotations

import random

from .checks import LOCAL_LEN, NMAX, check_function
from .gen_expr import ArrayVar, Ctx, LoopVar, StructVar, const, real, squash
from .gen_stmt import KINDS, block, mix
from .model import (
    Assign,
    Bin,
    Block,
    Call,
    CallStmt,
    Case,
    Compare,
    Decl,
    Elem,
    For,
    Function,
    Global,
    If,
    Int,
    Member,
    Param,
    Program,
    Ref,
    Request,
    Return,
    StructDef,
)

STRUCT_FIELDS = (("a", "real"), ("b", "real"), ("k", "int"))
HELPER_KINDS = ("scalar", "reduce", "inplace", "recursive", "recursive_inplace",
                "struct_ptr", "struct_ret")
REQUEST_KINDS = ("rev", "fwd", "fwdvec", "split")
REQUEST_FEATURES = (
    "mode_rev", "mode_fwd", "mode_fwdvec", "mode_split", "marker_dup", "marker_dupnoneed",
    "marker_const", "marker_out", "marker_default", "primal_return", "void_return",
    "width_2", "width_3", "width_4",
)
FOCI = (*KINDS, *(f"helper_{k}" for k in HELPER_KINDS), *REQUEST_FEATURES)
ALL_FEATURES = frozenset({
    *REQUEST_FEATURES, *(f"helper_{k}" for k in HELPER_KINDS),
    "branch_data", "branch_else", "branch_int", "branch_logical", "select_ternary",
    "switch_data", "switch_int", "kink_fabs", "kink_fmin_fmax", "division",
    "call_inline", "call_noinline", "call_result_unused", "call_struct_pointer",
    "call_struct_return", "global_const_table", "global_int_counter",
    "global_mutable_loop", "global_mutable_memcpy", "heap_malloc", "heap_calloc",
    "heap_realloc", "memcpy", "memmove_shift", "memset", "stack_array", "struct_array",
    "struct_field", "struct_local", "index_modulo", "index_reversed", "inplace_array_update",
    "int_cast_of_real", "int_to_real", "loop_counted", "loop_reverse", "loop_stride",
    "loop_nested", "loop_triangular", "loop_small_constant", "loop_while_counted",
    "loop_while_data", "loop_do_while",
    *(f"libm_{f}" for f in ("sin", "cos", "tanh", "atan", "exp", "log", "sqrt", "pow",
                            "hypot")),
})
CASES_PER_PROGRAM = 3


def _dyadic(rng: random.Random, lo: float, hi: float, denom: int = 32) -> float:
    """A random multiple of 1/denom in [lo, hi], not zero (exact in every format)."""
    while True:
        v = rng.randint(int(lo * denom), int(hi * denom)) / denom
        if v != 0.0:
            return v


def _point(rng: random.Random) -> float:
    """An argument value in [-1.5, 1.5]: an odd multiple of 1/4096, so that it never ties
    with the program's constants (multiples of 1/64) at a kink of fmin, fabs or a branch."""
    return (2 * rng.randint(-3072, 3071) + 1) / 4096


def _ctx(rng: random.Random, features: set[str], counter: list[int], prefix: str,
         helpers: list[Function], tables: list[Global], struct: str) -> Ctx:
    ctx = Ctx(rng, features, counter, prefix, helpers=list(helpers), tables=list(tables),
              struct_name=struct)
    ctx.struct_fields[struct] = tuple(f for f, t in STRUCT_FIELDS if t == "real")
    return ctx


def _helper_ctx(base: Ctx) -> Ctx:
    ctx = _ctx(base.rng, base.features, base.counter, base.prefix, base.helpers, base.tables,
               base.struct_name or "")
    ctx.n, ctx.n_min, ctx.n_max, ctx.allow_realloc = Ref("m", is_int=True), 1, LOCAL_LEN, False
    ctx.pending_frees, ctx.new_globals = base.pending_frees, base.new_globals
    ctx.depth = 1  # helpers nest less
    return ctx


def _helper(base: Ctx, kind: str, name: str) -> Function:
    ctx = _helper_ctx(base)
    rng = ctx.rng
    out: list = []
    m = Ref("m", is_int=True)
    base.note(f"helper_{kind}")
    if kind in ("scalar", "struct_ptr", "struct_ret"):  # no length parameter: loops of 3
        ctx.n, ctx.n_min, ctx.n_max = Int(3), 3, 3
    if kind == "scalar":
        ctx.reals += ["u", "v"]
        block(ctx, out, 3, epilogue=lambda c, o: o.append(Return(squash(c, real(c, 3)))))
        linkage = rng.choice(("inline", "noinline"))
        return Function(name, "real", (Param("u", "real"), Param("v", "real")),
                        Block(tuple(out)), linkage)
    arr_params = (Param("v", "array", "in"), Param("m", "int"))
    if kind == "reduce":
        ctx.arrays.append(ArrayVar("v", m, 1, False))

        def reduce_tail(c: Ctx, o: list) -> None:
            acc = c.fresh("acc")
            o.append(Decl("real", acc, const(c)))
            c.reals.append(acc)
            inner = c.child()
            inner.loops.append(LoopVar("j", m, LOCAL_LEN))
            body = (Assign(Ref(acc), "=", mix(inner, Ref(acc), real(inner, 3))),)
            o.append(For("j", Int(0), m, Block(body)))
            o.append(Return(squash(c, real(c, 2)) if c.chance(0.3) else Ref(acc)))

        block(ctx, out, 2, epilogue=reduce_tail)
        return Function(name, "real", arr_params, Block(tuple(out)))
    if kind == "inplace":
        ctx.arrays.append(ArrayVar("v", m, 1, True))
        ctx.reals.append("s")
        params = (Param("v", "array", "inout"), Param("m", "int"), Param("s", "real"))
        block(ctx, out, 3, focus="loop")
        return Function(name, "void", params, Block(tuple(out)))
    if kind == "recursive":
        ctx.arrays.append(ArrayVar("v", m, 1, False))
        ctx.reals.append("r")
        base_case = If(Compare("<=", m, Int(0), recorded=False), Block((Return(const(ctx)),)))
        rec = Call(name, (Ref("v"), Bin("-", m, Int(1), is_int=True)), is_math=False)
        last = Elem("v", Bin("-", m, Int(1), is_int=True))
        value = mix(ctx, Ref("r"), Bin("*", last, real(ctx, 2)))
        body = (base_case, Decl("real", "r", rec), Return(value))
        return Function(name, "real", arr_params, Block(body))
    if kind == "recursive_inplace":
        ctx.arrays.append(ArrayVar("v", m, 1, True))
        stop = If(Compare("<=", m, Int(1), recorded=False), Block((Return(None),)))
        top, below = (Elem("v", Bin("-", m, Int(k), is_int=True)) for k in (1, 2))
        update = Assign(top, "=", mix(ctx, top, Bin("*", below, real(ctx, 2))))
        rec = Call(name, (Ref("v"), Bin("-", m, Int(1), is_int=True)), is_math=False)
        params = (Param("v", "array", "inout"), Param("m", "int"))
        return Function(name, "void", params, Block((stop, update, CallStmt(rec))))
    struct = ctx.struct_name or ""
    if kind == "struct_ptr":
        ctx.structs.append(StructVar("p", struct, arrow=True))
        ctx.reals.append("u")
        target = Member("p", rng.choice(ctx.struct_fields[struct]), arrow=True)
        first = Assign(target, "=", mix(ctx, target, real(ctx, 2)))
        block(ctx, out, 2)
        params = (Param("p", "struct_ptr", struct=struct), Param("u", "real"))
        return Function(name, "void", params, Block((first, *out)))
    ctx.reals += ["u", "v"]
    out.append(Decl(f"struct {struct}", "r"))
    for f in ctx.struct_fields[struct]:
        out.append(Assign(Member("r", f), "=", squash(ctx, real(ctx, 3))))
    out.append(Return(Ref("r")))
    return Function(name, f"struct {struct}", (Param("u", "real"), Param("v", "real")),
                    Block(tuple(out)), rng.choice(("inline", "noinline")))


def _entry_params(rng: random.Random, focus: str | None) -> tuple[list[Param], str]:
    params = [Param("x", "array", rng.choice(("in", "inout")))]
    if rng.random() < 0.4:
        params.append(Param("w", "array", "in"))
    want_void = focus == "void_return" or (focus != "primal_return" and rng.random() < 0.2)
    if want_void or rng.random() < 0.5:
        params.append(Param("y", "array", "out"))
    for name in ("a", "b")[: rng.randint(0, 2)]:
        params.append(Param(name, "real"))
    if focus in ("marker_out", "marker_default") and not any(p.kind == "real" for p in params):
        params.append(Param("a", "real"))
    if focus == "marker_const" and not any(p.role == "in" for p in params):
        params.append(Param("w", "array", "in"))
    rng.shuffle(params)
    params.insert(rng.randint(0, len(params)), Param("n", "int"))
    return params, "void" if want_void else "real"


def _case(rng: random.Random, index: int, focus: str | None) -> Case:
    features: set[str] = set()
    counter = [0]
    prefix = f"f{index}_"
    struct = f"S{index}"
    tables = [Global(f"{prefix}T{k}", NMAX, const=True,
                     values=tuple(_dyadic(rng, -1.5, 1.5) for _ in range(NMAX)))
              for k in range(rng.randint(0, 2))]
    base = _ctx(rng, features, counter, prefix, [], tables, struct)
    helpers: list[Function] = []
    kinds = rng.sample(HELPER_KINDS, rng.randint(0, 3))
    if focus and focus.startswith("helper_") and focus[7:] not in kinds:
        kinds.append(focus[7:])
    for k, kind in enumerate(kinds):
        base.helpers = list(helpers)
        helpers.append(_helper(base, kind, f"{prefix}h{k}"))
    params, ret = _entry_params(rng, focus)
    n_value = rng.randint(2, 6)
    ctx = _ctx(rng, features, counter, prefix, helpers, tables, struct)
    ctx.n_min = ctx.n_max = n_value
    ctx.pending_frees, ctx.new_globals = base.pending_frees, base.new_globals
    for p in params:
        if p.kind == "array":
            ctx.arrays.append(ArrayVar(p.name, Ref("n", is_int=True), n_value, p.role != "in"))
        elif p.kind == "real":
            ctx.reals.append(p.name)
    stmt_focus = focus if focus in KINDS else None
    out: list = []

    def epilogue(c: Ctx, o: list) -> None:
        for p in params:
            if p.role == "out" and p.kind == "array":
                inner = c.child()
                inner.loops.append(LoopVar("i", Ref("n", is_int=True), n_value))
                target = Elem(p.name, Ref("i", is_int=True))
                value = mix(inner, target, real(inner, 3)) if c.chance(0.3) else squash(
                    inner, real(inner, 3))
                o.append(For("i", Int(0), Ref("n", is_int=True),
                             Block((Assign(target, "=", value),))))
        if ret == "real":
            o.append(Return(squash(c, real(c, 3))))

    block(ctx, out, rng.randint(3, 6), focus=stmt_focus, epilogue=epilogue)
    entry = Function(f"f{index}", ret, tuple(params), Block(tuple(out)), "entry")
    globals_ = tuple(tables) + tuple(base.new_globals)
    file_scope = {g.name for g in globals_ if g.const or g.is_int} | {h.name for h in helpers}
    fillable = {g.name for g in globals_ if not g.const and not g.is_int}
    for fn in (*helpers, entry):
        check_function(fn, file_scope | {fn.name}, fillable)
    args: list[float | int | tuple[float, ...]] = []
    for p in params:
        if p.kind == "array":
            args.append(tuple(_point(rng) for _ in range(n_value)))
        elif p.kind == "real":
            args.append(_point(rng))
        else:
            args.append(n_value)
    requests = _requests(rng, params, ret, n_value, focus, features)
    if ret == "void":
        features.add("void_return")
    structs = (StructDef(struct, STRUCT_FIELDS),)
    return Case(index, entry, tuple(helpers), globals_, structs, tuple(args), requests,
                frozenset(features))


MARKER_OF = {"marker_dup": "dup", "marker_dupnoneed": "dupnoneed", "marker_const": "const",
             "marker_out": "out", "marker_default": ""}


def _options(kind: str, p: Param) -> list[str]:
    """The markers a parameter may get in a request of ``kind`` (weighted by repetition)."""
    if p.kind == "int":
        return ["", "const"]
    if p.kind == "real":
        if kind in ("rev", "split"):
            return ["out", "out", "", "const"]
        return ["", "dup", "const"] if kind == "fwd" else ["dup", "dup", "const"]
    if p.role == "in":
        return ["dup", "dup", "", "const", "dupnoneed"]
    return ["dup", "dup", "", "dupnoneed"]


def _markers(rng: random.Random, kind: str, params: list[Param], focus: str | None
             ) -> tuple[str, ...]:
    markers = [rng.choice(_options(kind, p)) for p in params]
    wanted = MARKER_OF.get(focus or "")
    present = {m for m, p in zip(markers, params, strict=True) if p.kind != "int"}
    if wanted is not None and wanted not in present:
        allowed = [k for k, p in enumerate(params) if p.kind != "int"
                   and wanted in _options(kind, p)]
        if allowed:
            markers[rng.choice(allowed)] = wanted
    return tuple(markers)


def _requests(rng: random.Random, params: list[Param], ret: str, n: int, focus: str | None,
              features: set[str]) -> tuple[Request, ...]:
    kinds = rng.sample(REQUEST_KINDS, rng.randint(2, 3))
    forced = {"mode_" + k: k for k in REQUEST_KINDS} | {
        "primal_return": "fwd", "width_2": "fwdvec", "width_3": "fwdvec", "width_4": "fwdvec"}
    if focus in forced and forced[focus] not in kinds:
        kinds.append(forced[focus])
    out = []
    for kind in kinds:
        markers = _markers(rng, kind, params, focus)
        width = 1
        if kind == "fwdvec":
            width = int(focus[-1]) if focus and focus.startswith("width_") else rng.randint(2, 4)
            features.add(f"width_{width}")
        directions = 1 if kind in ("rev", "split") else width
        arrays = [p for p in params if p.kind == "array"]
        reals = [p for p in params if p.kind == "real"]
        array_seeds = tuple(
            tuple(tuple(_dyadic(rng, -1.0, 1.0, 8) for _ in range(n)) for _ in arrays)
            for _ in range(directions))
        scalar_seeds = tuple(tuple(_dyadic(rng, -1.0, 1.0, 8) for _ in reals)
                             for _ in range(directions))
        primal_return = kind == "fwd" and ret == "real" and (
            focus == "primal_return" or rng.random() < 0.3)
        features.add("mode_" + kind)
        if primal_return:
            features.add("primal_return")
        for p, mk in zip(params, markers, strict=True):
            if p.kind != "int":
                features.add("marker_" + {"": "default"}.get(mk, mk))
        out.append(Request(kind, markers, width, array_seeds, scalar_seeds,
                           _dyadic(rng, -1.0, 1.0, 8), primal_return))
    return tuple(out)


def generate(seed: int, focus: str | None = None, cases: int = CASES_PER_PROGRAM) -> Program:
    """The program of ``seed``; case 0 is built around ``focus``."""
    rng = random.Random(seed)
    return Program(seed, tuple(_case(rng, k, focus if k == 0 else None) for k in range(cases)))


def focus_of(seed: int) -> str:
    """The focus feature the campaigns give to seed ``seed`` (cycling through all)."""
    return FOCI[seed % len(FOCI)]
