"""Reference values from finite differences, and the class of each request's run.

For every printed value (:class:`drivers.Label`) a reference comes from the FD program:

* ``y`` (a primal output): clang-22's ``double`` primal;
* ``p`` (reverse: input adjoint ``(J^T c)_j``): ``sum_i c_i J_ij`` with column ``j`` of J;
* ``t`` (forward: ``(J t)_i``): the central difference along ``t``, or, when that step
  crossed a kink, the columns.

Each FD derivative is Richardson-extrapolated from the steps ``h/2`` and ``h/4`` (on a
``long double`` primal); the difference to the extrapolation from ``h`` and ``h/2``
estimates its error. A value *passes* when ``|v - ref| <= RTOL |ref| + ATOL scale +
SAFETY err``. Otherwise, when the error estimate or the primal's sensitivity to rounding
(``double`` vs ``long double`` primal) could explain it, the run is ``fd-noise``; when the
AD value is NaN or infinite and the reference is finite, ``nan``; else ``wrong``. A run
with nothing verifiable (every column crossed a kink) is ``fd-noise`` too, unless
:func:`cross_check` settles it with the dot-product test against a forward or reverse run
of the same case (``<c, J t> = <t, J^T c>``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .drivers import Label, RequestLayout, n_of, p_offsets, sizes, y_offsets
from .fd_driver import directions
from .harness import FDResult
from .model import Case

RTOL = 1e-7
ATOL = 1e-9
PRIMAL_RTOL = 1e-9
SAFETY = 10.0
ILL_CONDITIONED = 1e-11  # relative double vs long double primal gap that makes FD unsure
CLASSES = ("pass", "fd-noise", "wrong", "nan", "crash", "diagnostic", "diagnostic-unlocated")
FAILING = ("wrong", "nan", "crash", "diagnostic-unlocated")


@dataclass(frozen=True)
class Verdict:
    cls: str
    detail: str = ""


@dataclass(frozen=True)
class Ref:
    value: float | None  # None: not verifiable (a kink within every step)
    err: float = 0.0


def _richardson(vals: list[float], ny: int) -> tuple[list[float], list[float]]:
    """Per output: the extrapolated derivative and its error estimate."""
    d0, d1, d2 = vals[:ny], vals[ny:2 * ny], vals[2 * ny:3 * ny]
    best, err = [], []
    for a, b, c in zip(d0, d1, d2, strict=True):
        r1 = (4.0 * b - a) / 3.0
        r2 = (4.0 * c - b) / 3.0
        best.append(r2)
        err.append(abs(r2 - r1))
    return best, err


class References:
    """The FD-derived reference values of one case."""

    def __init__(self, case: Case, fd: FDResult) -> None:
        self.case = case
        self.fd = fd
        self.np, self.ny = sizes(case)
        self.cols: dict[int, tuple[list[float], list[float]] | None] = {}
        for j in range(self.np):
            step, vals = fd.columns.get(j, (-1, []))
            self.cols[j] = _richardson(vals, self.ny) if step >= 0 else None
        self.dirs: dict[tuple[int, int], tuple[list[float], list[float]] | None] = {}
        self.dir_t: dict[tuple[int, int], tuple[float, ...]] = {}
        for idx, (ri, d, t) in enumerate(directions(case)):
            step, vals = fd.directions.get(idx, (-1, []))
            self.dirs[(ri, d)] = _richardson(vals, self.ny) if step >= 0 else None
            self.dir_t[(ri, d)] = t
        gaps = [abs(a - b) / (1.0 + abs(b)) for a, b in zip(fd.y_double, fd.y_long, strict=True)]
        self.conditioning = max(gaps, default=0.0)

    def cotangent(self, ri: int) -> list[float]:
        """``c`` over ``y`` of reverse request ``ri``."""
        case, req = self.case, self.case.requests[ri]
        c = [0.0] * self.ny
        if case.entry.ret == "real":
            c[0] = 1.0 if req.kind == "rev" else req.d_result
        arrays = [k for k, p in enumerate(case.entry.params) if p.kind == "array"]
        yoff = y_offsets(case)
        for a, k in enumerate(arrays):
            if req.markers[k] != "const":
                for i, v in enumerate(req.array_seeds[0][a]):
                    c[yoff[k] + i] = v
        return c

    def reference(self, ri: int, label: Label) -> Ref:
        if label.kind == "y":
            return Ref(self.fd.y_double[label.index])
        if label.kind == "p":
            col = self.cols[label.index]
            if col is None:
                return Ref(None)
            c = self.cotangent(ri)
            value = math.fsum(ci * v for ci, v in zip(c, col[0], strict=True))
            err = math.fsum(abs(ci) * e for ci, e in zip(c, col[1], strict=True))
            return Ref(value, err)
        d = self.dirs[(ri, label.direction)]
        if d is not None:
            return Ref(d[0][label.index], d[1][label.index])
        t = self.dir_t[(ri, label.direction)]
        terms, errs = [], []
        for j, tj in enumerate(t):
            if tj == 0.0:
                continue
            col = self.cols[j]
            if col is None:
                return Ref(None)
            terms.append(tj * col[0][label.index])
            errs.append(abs(tj) * col[1][label.index])
        return Ref(math.fsum(terms), math.fsum(errs))


def classify_request(refs: References, layout: RequestLayout, values: list[float]) -> Verdict:
    """The class of one request's printed values."""
    if len(values) != len(layout.labels):
        return Verdict("crash", f"printed {len(values)} values, expected {len(layout.labels)}")
    pairs = [(lab, v, refs.reference(layout.request, lab))
             for lab, v in zip(layout.labels, values, strict=True)]
    derivs = [abs(r.value) for lab, _, r in pairs if lab.kind != "y" and r.value is not None]
    scale = max([1.0, *derivs])
    nans, wrong, noisy = [], [], []
    for lab, v, r in pairs:
        if r.value is None:
            continue
        if not math.isfinite(r.value):
            return Verdict("invalid", f"non-finite reference for {lab}")
        if lab.kind == "y":
            tol = PRIMAL_RTOL * (1.0 + abs(r.value))
        else:
            tol = RTOL * abs(r.value) + ATOL * scale + SAFETY * r.err
        if not math.isfinite(v):
            nans.append(f"{_name(refs, lab)}={v} (expected {r.value:.6g})")
            continue
        gap = abs(v - r.value)
        if gap <= tol:
            continue
        text = f"{_name(refs, lab)}={v:.10g} expected {r.value:.10g} (fd err {r.err:.2g})"
        if lab.kind != "y" and refs.conditioning > ILL_CONDITIONED:
            noisy.append(text)
        else:
            wrong.append(text)
    if wrong:
        return Verdict("wrong", "; ".join(wrong[:4]) + (f" (+{len(wrong) - 4})" if len(wrong) > 4
                                                       else ""))
    if nans:
        return Verdict("nan", "; ".join(nans[:4]))
    if noisy:
        return Verdict("fd-noise", "ill-conditioned: " + "; ".join(noisy[:2]))
    derivatives = [lab for lab, _, _ in pairs if lab.kind != "y"]
    if derivatives and not any(r.value is not None for lab, _, r in pairs if lab.kind != "y"):
        return Verdict("fd-noise", "every finite difference crossed a kink")
    return Verdict("pass")


