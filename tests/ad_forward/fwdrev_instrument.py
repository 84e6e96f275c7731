"""Instrument a program that calls ``__enzyme_autodiff``/``__enzyme_fwddiff`` so that every
such call site also checks forward mode against reverse mode on the SAME function.

Before each call site a call to a generated ``__fwdrev_check_K`` is inserted. It receives
the call's primal values and shadows (never the markers) and, with the help of the C
runtime ``fwdrev_runtime.c``:

1. registers the caller's static allocas and the module's defined globals as memory
   regions (size and a layout of float / pointer slots computed from their IR types);
2. finds the shadow regions (reachable from the shadow arguments, through pointer slots)
   and saves every writable region;
3. forward: fills the shadow float slots with a random ``t``, draws random tangents for
   the active scalars, calls ``__enzyme_fwddiff`` and accumulates ``<J t, c>`` (shadow
   slots after the call times ``c``, plus the return tangent times 1);
4. restores memory, fills the shadow slots with the random cotangent ``c``, calls
   ``__enzyme_autodiff`` (a floating-point return seeded with 1) and accumulates
   ``<t, J^T c>`` (shadow slots after the call times ``t``, plus the scalar adjoints
   times their tangents);
5. compares the two, prints ``FWDREV-OK <K>`` or ``FWDREV-MISMATCH <K> ...``, restores
   all memory, so that the program's own call then runs exactly as before.

The function's state is the memory the shadows reach; memory the function does not touch
has an identity Jacobian and adds ``<t, c>`` to both sides, so a superset is harmless.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from irgrad import ir
from irgrad.ad.api import entry_mode, parse_call
from irgrad.ad.core.config import DerivativeMode, DiffeType
from irgrad.analysis.layout import alloc_size, struct_offsets

MARKERS = ("enzyme_dup", "enzyme_dupnoneed", "enzyme_out", "enzyme_const")
KIND = {"double": 0, "float": 1, "x86_fp80": 2}
PTR_KIND = 3
MAX_SLOTS = 1 << 16
RUNTIME_DECLS = {
    "fwdrev_region": "declare void @fwdrev_region(ptr, i64, ptr, i32, i32)",
    "fwdrev_root": "declare void @fwdrev_root(ptr)",
    "fwdrev_begin": "declare void @fwdrev_begin(i32, i32)",
    "fwdrev_fill": "declare void @fwdrev_fill(i32)",
    "fwdrev_scalar_t": "declare double @fwdrev_scalar_t(i32)",
    "fwdrev_return_tangent": "declare void @fwdrev_return_tangent(double)",
    "fwdrev_after_forward": "declare void @fwdrev_after_forward()",
    "fwdrev_scalar_adjoint": "declare void @fwdrev_scalar_adjoint(i32, double)",
    "fwdrev_end": "declare void @fwdrev_end()",
}


class NotCheckable(Exception):
    """A call site whose function cannot be checked this way (the reason says why)."""


def slots(t: ir.Type, base: int = 0, out: list[int] | None = None) -> list[int]:
    """``offset * 4 + kind`` for every float and pointer slot of a value of type ``t``."""
    out = [] if out is None else out
    if len(out) > MAX_SLOTS:
        return out
    if isinstance(t, ir.FloatType) and t.kind in KIND:
        out.append(base * 4 + KIND[t.kind])
    elif t.is_pointer:
        out.append(base * 4 + PTR_KIND)
    elif isinstance(t, ir.ArrayType | ir.VectorType):
        step = alloc_size(t.element)
        for i in range(t.count):
            slots(t.element, base + i * step, out)
    elif isinstance(t, ir.StructType | ir.IdentifiedStructType) and not getattr(
        t, "opaque", False
    ):
        for offset, element in zip(struct_offsets(t), t.elements, strict=True):
            slots(element, base + offset, out)
    return out


@dataclass
class Site:
    """One instrumented call site."""

    index: int
    function: str
    mode: DerivativeMode
    params: list[tuple[str, str]] = field(default_factory=list)  # (type, name)
    body: list[str] = field(default_factory=list)
    fwd_ret: str = "void"
    rev_ret: str = "void"


def _fp_leaves(t: ir.Type) -> tuple[str, int]:
    """(element type, lane count) of a floating-point scalar or vector."""
    if isinstance(t, ir.VectorType):
        return str(t.element), t.count
    return str(t), 1


class Instrumenter:
    def __init__(self, text: str) -> None:
        self.module = ir.parse_module(text, lazy=False)
        self.layouts: dict[str, str] = {}  # layout text -> global name
        self.sites: list[Site] = []
        self.tmp = 0

    def layout_name(self, t: ir.Type) -> tuple[str, int]:
        """The name of the constant table of ``t``'s slots ("null" when it has none) and
        the number of slots."""
        entries = slots(t)
        if not entries:
            return "null", 0
        body = ", ".join(f"i32 {e}" for e in entries)
        key = f"[{len(entries)} x i32] [{body}]"
        if key not in self.layouts:
            self.layouts[key] = f"@__fwdrev_layout_{len(self.layouts)}"
        return self.layouts[key], len(entries)

    def layout_global(self, t: ir.Type) -> tuple[ir.Value, int]:
        """The slot table of ``t`` as an operand (declared now, defined in finish())."""
        name, nslots = self.layout_name(t)
        if name == "null":
            return ir.ConstantPointerNull(ir.ptr), 0
        g = self.module.get_global(name[1:])
        if g is None:
            g = ir.GlobalVariable(name[1:], ir.ArrayType(nslots, ir.i32), None, True,
                                  "external")
            self.module.add_global(g)
        return g, nslots

    def fresh(self) -> str:
        self.tmp += 1
        return f"%v{self.tmp}"

    # --- the wrapper ---

    def make_tangent(self, site: Site, t: ir.Type, j: int) -> tuple[str, int]:
        """Emit a random tangent of type ``t`` (scalar j.. onwards); returns (value, next j)."""
        element, lanes = _fp_leaves(t)
        value = "poison"
        for lane in range(lanes):
            d = self.fresh()
            site.body.append(f"{d} = call double @fwdrev_scalar_t(i32 {j})")
            j += 1
            e = d
            if element != "double":
                e = self.fresh()
                op = "fpext" if element == "x86_fp80" else "fptrunc"
                site.body.append(f"{e} = {op} double {d} to {element}")
            if lanes == 1:
                return e, j
            v = self.fresh()
            site.body.append(f"{v} = insertelement {t} {value}, {element} {e}, i32 {lane}")
            value = v
        return value, j

    def consume(self, site: Site, t: ir.Type, value: str, j: int | None) -> int | None:
        """Emit calls that add ``value`` (type t) to a side: an adjoint of scalar j.. (times
        its tangent) or, when j is None, a return tangent (times 1)."""
        element, lanes = _fp_leaves(t)
        for lane in range(lanes):
            e = value
            if lanes > 1:
                e = self.fresh()
                site.body.append(f"{e} = extractelement {t} {value}, i32 {lane}")
            d = e
            if element != "double":
                d = self.fresh()
                op = "fpext" if element == "float" else "fptrunc"
                site.body.append(f"{d} = {op} {element} {e} to double")
            if j is None:
                site.body.append(f"call void @fwdrev_return_tangent(double {d})")
            else:
                site.body.append(f"call void @fwdrev_scalar_adjoint(i32 {j}, double {d})")
                j += 1
        return j

    def instrument(self, call: ir.CallBase, mode: DerivativeMode) -> Site:
        parsed = parse_call(call, mode, self.module)
        fn = parsed.function
        site = Site(len(self.sites), fn.name, mode)
        caller = call.function
        assert caller is not None
        scalars: list[tuple[ir.Type, str]] = []  # active scalars: (type, parameter)
        call_args: list[ir.Value] = []
        single = False
        for k, (activity, primal) in enumerate(zip(parsed.activities, parsed.primals,
                                                   strict=True)):
            ty = primal.type
            p = f"%p{k}"
            site.params.append((str(ty), p))
            call_args.append(primal)
            if activity in (DiffeType.DUP, DiffeType.DUP_NONEED) and ty.is_pointer:
                s = f"%s{k}"
                site.params.append((str(ty), s))
                call_args.append(parsed.shadows[k][0])
                site.body.append(f"call void @fwdrev_root(ptr {s})")
            elif activity.is_active and ty.is_fp_or_fp_vector:
                single |= _fp_leaves(ty)[0] == "float"
                scalars.append((ty, p))
        ret = fn.return_type
        fwd_ret = str(ret) if ret.is_fp_or_fp_vector else "void"
        single |= fwd_ret.startswith("float") or "x float" in fwd_ret
        site.body.append(f"call void @fwdrev_begin(i32 {site.index}, i32 {int(single)})")
        site.body.append("call void @fwdrev_fill(i32 0)")
        # tangents of active scalars, in argument order
        j = 0
        tangents: dict[str, str] = {}
        for ty, p in scalars:
            tangents[p], j = self.make_tangent(site, ty, j)
        fwd_args, rev_args = [], []
        for k, (activity, primal) in enumerate(zip(parsed.activities, parsed.primals,
                                                   strict=True)):
            ty = primal.type
            p = f"%p{k}"
            if activity in (DiffeType.DUP, DiffeType.DUP_NONEED) and ty.is_pointer:
                marker = "enzyme_dup" if activity is DiffeType.DUP else "enzyme_dupnoneed"
                text = f"i32 %m_{marker}, ptr {p}, ptr %s{k}"
                fwd_args.append(text)
                rev_args.append(text)
            elif p in tangents:
                fwd_args.append(f"i32 %m_enzyme_dup, {ty} {p}, {ty} {tangents[p]}")
                rev_args.append(f"i32 %m_enzyme_out, {ty} {p}")
            else:
                fwd_args.append(f"i32 %m_enzyme_const, {ty} {p}")
                rev_args.append(f"i32 %m_enzyme_const, {ty} {p}")
        site.fwd_ret = fwd_ret
        fname = f"@{_quote(fn.name)}"
        head = ", ".join([f"ptr {fname}", *fwd_args])
        if fwd_ret == "void":
            site.body.append(f"call void (ptr, ...) @__enzyme_fwddiff_fwdrev{site.index}({head})")
        else:
            r = self.fresh()
            site.body.append(f"{r} = call {fwd_ret} (ptr, ...) @__enzyme_fwddiff_fwdrev{site.index}({head})")
            self.consume(site, ret, r, None)
        site.body.append("call void @fwdrev_after_forward()")
        site.body.append("call void @fwdrev_fill(i32 1)")
        head = ", ".join([f"ptr {fname}", *rev_args])
        types = [str(ty) for ty, _ in scalars]
        if not types:
            site.body.append(f"call void (ptr, ...) @__enzyme_autodiff_fwdrev{site.index}({head})")
        else:
            rty = types[0] if len(types) == 1 else "{ " + ", ".join(types) + " }"
            site.rev_ret = rty
            g = self.fresh()
            site.body.append(f"{g} = call {rty} (ptr, ...) @__enzyme_autodiff_fwdrev{site.index}({head})")
            j2: int | None = 0
            for n, (ty, _) in enumerate(scalars):
                v = g
                if len(types) > 1:
                    v = self.fresh()
                    site.body.append(f"{v} = extractvalue {rty} {g}, {n}")
                j2 = self.consume(site, ty, v, j2)
        site.body.append("call void @fwdrev_end()")
        site.body.append("ret void")
        # the call site: register the caller's allocas, then check
        b = ir.IRBuilder()
        b.position_before(call)
        region = self.module.get_or_insert_function(
            "fwdrev_region",
            ir.FunctionType(ir.void, [ir.ptr, ir.i64, ir.ptr, ir.i32, ir.i32]),
        )
        # Every alloca of the caller is registered at the call, live or not: without
        # lifetime markers no two of them share a stack slot (with them, the code
        # generator's stack colouring let a dead array alias a live shadow, so the check
        # looked up the wrong region from -O1 on).
        for inst in list(caller.instructions()):
            callee = inst.called_function if isinstance(inst, ir.CallBase) else None
            if callee is not None and callee.name.startswith("llvm.lifetime."):
                inst.erase_from_parent()
        for inst in list(caller.instructions()):
            if not isinstance(inst, ir.AllocaInst):
                continue
            n = 1
            if inst.count is not None:
                if not isinstance(inst.count, ir.ConstantInt):
                    continue  # a variable-length array: not a known region
                n = inst.count.value
            layout, nslots = self.layout_global(ir.ArrayType(n, inst.allocated_type))
            b.call(region, [inst, ir.ConstantInt(ir.i64, alloc_size(inst.allocated_type) * n),
                            layout, ir.ConstantInt(ir.i32, nslots), ir.ConstantInt(ir.i32, 0)])
        check = self.module.get_or_insert_function(
            f"__fwdrev_check_{site.index}",
            ir.FunctionType(ir.void, [v.type for v in call_args]),
        )
        b.call(check, call_args)
        self.sites.append(site)
        return site

    def run(self) -> str:
        calls = []
        for fn in self.module.functions:
            for inst in fn.instructions():
                if isinstance(inst, ir.CallBase) and inst.called_function is not None:
                    mode = entry_mode(inst.called_function.name)
                    if mode in (DerivativeMode.REVERSE_COMBINED, DerivativeMode.FORWARD):
                        calls.append((inst, mode))
        for call, mode in calls:
            self.instrument(call, mode)
        return self.finish()

    def finish(self) -> str:
        globals_ = [
            g for g in self.module.globals
            if g.initializer is not None and not g.name.startswith("__fwdrev_layout_")
            and g.name not in MARKERS
        ]
        registrations = []
        for g in globals_:
            layout, nslots = self.layout_name(g.value_type)
            registrations.append(
                f"call void @fwdrev_region(ptr @{_quote(g.name)}, i64 "
                f"{alloc_size(g.value_type)}, ptr {layout}, i32 {nslots}, "
                f"i32 {int(g.is_constant)})"
            )
        text = str(self.module)
        # the layout tables were declared while instrumenting: define them instead
        for key, name in self.layouts.items():
            text = re.sub(rf"^{re.escape(name)} = external (global|constant) .*$",
                          f"{name} = private constant {key}", text, flags=re.M)
            if f"{name} = private constant" not in text:
                text += f"\n{name} = private constant {key}\n"
        text = re.sub(r"^declare .*@__fwdrev_check_\d+\(.*$", "", text, flags=re.M)
        out = [text]
        for name, decl in RUNTIME_DECLS.items():
            if not re.search(rf"^declare .*@{name}\(", text, flags=re.M):
                out.append(decl)
        for site in self.sites:
            out.append(f"declare {site.fwd_ret} @__enzyme_fwddiff_fwdrev{site.index}(ptr, ...)")
            out.append(f"declare {site.rev_ret} @__enzyme_autodiff_fwdrev{site.index}(ptr, ...)")
        for m in MARKERS:
            if self.module.get_global(m) is None:
                out.append(f"@{m} = external global i32")
        for site in self.sites:
            params = ", ".join(f"{t} {n}" for t, n in site.params)
            body = [f"%m_{m} = load i32, ptr @{m}" for m in MARKERS]
            body += registrations + site.body
            out.append(f"define internal void @__fwdrev_check_{site.index}({params}) {{\n"
                       "entry:\n  " + "\n  ".join(body) + "\n}")
        return "\n".join(out) + "\n"


def _quote(name: str) -> str:
    return name if re.fullmatch(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*", name) else f'"{name}"'


def instrument(text: str) -> tuple[str, list[Site]]:
    """The instrumented module text and its call sites."""
    inst = Instrumenter(text)
    out = inst.run()
    return out, inst.sites
