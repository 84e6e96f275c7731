"""The finite-difference program of a :class:`Program` (see :mod:`drivers`).

Output lines (values as ``%La``):

* ``Y case v...``: the outputs ``y`` at the base point;
* ``C case j s D...``: column ``j`` of the Jacobian (input coordinate ``j``): ``s`` is the
  step scale used (``-1``: every step crossed a kink; no values follow), then
  ``3 * ny`` values, the central differences at ``h, h/2, h/4`` (``h = 1e-3 * scale``);
* ``D case d s D...``: the same along forward direction ``d`` (:func:`directions`).

With ``argv[1] == "primal"`` only the ``Y`` lines are printed.
"""

from __future__ import annotations

from .drivers import FD_SCALES, FD_STEP, n_of, p_offsets, sizes, y_offsets
from .model import Case, Program
from .render_c import FD, FD_PRELUDE, HEADERS, render_case


def directions(case: Case) -> list[tuple[int, int, tuple[float, ...]]]:
    """(request index, direction, tangent over ``p``) of every forward request."""
    out = []
    np_, _ = sizes(case)
    poff = p_offsets(case)
    params = case.entry.params
    arrays = [k for k, p in enumerate(params) if p.kind == "array"]
    reals = [k for k, p in enumerate(params) if p.kind == "real"]
    for ri, req in enumerate(case.requests):
        if req.kind not in ("fwd", "fwdvec"):
            continue
        for d in range(req.width):
            t = [0.0] * np_
            for k in arrays:
                if req.markers[k] != "const":
                    for i, v in enumerate(req.array_seeds[d][arrays.index(k)]):
                        t[poff[k] + i] = v
            for k in reals:
                if req.markers[k] != "const":
                    t[poff[k]] = req.scalar_seeds[d][reals.index(k)]
            out.append((ri, d, tuple(t)))
    return out


def _eval_function(case: Case) -> str:
    params, n = case.entry.params, n_of(case)
    poff, yoff = p_offsets(case), y_offsets(case)
    lines = [f"static void fz_eval{case.index}(const fz_real *fz_in, fz_real *fz_out) {{"]
    args = []
    for k, p in enumerate(params):
        if p.kind == "array":
            lines.append(f"  fz_real *fz_a{k} = (fz_real *)malloc({n} * sizeof(fz_real));")
            lines.append(f"  for (int i = 0; i < {n}; i++) fz_a{k}[i] = fz_in[{poff[k]} + i];")
            args.append(f"fz_a{k}")
        elif p.kind == "real":
            args.append(f"fz_in[{poff[k]}]")
        else:
            args.append(str(case.args[k]))
    lines.append("  fz_path = 0;")
    call = f"{case.entry.name}({', '.join(args)})"
    lines.append(f"  fz_out[0] = {call};" if case.entry.ret == "real" else f"  {call};")
    for k, p in enumerate(params):
        if p.kind == "array":
            lines.append(f"  for (int i = 0; i < {n}; i++) fz_out[{yoff[k]} + i] = fz_a{k}[i];")
            lines.append(f"  free(fz_a{k});")
    lines.append("}")
    return "\n".join(lines)


FD_MAIN_HELPERS = f"""\
typedef void (*fz_fn)(const fz_real *, fz_real *);
static void fz_print(const fz_real *v, int n) {{
  for (int i = 0; i < n; i++) printf(" %La", (long double)v[i]);
}}
static void fz_fd(char tag, int c, int idx, fz_fn f, int np, int ny, const fz_real *p0,
                  const fz_real *dir) {{
  static const double scales[{len(FD_SCALES)}] = {{{", ".join(map(repr, FD_SCALES))}}};
  fz_real *pp = (fz_real *)malloc((size_t)np * sizeof(fz_real));
  fz_real *yp = (fz_real *)malloc((size_t)ny * sizeof(fz_real));
  fz_real *ym = (fz_real *)malloc((size_t)ny * sizeof(fz_real));
  fz_real *d = (fz_real *)malloc((size_t)(3 * ny) * sizeof(fz_real));
  f(p0, yp);
  unsigned long long base = fz_path;
  int found = -1;
  for (int s = 0; s < {len(FD_SCALES)} && found < 0; s++) {{
    int same = 1;
    for (int k = 0; k < 3 && same; k++) {{
      fz_real h = (fz_real){FD_STEP!r} * scales[s] / (fz_real)(1 << k);
      for (int i = 0; i < np; i++) pp[i] = p0[i] + h * dir[i];
      f(pp, yp);
      same = same && fz_path == base;
      for (int i = 0; i < np; i++) pp[i] = p0[i] - h * dir[i];
      f(pp, ym);
      same = same && fz_path == base;
      for (int i = 0; i < ny; i++) d[k * ny + i] = (yp[i] - ym[i]) / (2 * h);
    }}
    if (same) found = s;
  }}
  printf("%c %d %d %d", tag, c, idx, found);
  if (found >= 0) fz_print(d, 3 * ny);
  printf("\\n");
  free(pp); free(yp); free(ym); free(d);
}}
"""


def _case_main(case: Case) -> list[str]:
    np_, ny = sizes(case)
    params, poff = case.entry.params, p_offsets(case)
    base = [0.0] * np_
    for k, p in enumerate(params):
        if p.kind == "array":
            for i, v in enumerate(case.args[k]):  # type: ignore[arg-type]
                base[poff[k] + i] = v
        elif p.kind == "real":
            base[poff[k]] = case.args[k]  # type: ignore[assignment]
    c = case.index
    lines = ["  {",
             f"    static const fz_real p0[{np_}] = {{{', '.join(map(repr, base))}}};",
             f"    fz_real y0[{ny}], e[{np_}];",
             f"    fz_eval{c}(p0, y0);",
             f'    printf("Y {c}"); fz_print(y0, {ny}); printf("\\n");',
             "    if (!primal_only) {",
             f"      for (int j = 0; j < {np_}; j++) {{",
             f"        for (int i = 0; i < {np_}; i++) e[i] = i == j;",
             f"        fz_fd('C', {c}, j, fz_eval{c}, {np_}, {ny}, p0, e);",
             "      }"]
    for idx, (_, _, t) in enumerate(directions(case)):
        lines += ["      {",
                  f"        static const fz_real t[{np_}] = {{{', '.join(map(repr, t))}}};",
                  f"        fz_fd('D', {c}, {idx}, fz_eval{c}, {np_}, {ny}, p0, t);",
                  "      }"]
    lines += ["    }", "  }"]
    return lines


def fd_program(program: Program, cases: set[int] | None = None) -> str:
    """The finite-difference program (compile with and without ``-DFZ_LONG``)."""
    chosen = [c for c in program.cases if cases is None or c.index in cases]
    body = [f"/* irgrad fuzz FD program, seed {program.seed} */", HEADERS, FD_PRELUDE]
    for case in chosen:
        body += [render_case(case, FD), _eval_function(case), ""]
    body.append(FD_MAIN_HELPERS)
    body += ["int main(int argc, char **argv) {",
             "  int primal_only = argc > 1 && strcmp(argv[1], \"primal\") == 0;"]
    for case in chosen:
        body += _case_main(case)
    body += ["  return 0;", "}", ""]
    return "\n".join(body)
