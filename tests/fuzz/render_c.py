"""C source text of the program model, in two flavours.

* ``AD``: plain C on ``double`` with libm, what a user would hand to irgrad.
* ``FD``: the same functions on ``fz_real`` (``long double`` with ``-DFZ_LONG``, else
  ``double``) for finite differences; every decision that can make the function jump or
  kink (data-dependent comparisons, ``fabs``/``fmin``/``fmax``, ``(int)`` of a real) is
  recorded into ``fz_path``, so the FD driver knows when a step crossed one.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    Expr,
    For,
    Free,
    Function,
    Global,
    HeapAlloc,
    If,
    Int,
    IntToReal,
    Logic,
    Member,
    MemCopy,
    Neg,
    Num,
    Realloc,
    Ref,
    Return,
    Select,
    Stmt,
    StructDef,
    Switch,
    ToInt,
    While,
)


@dataclass(frozen=True)
class Flavor:
    real: str
    record: bool

    def math(self, name: str) -> str:
        if not self.record:
            return name
        if name in ("fabs", "fmin", "fmax"):
            return f"fz_{name}"
        return f"FZ_M({name})"


AD = Flavor("double", record=False)
FD = Flavor("fz_real", record=True)

FD_PRELUDE = """\
#ifdef FZ_LONG
typedef long double fz_real;
#define FZ_M(f) f##l
#else
typedef double fz_real;
#define FZ_M(f) f
#endif
static unsigned long long fz_path;  /* hash of the kinks and jumps taken */
static int fz_rec(int c) { fz_path = fz_path * 1000003ULL + (unsigned long long)(c + 7); return c; }
static fz_real fz_fabs(fz_real v) { fz_rec(v < 0); return FZ_M(fabs)(v); }
static fz_real fz_fmin(fz_real a, fz_real b) { fz_rec(a < b); return FZ_M(fmin)(a, b); }
static fz_real fz_fmax(fz_real a, fz_real b) { fz_rec(a > b); return FZ_M(fmax)(a, b); }
static int fz_int(fz_real v) { int k = (int)v; fz_rec(k); return k; }
"""


def _num(v: float) -> str:
    text = repr(float(v))
    return f"({text})" if v < 0 else text


class _Renderer:
    def __init__(self, flavor: Flavor, helpers: dict[str, Function]) -> None:
        self.f = flavor
        self.helpers = helpers
        self.tmp = 0

    # --- expressions ---

    def expr(self, e: Expr) -> str:
        f = self.f
        if isinstance(e, Num):
            return _num(e.value)
        if isinstance(e, Int):
            return str(e.value) if e.value >= 0 else f"({e.value})"
        if isinstance(e, Ref):
            return e.name
        if isinstance(e, Elem):
            return f"{e.array}[{self.expr(e.index)}]"
        if isinstance(e, Member):
            if e.index is not None:
                return f"{e.base}[{self.expr(e.index)}].{e.field}"
            return f"{e.base}{'->' if e.arrow else '.'}{e.field}"
        if isinstance(e, Neg):
            return f"(-{self.expr(e.a)})"
        if isinstance(e, Bin | Logic):
            return f"({self.expr(e.a)} {e.op} {self.expr(e.b)})"
        if isinstance(e, Call):
            if e.is_math:
                return f"{f.math(e.func)}({', '.join(self.expr(a) for a in e.args)})"
            params = self.helpers[e.func].params
            args = [("&" if p.kind == "struct_ptr" else "") + self.expr(a)
                    for p, a in zip(params, e.args, strict=True)]
            return f"{e.func}({', '.join(args)})"
        if isinstance(e, Compare):
            text = f"{self.expr(e.a)} {e.op} {self.expr(e.b)}"
            return f"fz_rec({text})" if f.record and e.recorded else f"({text})"
        if isinstance(e, Select):
            return f"({self.expr(e.cond)} ? {self.expr(e.a)} : {self.expr(e.b)})"
        if isinstance(e, ToInt):
            return f"fz_int({self.expr(e.a)})" if f.record else f"((int)({self.expr(e.a)}))"
        if isinstance(e, IntToReal):
            return f"(({f.real})({self.expr(e.a)}))"
        raise TypeError(type(e).__name__)

    # --- statements ---

    def block(self, b: Block, ind: str) -> list[str]:
        lines: list[str] = []
        for s in b.stmts:
            lines += self.stmt(s, ind)
        return lines

    def stmt(self, s: Stmt, ind: str) -> list[str]:
        r, x = self.f.real, self.expr
        if isinstance(s, Decl):
            ctype = r if s.ctype == "real" else s.ctype
            if s.length is not None:
                zero = "{{0}}" if ctype.startswith("struct") else "{0}"
                return [f"{ind}{ctype} {s.name}[{s.length}] = {zero};"]
            if s.init is None:
                return [f"{ind}{ctype} {s.name} = {{0}};"]
            return [f"{ind}{ctype} {s.name} = {x(s.init)};"]
        if isinstance(s, Assign):
            return [f"{ind}{x(s.target)} {s.op} {x(s.value)};"]
        if isinstance(s, For):
            v = s.var
            if s.down:
                head = f"for (int {v} = {x(s.hi)} - 1; {v} >= {x(s.lo)}; {v}--)"
            else:
                inc = f"{v}++" if s.step == 1 else f"{v} += {s.step}"
                head = f"for (int {v} = {x(s.lo)}; {v} < {x(s.hi)}; {inc})"
            return [f"{ind}{head} {{", *self.block(s.body, ind + "  "), f"{ind}}}"]
        if isinstance(s, While):
            guard = f"{s.counter} < {x(s.limit)}"
            if s.cond is not None:
                guard += f" && {x(s.cond)}"
            body = [*self.block(s.body, ind + "    "), f"{ind}    {s.counter}++;"]
            if s.do_while:
                loop = [f"{ind}  do {{", *body, f"{ind}  }} while ({guard});"]
            else:
                loop = [f"{ind}  while ({guard}) {{", *body, f"{ind}  }}"]
            return [f"{ind}{{", f"{ind}  int {s.counter} = 0;", *loop, f"{ind}}}"]
        if isinstance(s, If):
            lines = [f"{ind}if ({x(s.cond)}) {{", *self.block(s.then, ind + "  ")]
            if s.orelse is not None:
                lines += [f"{ind}}} else {{", *self.block(s.orelse, ind + "  ")]
            return [*lines, f"{ind}}}"]
        if isinstance(s, Switch):
            lines = [f"{ind}switch ({x(s.subject)}) {{"]
            for label, body in s.cases:
                lines += [f"{ind}case {label}: {{", *self.block(body, ind + "  "),
                          f"{ind}  break;", f"{ind}}}"]
            lines += [f"{ind}default: {{", *self.block(s.default, ind + "  "),
                      f"{ind}  break;", f"{ind}}}", f"{ind}}}"]
            return lines
        if isinstance(s, CallStmt):
            void = s.call.is_math or self.helpers[s.call.func].ret != "void"
            return [f"{ind}{'(void)' if void else ''}{x(s.call)};"]
        if isinstance(s, Return):
            return [f"{ind}return;" if s.value is None else f"{ind}return {x(s.value)};"]
        if isinstance(s, HeapAlloc):
            count = f"(size_t)({x(s.count)})"
            if s.kind == "calloc":
                return [f"{ind}{r} *{s.name} = ({r} *)calloc({count}, sizeof({r}));"]
            return [f"{ind}{r} *{s.name} = ({r} *)malloc({count} * sizeof({r}));",
                    f"{ind}for (int {s.fill_var} = 0; {s.fill_var} < {x(s.count)}; "
                    f"{s.fill_var}++) {s.name}[{s.fill_var}] = {x(s.fill)};"]  # type: ignore[arg-type]
        if isinstance(s, Realloc):
            q = s.fill_var
            return [f"{ind}{s.name} = ({r} *)realloc({s.name}, (size_t)({x(s.new_count)}) * "
                    f"sizeof({r}));",
                    f"{ind}for (int {q} = {x(s.old_count)}; {q} < {x(s.new_count)}; {q}++) "
                    f"{s.name}[{q}] = {x(s.fill)};"]
        if isinstance(s, Free):
            return [f"{ind}free({s.name});"]
        if isinstance(s, MemCopy):
            size = f"(size_t)({x(s.count)}) * sizeof({r})"
            if s.zero:
                return [f"{ind}memset({s.dst}, 0, {size});"]
            if s.shift:
                k = abs(s.shift)
                to, frm = (s.dst, f"{s.dst} + {k}") if s.shift < 0 else (f"{s.dst} + {k}", s.dst)
                return [f"{ind}memmove({to}, {frm}, (size_t)({x(s.count)} - {k}) * sizeof({r}));"]
            if s.loop:
                return [f"{ind}for (int fz_q = 0; fz_q < {x(s.count)}; fz_q++) "
                        f"{s.dst}[fz_q] = {s.src}[fz_q];"]
            return [f"{ind}memcpy({s.dst}, {s.src}, {size});"]
        raise TypeError(type(s).__name__)

    # --- declarations ---

    def signature(self, fn: Function) -> str:
        r = self.f.real
        params = []
        for p in fn.params:
            if p.kind == "real":
                params.append(f"{r} {p.name}")
            elif p.kind == "int":
                params.append(f"int {p.name}")
            elif p.kind == "array":
                params.append(f"{'const ' if p.role == 'in' else ''}{r} *{p.name}")
            else:
                params.append(f"struct {p.struct} *{p.name}")
        ret = r if fn.ret == "real" else fn.ret
        prefix = {"entry": "", "noinline": "static __attribute__((noinline)) ",
                  "inline": "static inline "}[fn.linkage]
        return f"{prefix}{ret} {fn.name}({', '.join(params)})"

    def function(self, fn: Function) -> list[str]:
        return [f"{self.signature(fn)} {{", *self.block(fn.body, "  "), "}", ""]


def _global(g: Global, flavor: Flavor) -> str:
    if g.is_int:
        return f"static int {g.name};"
    if g.const:
        values = ", ".join(repr(v) for v in g.values)
        return f"static const {flavor.real} {g.name}[{g.length}] = {{{values}}};"
    return f"static {flavor.real} {g.name}[{g.length}];"


def _struct(s: StructDef, flavor: Flavor) -> str:
    fields = " ".join(f"{flavor.real if t == 'real' else t} {n};" for n, t in s.fields)
    return f"struct {s.name} {{ {fields} }};"


def render_case(case: Case, flavor: Flavor) -> str:
    """The structs, globals, helpers and entry of one case."""
    helpers = {h.name: h for h in case.helpers}
    r = _Renderer(flavor, helpers)
    lines = [f"/* case {case.index} */"]
    lines += [_struct(s, flavor) for s in case.structs]
    lines += [_global(g, flavor) for g in case.globals]
    lines += [f"{r.signature(h)};" for h in case.helpers]
    lines.append("")
    for fn in (*case.helpers, case.entry):
        lines += r.function(fn)
    return "\n".join(lines)


HEADERS = "#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
