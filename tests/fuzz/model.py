"""The language-neutral program model of the fuzzer.

A generated :class:`Program` is a list of independent :class:`Case` s. A case is one
function to differentiate (its *entry*), the helpers, globals and structs it uses, the
values of its arguments and the derivative requests (:class:`Request`) to make of it.
Renderers (``render_c`` today; C++ and Fortran later) turn the model into source text.

Conventions every renderer keeps:

* ``real`` is the floating-point type of the flavour being rendered (``double`` for the
  program irgrad differentiates, ``long double`` / ``double`` for the finite-difference
  programs); ``int`` is a C ``int``.
* array indices are 0-based; every index expression is in bounds by construction
  (``i``, ``(e) % len``, ``len - 1 - i`` with ``0 <= i < len``).
* nodes are immutable values: the reducer builds new trees with :func:`dataclasses.replace`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# --- expressions ---


@dataclass(frozen=True)
class Num:
    """A real constant."""

    value: float


@dataclass(frozen=True)
class Int:
    """An integer constant."""

    value: int


@dataclass(frozen=True)
class Ref:
    """A scalar variable or parameter (real or int) by name."""

    name: str
    is_int: bool = False


@dataclass(frozen=True)
class Elem:
    """``array[index]`` of a real array (parameter, local, heap buffer or global)."""

    array: str
    index: Expr


@dataclass(frozen=True)
class Member:
    """A real field of a struct: ``var.f``, ``ptr->f`` or ``array[index].f``."""

    base: str
    field: str
    index: Expr | None = None  # array of structs
    arrow: bool = False  # base is a pointer to one struct


@dataclass(frozen=True)
class Neg:
    a: Expr


@dataclass(frozen=True)
class Bin:
    """``a op b`` with op in ``+ - * /`` (real) or ``+ - * % /`` (int)."""

    op: str
    a: Expr
    b: Expr
    is_int: bool = False


@dataclass(frozen=True)
class Call:
    """A call of a math function (``sin``, ``pow``...) or of a helper of the case."""

    func: str
    args: tuple[Expr, ...]
    is_math: bool = True
    is_int: bool = False  # an int-returning helper


@dataclass(frozen=True)
class Compare:
    """``a op b``; ``recorded``: the decision depends on active data (a possible kink)."""

    op: str
    a: Expr
    b: Expr
    recorded: bool = True


@dataclass(frozen=True)
class Logic:
    """``a && b`` / ``a || b`` of comparisons."""

    op: str
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Select:
    """``cond ? a : b``."""

    cond: Expr
    a: Expr
    b: Expr


@dataclass(frozen=True)
class ToInt:
    """``(int)(a)`` of a real (a jump; recorded like a branch); a is in [lo, hi]."""

    a: Expr


@dataclass(frozen=True)
class IntToReal:
    """``(real)(a)`` of an int expression."""

    a: Expr


Expr = Num | Int | Ref | Elem | Member | Neg | Bin | Call | Compare | Logic | Select | ToInt | IntToReal

# --- statements ---


@dataclass(frozen=True)
class Decl:
    """A local: ``real x = init;``, ``int k = init;``, ``real a[len] = {0};`` or a struct.

    ``ctype`` is ``real``, ``int``, ``struct NAME`` or ``real*`` (a pointer alias of
    ``init``, which is then a :class:`Ref` of an array).
    """

    ctype: str
    name: str
    init: Expr | None = None
    length: int | None = None  # a local array (zero-initialized)


@dataclass(frozen=True)
class Assign:
    """``target op value`` with op ``=``, ``+=``, ``-=``, ``*=``."""

    target: Ref | Elem | Member
    op: str
    value: Expr


@dataclass(frozen=True)
class For:
    """``for (int var = lo; var < hi; var += step)`` (``down``: from hi-1 to lo)."""

    var: str
    lo: Expr
    hi: Expr
    body: Block
    step: int = 1
    down: bool = False


@dataclass(frozen=True)
class While:
    """A guarded ``while`` loop: ``int counter = 0; while (counter < limit && cond)``
    ``{ body; counter++; }`` (``do_while``: the body runs before the first test). The guard
    is part of the node, so a reduced loop still terminates; ``cond`` None: counted."""

    counter: str
    limit: Expr
    cond: Expr | None
    body: Block
    do_while: bool = False


@dataclass(frozen=True)
class If:
    cond: Expr
    then: Block
    orelse: Block | None = None


@dataclass(frozen=True)
class Switch:
    """``switch (subject) { case k: ... break; ... default: ... }``."""

    subject: Expr
    cases: tuple[tuple[int, Block], ...]
    default: Block


@dataclass(frozen=True)
class CallStmt:
    """A call whose result (if any) is unused."""

    call: Call


@dataclass(frozen=True)
class Return:
    value: Expr | None = None


@dataclass(frozen=True)
class HeapAlloc:
    """``real *name = malloc/calloc(count)`` and, for malloc, ``name[i] = fill`` for all i.

    ``fill`` may use the loop variable ``fill_var``. One node so that deleting it deletes
    the buffer (uses then fail the scope check) and no uninitialized read can appear.
    """

    name: str
    kind: str  # "malloc" | "calloc"
    count: Expr
    fill: Expr | None
    fill_var: str = "q"


@dataclass(frozen=True)
class Realloc:
    """``name = realloc(name, new_count)``, then ``name[i] = fill`` for old <= i < new."""

    name: str
    old_count: Expr
    new_count: Expr
    fill: Expr
    fill_var: str = "q"


@dataclass(frozen=True)
class Free:
    name: str


@dataclass(frozen=True)
class MemCopy:
    """``memcpy(dst, src, count reals)``; ``loop``: the same as a copy loop; ``zero``:
    ``memset(dst, 0, ...)`` (src unused); ``shift`` (src is dst): ``memmove`` of the
    first ``count`` reals by ``shift`` places within the buffer, left (< 0, the oldest
    dropped, as a sliding window does) or right (> 0, making room at the front).
    Filling a mutable global brings it into scope."""

    dst: str
    src: str
    count: Expr
    zero: bool = False
    loop: bool = False
    shift: int = 0


Stmt = Decl | Assign | For | While | If | Switch | CallStmt | Return | HeapAlloc | Realloc | Free | MemCopy


@dataclass(frozen=True)
class Block:
    stmts: tuple[Stmt, ...] = ()


# --- functions, globals, cases ---


@dataclass(frozen=True)
class Param:
    """A parameter. ``kind``: ``real`` | ``int`` | ``array`` | ``struct_ptr`` (``real``
    arrays: ``role`` ``in`` (read only, ``const``), ``inout`` or ``out``)."""

    name: str
    kind: str
    role: str = "in"
    struct: str | None = None


@dataclass(frozen=True)
class Function:
    """``linkage``: ``entry`` (external), ``noinline``, ``inline`` (static inline)."""

    name: str
    ret: str  # "real" | "int" | "void" | "struct NAME"
    params: tuple[Param, ...]
    body: Block
    linkage: str = "noinline"


@dataclass(frozen=True)
class StructDef:
    name: str
    fields: tuple[tuple[str, str], ...]  # (name, "real" | "int")


@dataclass(frozen=True)
class Global:
    """A file-scope array: ``const`` tables have values; mutable ones start zeroed.
    ``length`` 0: a scalar (an ``int`` counter)."""

    name: str
    length: int
    const: bool
    values: tuple[float, ...] = ()
    is_int: bool = False


@dataclass(frozen=True)
class Request:
    """One derivative request: ``kind`` in ``rev fwd fwdvec split``.

    ``markers[i]`` for parameter i: ``dup``, ``dupnoneed``, ``const``, ``out`` or ``""``
    (no marker: Enzyme's default activity). ``seeds``: per array parameter, the initial
    shadow content (reverse: cotangent of the final contents; forward: tangents, one list
    per direction); ``scalar_seeds``: forward tangents of real scalars (per direction);
    ``d_result``: split mode's adjoint of the result; ``primal_return``: forward mode
    asks for ``{primal, tangent}``.
    """

    kind: str
    markers: tuple[str, ...]
    width: int = 1
    array_seeds: tuple[tuple[tuple[float, ...], ...], ...] = ()  # [direction][array param]
    scalar_seeds: tuple[tuple[float, ...], ...] = ()  # [direction][real param]
    d_result: float = 1.0
    primal_return: bool = False


@dataclass(frozen=True)
class Case:
    """One function to differentiate, what it needs, its arguments and its requests."""

    index: int
    entry: Function
    helpers: tuple[Function, ...]
    globals: tuple[Global, ...]
    structs: tuple[StructDef, ...]
    args: tuple[float | int | tuple[float, ...], ...]  # per parameter (arrays: contents)
    requests: tuple[Request, ...]
    features: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Program:
    seed: int
    cases: tuple[Case, ...]

    @property
    def features(self) -> frozenset[str]:
        out: frozenset[str] = frozenset()
        for case in self.cases:
            out |= case.features
        return out
