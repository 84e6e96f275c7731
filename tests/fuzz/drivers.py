"""The ``main`` of the two programs made from a :class:`Program`.

A case's entry is seen as a map ``F: p -> y``. ``p`` flattens the inputs in parameter
order (a real scalar: one entry; an array: its initial contents); ``y`` flattens the
outputs (the return value when it is real, then the final contents of every array, so
a read-only array contributes identity rows). Enzyme's shadows fit this exactly: after a
reverse call the shadow of an array holds ``(J^T c)`` restricted to it, where ``c`` is the
initial shadow content of every array plus the seed of the return; a forward call turns
the tangents ``t`` of the inputs into ``J t``.

* The **AD program** (rendered with the ``AD`` flavour, compiled by irgrad) calls each
  entry directly (the primal) and makes every request; it prints one ``B rid`` line, the
  values as ``%a``, and an ``E rid`` line per request, flushing each, so a crash is pinned
  to a request. ``argv[1]`` skips the requests before it (the harness resumes after a
  crash). :class:`RequestLayout` says what each printed value is.
* The **FD program** (``FD`` flavour, plain clang-22, ``long double`` with ``-DFZ_LONG``)
  prints the base outputs and, for every input coordinate and every forward direction,
  central differences at three steps ``h, h/2, h/4`` taken only where the kink path of all
  six evaluations equals the base path (else smaller steps; ``-1`` when none works).
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Case, Program, Request
from .render_c import AD, HEADERS, render_case

FD_STEP = 1e-3
FD_SCALES = (1.0, 1.0 / 32, 1.0 / 1024, 1.0 / 32768)


@dataclass(frozen=True)
class Label:
    """A printed value: ``p`` = reverse adjoint of input ``index``; ``t`` = forward
    tangent of output ``index`` along direction ``direction``; ``y`` = primal output."""

    kind: str
    index: int
    direction: int = 0


@dataclass(frozen=True)
class RequestLayout:
    rid: int
    case: int
    request: int  # index into case.requests; -1: the direct primal call
    labels: tuple[Label, ...]


def p_offsets(case: Case) -> dict[int, int]:
    """Parameter index -> first position in ``p`` (reals and arrays only)."""
    out, pos = {}, 0
    for k, p in enumerate(case.entry.params):
        if p.kind == "real":
            out[k], pos = pos, pos + 1
        elif p.kind == "array":
            out[k], pos = pos, pos + n_of(case)
    return out


def y_offsets(case: Case) -> dict[int, int]:
    """Array parameter index -> first position in ``y`` (the return value is at 0)."""
    pos = 1 if case.entry.ret == "real" else 0
    out = {}
    for k, p in enumerate(case.entry.params):
        if p.kind == "array":
            out[k], pos = pos, pos + n_of(case)
    return out


def n_of(case: Case) -> int:
    for p, a in zip(case.entry.params, case.args, strict=True):
        if p.kind == "int":
            assert isinstance(a, int)
            return a
    raise ValueError("entry without n")


def sizes(case: Case) -> tuple[int, int]:
    n = n_of(case)
    params = case.entry.params
    np_ = sum(1 if p.kind == "real" else n for p in params if p.kind in ("real", "array"))
    ny = (case.entry.ret == "real") + n * sum(p.kind == "array" for p in params)
    return np_, ny


def _lit(v: float | int) -> str:
    return repr(v) if v >= 0 else f"({v!r})"


def _array(name: str, values: tuple[float, ...]) -> str:
    return f"fz_new({len(values)}, (const double[]){{{', '.join(map(repr, values))}}})"


# --- the AD program ---


def _ret_struct(width: int) -> str:
    return f"fz_ret{width}"


def _request_code(case: Case, ri: int, req: Request, rid: int) -> tuple[str, str, RequestLayout]:
    """(declarations, code, layout) of one request."""
    params, n, fn = case.entry.params, n_of(case), case.entry.name
    poff, yoff = p_offsets(case), y_offsets(case)
    real_ret = case.entry.ret == "real"
    dirs = req.width if req.kind in ("fwd", "fwdvec") else 1
    lines = [f"  if (first <= {rid}) {{ /* case {case.index} request {ri}: {req.kind} */",
             f"    fz_begin({rid});"]
    arrays = [k for k, p in enumerate(params) if p.kind == "array"]
    reals = [k for k, p in enumerate(params) if p.kind == "real"]
    for k in arrays:
        lines.append(f"    double *fz_a{k} = {_array('', case.args[k])};")  # type: ignore[arg-type]
        if req.markers[k] != "const":
            for d in range(dirs):
                seeds = req.array_seeds[d][arrays.index(k)]
                lines.append(f"    double *fz_d{k}_{d} = {_array('', seeds)};")
    args: list[str] = [f"(void *){fn}"]
    if req.kind == "fwdvec":
        args += ["enzyme_width", str(req.width)]
    if req.primal_return:
        args.append("enzyme_primal_return")
    active_reals: list[int] = []
    for k, p in enumerate(params):
        mk = req.markers[k]
        if mk:
            args.append(f"enzyme_{mk}")
        if p.kind == "array":
            args.append(f"fz_a{k}")
            if mk != "const":
                args += [f"fz_d{k}_{d}" for d in range(dirs)]
        elif p.kind == "int":
            args.append(str(case.args[k]))
        else:
            args.append(_lit(case.args[k]))  # type: ignore[arg-type]
            if mk != "const" and req.kind in ("fwd", "fwdvec"):
                args += [_lit(req.scalar_seeds[d][reals.index(k)]) for d in range(dirs)]
            elif mk != "const":
                active_reals.append(k)
    labels: list[Label] = []
    decls: list[str] = []
    name = f"{rid}"

    def put_ret_struct(var: str, count: int, label_of: list[Label]) -> None:
        if count == 1:
            lines.append(f"    fz_put({var});")
        for j in range(count if count > 1 else 0):
            lines.append(f"    fz_put({var}.v{j});")
        labels.extend(label_of)

    def put_primal_arrays() -> None:
        for k in arrays:
            if params[k].role != "in" and req.markers[k] != "dupnoneed":
                lines.append(f"    fz_putv(fz_a{k}, {n});")
                labels.extend(Label("y", yoff[k] + i) for i in range(n))

    def put_shadows(kind: str) -> None:
        for k in arrays:
            if req.markers[k] == "const":
                continue
            for d in range(dirs):
                lines.append(f"    fz_putv(fz_d{k}_{d}, {n});")
                if kind == "p":
                    labels.extend(Label("p", poff[k] + i) for i in range(n))
                else:
                    labels.extend(Label("t", yoff[k] + i, d) for i in range(n))

    deriv_type = ("void" if not active_reals else "double" if len(active_reals) == 1
                  else _ret_struct(len(active_reals)))
    deriv_labels = [Label("p", poff[k]) for k in active_reals]
    call_args = ", ".join(args)
    if req.kind == "rev":
        decls.append(f"{deriv_type} __enzyme_autodiff_{name}(void *, ...);")
        if active_reals:
            lines.append(f"    {deriv_type} fz_r = __enzyme_autodiff_{name}({call_args});")
            put_ret_struct("fz_r", len(active_reals), deriv_labels)
        else:
            lines.append(f"    __enzyme_autodiff_{name}({call_args});")
        put_shadows("p")
        put_primal_arrays()
    elif req.kind == "split":
        aug_type = "fz_aug" if real_ret else "void *"
        decls.append(f"{aug_type} __enzyme_augmentfwd_{name}(void *, ...);")
        decls.append(f"{deriv_type} __enzyme_reverse_{name}(void *, ...);")
        lines.append(f"    {aug_type} fz_t = __enzyme_augmentfwd_{name}({call_args});")
        if real_ret:
            lines.append("    fz_put(fz_t.result);")
            labels.append(Label("y", 0))
        put_primal_arrays()
        for k in arrays:  # the caller may overwrite the inputs before the reverse pass
            lines.append(f"    for (int i = 0; i < {n}; i++) fz_a{k}[i] = 0.375 - 0.125 * i;")
        tape = "fz_t.tape" if real_ret else "fz_t"
        rev_args = call_args + (f", {_lit(req.d_result)}" if real_ret else "")
        rev_args += f", {tape}"  # the tape value, trailing (enzyme_tape takes a pointer to it)
        if active_reals:
            lines.append(f"    {deriv_type} fz_r = __enzyme_reverse_{name}({rev_args});")
            put_ret_struct("fz_r", len(active_reals), deriv_labels)
        else:
            lines.append(f"    __enzyme_reverse_{name}({rev_args});")
        put_shadows("p")
    else:
        if not real_ret:
            ret_type = "void"
        elif req.primal_return:
            ret_type = "fz_dual"
        else:
            ret_type = "double" if dirs == 1 else _ret_struct(dirs)
        decls.append(f"{ret_type} __enzyme_fwddiff_{name}(void *, ...);")
        if ret_type == "void":
            lines.append(f"    __enzyme_fwddiff_{name}({call_args});")
        else:
            lines.append(f"    {ret_type} fz_r = __enzyme_fwddiff_{name}({call_args});")
        if ret_type == "fz_dual":
            lines += ["    fz_put(fz_r.primal);", "    fz_put(fz_r.tangent);"]
            labels += [Label("y", 0), Label("t", 0, 0)]
        elif ret_type != "void":
            put_ret_struct("fz_r", dirs, [Label("t", 0, d) for d in range(dirs)])
        put_shadows("t")
        put_primal_arrays()
    for k in arrays:
        lines.append(f"    free(fz_a{k});")
        if req.markers[k] != "const":
            lines += [f"    free(fz_d{k}_{d});" for d in range(dirs)]
    lines += [f"    fz_end({rid});", "  }"]
    return "\n".join(decls), "\n".join(lines), RequestLayout(rid, case.index, ri, tuple(labels))


def _primal_code(case: Case, rid: int) -> tuple[str, RequestLayout]:
    params, n = case.entry.params, n_of(case)
    yoff = y_offsets(case)
    lines = [f"  if (first <= {rid}) {{ /* case {case.index}: primal */", f"    fz_begin({rid});"]
    args, labels = [], []
    for k, p in enumerate(params):
        if p.kind == "array":
            lines.append(f"    double *fz_a{k} = {_array('', case.args[k])};")  # type: ignore[arg-type]
            args.append(f"fz_a{k}")
        else:
            args.append(_lit(case.args[k]))  # type: ignore[arg-type]
    call = f"{case.entry.name}({', '.join(args)})"
    if case.entry.ret == "real":
        lines.append(f"    fz_put({call});")
        labels.append(Label("y", 0))
    else:
        lines.append(f"    {call};")
    for k, p in enumerate(params):
        if p.kind == "array":
            lines += [f"    fz_putv(fz_a{k}, {n});", f"    free(fz_a{k});"]
            labels.extend(Label("y", yoff[k] + i) for i in range(n))
    lines += [f"    fz_end({rid});", "  }"]
    return "\n".join(lines), RequestLayout(rid, case.index, -1, tuple(labels))


AD_PRELUDE = """\
extern int enzyme_dup, enzyme_dupnoneed, enzyme_out, enzyme_const, enzyme_width;
extern int enzyme_primal_return, enzyme_tape;
typedef struct { void *tape; double result; } fz_aug;
typedef struct { double primal, tangent; } fz_dual;
typedef struct { double v0, v1; } fz_ret2;
typedef struct { double v0, v1, v2; } fz_ret3;
typedef struct { double v0, v1, v2, v3; } fz_ret4;
typedef struct { double v0, v1, v2, v3, v4; } fz_ret5;
typedef struct { double v0, v1, v2, v3, v4, v5; } fz_ret6;
static double *fz_new(int n, const double *init) {
  double *p = (double *)malloc((size_t)n * sizeof(double));
  memcpy(p, init, (size_t)n * sizeof(double));
  return p;
}
static void fz_begin(int rid) { printf("B %d\\n", rid); fflush(stdout); }
static void fz_put(double v) { printf(" %a", v); }
static void fz_putv(const double *v, int n) { for (int i = 0; i < n; i++) fz_put(v[i]); }
static void fz_end(int rid) { printf("\\nE %d\\n", rid); fflush(stdout); }
"""


def ad_program(program: Program, select: dict[int, set[int]] | None = None
               ) -> tuple[str, list[RequestLayout]]:
    """The AD program; ``select``: case -> request indices to keep (None: all; the primal
    call of a selected case is always kept)."""
    decls, bodies, layouts = [], [], []
    rid = 0
    for case in program.cases:
        if select is not None and case.index not in select:
            continue
        code, layout = _primal_code(case, rid)
        bodies.append(code)
        layouts.append(layout)
        rid += 1
        for ri, req in enumerate(case.requests):
            if select is not None and ri not in select[case.index]:
                continue
            decl, code, layout = _request_code(case, ri, req, rid)
            decls.append(decl)
            bodies.append(code)
            layouts.append(layout)
            rid += 1
    cases = [render_case(c, AD) for c in program.cases
             if select is None or c.index in select]
    main = ["int main(int argc, char **argv) {",
            "  int first = argc > 1 ? atoi(argv[1]) : 0;", *bodies, "  return 0;", "}"]
    text = "\n".join([f"/* irgrad fuzz program, seed {program.seed} */", HEADERS, AD_PRELUDE,
                      *cases, *decls, "", *main, ""])
    return text, layouts