def _name(refs: References, lab: Label) -> str:
    """A readable name of a printed value: ``dx[2]``, ``tangent(y[0])@1``, ``x[1]`` ..."""
    case = refs.case
    params = case.entry.params
    n = n_of(case)
    if lab.kind == "p":
        for k, off in p_offsets(case).items():
            p = params[k]
            if p.kind == "real" and off == lab.index:
                return f"d{p.name}"
            if p.kind == "array" and off <= lab.index < off + n:
                return f"d{p.name}[{lab.index - off}]"
    names = ["return"] if case.entry.ret == "real" else []
    for p in params:
        if p.kind == "array":
            names += [f"{p.name}[{i}]" for i in range(n)]
    name = names[lab.index] if lab.index < len(names) else f"y{lab.index}"
    if lab.kind == "t":
        return f"tangent({name})" + (f"@{lab.direction}" if lab.direction else "")
    return name


def _dot_pair(refs: References, fwd: tuple[RequestLayout, list[float]], d: int,
              rev: tuple[RequestLayout, list[float]]) -> tuple[float, float, float] | None:
    """``(<c, J t>, <t, J^T c>, scale)`` from a forward direction and a reverse request of
    the same case, or None when their supports do not fit the identity."""
    (flay, fvals), (rlay, rvals) = fwd, rev
    jt = {lab.index: v for lab, v in zip(flay.labels, fvals, strict=True)
          if lab.kind == "t" and lab.direction == d}
    jtc = {lab.index: v for lab, v in zip(rlay.labels, rvals, strict=True) if lab.kind == "p"}
    t = refs.dir_t[(flay.request, d)]
    c = refs.cotangent(rlay.request)
    if any(tj != 0.0 and j not in jtc for j, tj in enumerate(t)):
        return None
    if any(ci != 0.0 and i not in jt for i, ci in enumerate(c)):
        return None
    left = [ci * jt[i] for i, ci in enumerate(c) if ci != 0.0]
    right = [tj * jtc[j] for j, tj in enumerate(t) if tj != 0.0]
    scale = math.fsum(map(abs, left)) + math.fsum(map(abs, right))
    return math.fsum(left), math.fsum(right), scale


def cross_check(refs: References, runs: list[tuple[RequestLayout, list[float], Verdict]]
                ) -> list[Verdict]:
    """Settle runs that finite differences could not verify (``fd-noise``) with the dot
    product test between forward and reverse runs of the same case at the same level:
    ``<c, J t> = <t, J^T c>``. A disagreement makes the unverified run(s) ``wrong``; an
    agreement with a verified run makes it ``pass``."""
    verdicts = [v for _, _, v in runs]
    kinds = {"fwd", "fwdvec"}
    for fi, (flay, fvals, _) in enumerate(runs):
        if flay.request < 0 or refs.case.requests[flay.request].kind not in kinds:
            continue
        for ri, (rlay, rvals, _) in enumerate(runs):
            if rlay.request < 0 or refs.case.requests[rlay.request].kind in kinds:
                continue
            pair = (verdicts[fi].cls, verdicts[ri].cls)
            if "fd-noise" not in pair or not set(pair) <= {"pass", "fd-noise"}:
                continue
            for d in range(refs.case.requests[flay.request].width):
                dot = _dot_pair(refs, (flay, fvals), d, (rlay, rvals))
                if dot is None or not all(map(math.isfinite, dot)):
                    continue
                left, right, scale = dot
                if abs(left - right) > 1e-8 * scale + 1e-12:
                    detail = (f"forward and reverse disagree: <c, J t> = {left:.10g}, "
                              f"<t, J^T c> = {right:.10g} (requests {flay.request}, "
                              f"{rlay.request}; finite differences crossed a kink)")
                    for k in (fi, ri):
                        if verdicts[k].cls == "fd-noise":
                            verdicts[k] = Verdict("wrong", detail)
                    break
                for k, other in ((fi, ri), (ri, fi)):
                    if verdicts[k].cls == "fd-noise" and verdicts[other].cls == "pass":
                        verdicts[k] = Verdict("pass", "agrees with a verified run (dot test)")
    return verdicts
