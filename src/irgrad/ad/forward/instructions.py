"""The forward pass over a cloned body: one tangent handler per kind of instruction.

``ForwardPass.run`` visits the blocks in reverse post-order, so an instruction's operands
have their tangents before it (phis get placeholder tangent phis, filled at the end).
A tangent is None (symbolic zero), one value (width 1, or an ``<N x T>`` vector for a
floating-point scalar at width N) or a list of N values (width N, other types).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from irgrad import ir
from irgrad.ad.core.config import FnConfig
from irgrad.ad.core.context import DerivativeContext
from irgrad.ad.core.diagnostics import source_location_of, value_text
from irgrad.ad.core.shadow_globals import global_activity_of, shadow_globals_of
from irgrad.ad.forward import memory as mem
from irgrad.ad.forward.atomics import visit_atomic
from irgrad.ad.forward.interleaved_shadows import interleaved_values, interleaving_analysis
from irgrad.ad.forward.tangents import Tangent, tangent_type, zero_tangent
from irgrad.ad.rules import lookup_instruction
from irgrad.ad.rules.emit import (
    const_value,
    constant_operands,
    emit_partials,
    fadd,
    fmul,
    fp_constant,
    fsub,
    may_be_unbounded,
    splat,
    strong_zero,
)
from irgrad.ad.rules.sign_bits import flip_sign, sign_bit_operation
from irgrad.analysis.activity import FORWARD_POLICY, ActivityAnalysis, moves_address
from irgrad.analysis.global_activity import global_base
from irgrad.analysis.underlying_objects import from_inactive_library
from irgrad.errors import DifferentiationError
from irgrad.ir.builder import IRBuilder
from irgrad.ir.cfg import reverse_postorder


class ForwardPass:
    """Emits the tangents of one cloned function body (see the module docstring)."""

    def __init__(
        self,
        ctx: DerivativeContext,
        config: FnConfig,
        fn: ir.Function,
        blocks: Sequence[ir.BasicBlock],
        tangents: dict[ir.Value, Tangent],
        interleaved_args: Sequence[ir.Value] = (),
    ) -> None:
        self.ctx = ctx
        self.config = config
        self.fn = fn
        self.width = config.width
        self.blocks = list(blocks)
        self.tangents: dict[ir.Value, Tangent] = dict(tangents)
        self.b = IRBuilder()
        self.phis: list[tuple[ir.PHINode, Tangent]] = []
        self.entry = fn.blocks[0]
        self.constant_allocas: set[ir.AllocaInst] = set()
        self.interleaved_args = list(interleaved_args)
        # pointers whose shadow is one interleaved buffer (a single value, not N lanes)
        self.interleaved: set[ir.Value] = set()
        # integers holding an address whose tangent is the shadow's address (ptrtoint,
        # then offsets and masks: hand-made aligned allocation)
        self.addresses: set[ir.Value] = set()
        # the function this one is a clone of, and each cloned value's original (the
        # analyses of the original answer questions about the clone)
        self.original: tuple[ir.Function, dict[ir.Value, ir.Value]] | None = None
        self.globals = global_activity_of(ctx)
        # arguments (of the clone) that point into an active global (global_arguments)
        self.global_args: dict[ir.Value, ir.GlobalVariable] = {}

    # -- driver ------------------------------------------------------------------------
    def run(self) -> None:
        if self.width > 1:
            self.interleaved = interleaved_values(
                interleaving_analysis(self.ctx, self.width), self.blocks, self.interleaved_args
            )
        self._seed_phis()
        order = [bb for bb in reverse_postorder(self.fn) if bb in set(self.blocks)]
        for bb in order:
            for inst in list(bb.instructions):
                self.visit(inst)
        self._fill_phis()

    def _seed_phis(self) -> None:
        """Decide which phis carry tangents (a fixpoint over the phi graph) and create
        the placeholder tangent phis."""
        activity = ActivityAnalysis(self.fn, self.tangents, policy=FORWARD_POLICY,
                                    blocks=self.blocks, globals_=self.globals)
        # locals that only ever receive constant values (unoptimized IR's %w.addr of an
        # enzyme_const pointer): their loads carry no tangent (visit_load), although the
        # store put the primal pointer into the shadow slot
        # (and objects only inactive library code touches: a std::ostringstream)
        self.constant_allocas = {
            i for bb in self.blocks for i in bb.instructions
            if isinstance(i, ir.AllocaInst) and (not activity.alloca_holds_active(i)
                                                 or not activity.is_active(i))}
        for bb in self.blocks:
            for phi in bb.phis():
                if activity.is_active(phi):
                    self.b.position_at_start(bb)
                    self.b.position_before(bb.instructions[0])
                    t = self._make_phi(phi)
                    self.tangents[phi] = t
                    self.phis.append((phi, t))

    def _make_phi(self, phi: ir.PHINode) -> Tangent:
        ty = phi.type
        name = f"'{phi.name}" if phi.name else None
        if self.width == 1 or ty.is_float:
            return self._insert_phi(tangent_type(ty, self.width), name)
        return [self._insert_phi(ty, name) for _ in range(self.width)]

    def _insert_phi(self, ty: ir.Type, name: str | None) -> ir.PHINode:
        phi = ir.PHINode(ty)
        self.b.insert(phi, name)
        return phi

    def _fill_phis(self) -> None:
        for phi, t in self.phis:
            for value, block in phi.incoming:
                inc = self.tangent_or_zero(value, phi.type, block)
                if isinstance(t, list):
                    for lane, v in zip(t, inc, strict=True):  # type: ignore[arg-type]
                        lane.add_incoming(v, block)  # type: ignore[attr-defined]
                else:
                    t.add_incoming(inc, block)  # type: ignore[union-attr, arg-type]

    def points_to_integers(self, v: ir.Value) -> bool:
        """Type analysis of the original function has seen what ``v`` points to, and it
        holds integers only (a string's characters): memory no derivative reaches."""
        if self.original is None:
            return False
        fn, origin = self.original
        o = origin.get(v)
        return o is not None and self.ctx.types(fn).points_to_integers(o)

    def is_own_shadow(self, v: ir.Value) -> bool:
        """Pointer ``v`` leads to memory no derivative reaches, so it is its own shadow (as
        under Enzyme's runtime activity), the same decision as reverse mode's: memory
        inactive library code allocated, a string's characters, or memory reachable only
        from a global kept inactive because no floating-point value can be there (a
        message log's strings, :mod:`irgrad.analysis.type_reach`)."""
        return (from_inactive_library(v) or self.points_to_integers(v)
                or self.points_into_float_free(v))

    def points_into_float_free(self, v: ir.Value) -> bool:
        """Pointer ``v`` (of the clone) leads only to memory reachable from a global kept
        inactive because no floating-point value can be there."""
        o = self.original[1].get(v, v) if self.original is not None else v
        return self.globals.points_into_float_free(o)

    # -- tangent access ------------------------------------------------------------------
    def tangent(self, v: ir.Value) -> Tangent | None:
        t = self.tangents.get(v)
        if t is None and isinstance(v, ir.GlobalVariable | ir.ConstantExpr) \
                and self.globals.is_active(v):
            t = self.tangents[v] = self._global_shadow(v, constant=False)
        return t

    def _global_shadow(self, v: ir.Constant, *, constant: bool) -> Tangent:
        """The shadow of a pointer into a global: the shadow global of an active one (one
        per lane), the zero shadow of a constant one."""
        g = global_base(v)
        assert g is not None
        shadows = shadow_globals_of(self.ctx)
        why = shadows.why_not(g)
        if why is not None:
            raise DifferentiationError(f"active memory in global @{g.name} has no shadow: "
                                       f"{why}")
        if constant:
            zero = shadows.rebuild(v, shadows.constant_shadow(g, reverse=False))
            return zero if self.width == 1 else [zero] * self.width
        lanes = [shadows.rebuild(v, shadows.shadow(g, k)) for k in range(self.width)]
        return lanes[0] if self.width == 1 else lanes

    def tangent_or_zero(
        self, v: ir.Value, ty: ir.Type | None = None, block: ir.BasicBlock | None = None
    ) -> Tangent:
        t = self.tangent(v)
        if t is not None:
            return t
        ty = ty or v.type
        if ty.is_pointer and isinstance(v, ir.Constant) and not v.is_null_value():
            g = global_base(v)
            if g is not None:  # an inactive global: constant data has a zero shadow
                if not g.is_constant:
                    raise DifferentiationError(
                        f"the pointer to global @{g.name} meets active pointers, but "
                        f"@{g.name} has no shadow: irgrad did not expect a derivative in "
                        "it (please report this program)")
                return self._global_shadow(v, constant=True)
            return v if self.width == 1 else [v] * self.width  # functions and the like
        if ty.is_pointer and self.is_own_shadow(v):
            # memory no derivative reaches:
            return v if self.width == 1 else [v] * self.width  # its own shadow
        return zero_tangent(ty, self.width)

    def lanes(self, t: Tangent, ty: ir.Type) -> list[ir.Value]:
        """The N tangents of a value of type ``ty`` as separate values."""
        if isinstance(t, list):
            return t
        if self.width == 1:
            return [t]
        return [self.b.extract_element(t, k) for k in range(self.width)]

    def pack(self, lanes: Sequence[ir.Value], ty: ir.Type) -> Tangent:
        if self.width == 1:
            return lanes[0]
        if ty.is_float:
            vec: ir.Value = ir.PoisonValue(ir.VectorType(self.width, ty))
            for k, v in enumerate(lanes):
                vec = self.b.insert_element(vec, v, k)
            return vec
        return list(lanes)

    def map_lanes(
        self, ty: ir.Type, ops: Sequence[Tangent], types: Sequence[ir.Type],
        fn: Callable[..., ir.Value],
    ) -> Tangent:
        """Apply ``fn`` lane by lane to tangents (vector tangents are split and rejoined)."""
        per = [self.lanes(t, tt) for t, tt in zip(ops, types, strict=True)]
        out = [fn(*(p[k] for p in per)) for k in range(self.width)]
        return self.pack(out, ty)

    def error(self, inst: ir.Instruction, message: str) -> DifferentiationError:
        orig = self.config.function.name
        return DifferentiationError(
            f"{message} in function {orig} at instruction `{value_text(inst)}`",
            source_location_of(inst)
        )

    # -- dispatch ------------------------------------------------------------------------
    def visit(self, inst: ir.Instruction) -> None:
        if inst.opcode == "phi":
            return
        if inst in self.tangents:
            return
        nxt = _next(inst)
        if nxt is None:
            self.b.position_at_end(inst.parent)  # type: ignore[arg-type]
        else:
            self.b.position_before(nxt)
        self.b.debug_loc = inst.debug_loc
        op = inst.opcode
        if isinstance(inst, ir.CallBase):
            mem.visit_call(self, inst)  # type: ignore[arg-type]
        elif op == "ret":
            self.b.position_before(inst)
            mem.visit_return(self, inst)  # type: ignore[arg-type]
        elif op in ("load", "store", "alloca", "getelementptr"):
            getattr(mem, f"visit_{op.replace('getelementptr', 'gep')}")(self, inst)
        elif op in ("atomicrmw", "cmpxchg"):
            visit_atomic(self, inst)  # type: ignore[arg-type]
        else:
            self.visit_value(inst)
        self.b.debug_loc = None

    def visit_value(self, inst: ir.Instruction) -> None:
        op = inst.opcode
        ops = [o for o in inst.operands if not isinstance(o, ir.BasicBlock)]
        if all(self.tangent(o) is None for o in ops):
            return
        ty = inst.type
        if op in ("fadd", "fsub") and ty.is_fp_or_fp_vector:
            self._linear(inst, 1.0 if op == "fadd" else -1.0)
        elif op == "fdiv" and ty.is_fp_or_fp_vector:
            self._fdiv(inst)
        elif op in ("fmul", "fneg", "frem", "fpext", "fptrunc") and ty.is_fp_or_fp_vector:
            rule = lookup_instruction(op)
            assert rule is not None
            self.tangents[inst] = self.apply_rule(rule, list(inst.operands), inst)
        elif op in ("select",):
            self._select(inst)  # type: ignore[arg-type]
        elif op in ("extractvalue", "insertvalue", "extractelement", "insertelement",
                    "shufflevector", "bitcast", "addrspacecast", "freeze"):
            self._structural(inst)
        elif op in ("ptrtoint", "inttoptr"):
            # a pointer held in an integer (a struct of references copied as i64): the
            # shadow's address travels the same way
            src = inst.operands[0]
            t = self.tangent(src)
            if t is not None and src not in self.interleaved:
                self.tangents[inst] = self.map_lanes(
                    ty, [t], [src.type], lambda x: self.b.cast(op, x, ty))
                if op == "ptrtoint":
                    self.addresses.add(inst)
            return
        elif moves_address(inst, self.addresses):
            # the shadow's address moved or masked the same way
            k = 0 if inst.operands[0] in self.addresses else 1
            other = inst.operands[1 - k]
            t = self.tangent(inst.operands[k])
            assert t is not None
            self.tangents[inst] = self.map_lanes(
                ty, [t], [ty], lambda x: self.b.insert(ir.BinaryOperator(
                    op, *((x, other) if k == 0 else (other, x)))))
            self.addresses.add(inst)
        elif op in ("fptosi", "fptoui", "fcmp", "icmp", "sitofp", "uitofp",
                    "trunc", "zext", "sext"):
            return  # integer/boolean results (and int->fp casts) carry no derivative
        elif (sign := sign_bit_operation(inst)) is not None and \
                self.tangent(inst.operands[sign[1]]) is not None:
            # fabs / fneg / -fabs as a mask on a float's bits: flip the tangent's sign bit
            kind, k = sign
            x = inst.operands[k]
            self.tangents[inst] = self.map_lanes(
                ty, [self.tangent(x)], [x.type],  # type: ignore[list-item]
                lambda t: flip_sign(self.b, kind, t, x))
        elif ty.scalar_type.is_integer or ty.is_void:  # integer vectors alike
            if ty.scalar_type.is_integer and any(
                self.tangent(o) is not None and o.type.is_fp_or_fp_vector for o in ops
            ):
                raise self.error(inst, "integer operation on an active floating-point value")
            return
        else:
            raise self.error(inst, f"cannot differentiate the instruction '{op}'")

    # -- arithmetic ----------------------------------------------------------------------
    def _vec_scale(self, partial: ir.Value, t: Tangent) -> Tangent:
        """``partial * tangent`` (the partial is splat across the N lanes of a vector)."""
        if isinstance(t, list):
            return [fmul(self.b, partial, lane) for lane in t]
        if self.width > 1 and partial.type != t.type:
            partial = splat(self.b, partial, t.type)
        return fmul(self.b, partial, t)

    def _add(self, a: Tangent | None, c: Tangent | None) -> Tangent | None:
        if a is None:
            return c
        if c is None:
            return a
        if isinstance(a, list):
            return [fadd(self.b, x, y) for x, y in zip(a, c, strict=True)]  # type: ignore[arg-type]
        return fadd(self.b, a, c)  # type: ignore[arg-type]

    def apply_rule(
        self, rule: object, operands: list[ir.Value], result: ir.Value
    ) -> Tangent | None:
        """``sum_i partial_i * tangent_i`` over the operands that have tangents."""
        from irgrad.ad.rules import Rule

        assert isinstance(rule, Rule)
        active = [
            i for i in rule.active_operands
            if i < len(operands) and self.tangent(operands[i]) is not None
        ]
        if not active or rule.is_zero_derivative:
            return None
        partials = emit_partials(self.b, rule, operands, result)
        forms = rule.partials_given(constant_operands(operands))
        total: Tangent | None = None
        for i in active:
            p = partials[i]
            if p is None:
                continue
            t = self.tangent(operands[i])
            assert t is not None
            if result.type != operands[i].type and result.type.is_fp_or_fp_vector:
                t = self._convert_tangent(t, operands[i].type, result.type)
                p = self._convert_value(p, result.type)
            scaled = self._vec_scale(p, t)
            if may_be_unbounded(forms[i]):  # a zero tangent contributes 0, not NaN
                scaled = ([strong_zero(self.b, x, y) for x, y in zip(t, scaled, strict=True)]
                          if isinstance(t, list) else strong_zero(self.b, t, scaled))  # type: ignore[arg-type]
            total = self._add(total, scaled)
        return total

    def _convert_value(self, v: ir.Value, ty: ir.Type) -> ir.Value:
        from irgrad.ad.rules.emit import coerce_scalar

        return coerce_scalar(self.b, v, ty)

    def _convert_tangent(self, t: Tangent, src: ir.Type, dst: ir.Type) -> Tangent:
        from irgrad.ad.rules.emit import coerce_scalar

        if isinstance(t, list):
            return [coerce_scalar(self.b, x, dst) for x in t]
        return coerce_scalar(self.b, t, tangent_type(dst, self.width))

    def _linear(self, inst: ir.Instruction, sign: float) -> None:
        a, c = inst.operands
        ta, tc = self.tangent(a), self.tangent(c)
        if tc is not None and sign < 0:
            if isinstance(tc, list):
                tc = [fsub(self.b, fp_constant(x.type, 0.0), x) for x in tc]
            else:
                tc = fsub(self.b, fp_constant(tc.type, 0.0), tc)
        self.tangents[inst] = self._add(ta, tc)  # type: ignore[assignment]

    def _fdiv(self, inst: ir.Instruction) -> None:
        """d(x/y) = (dx - r * dy) * (1/y) (cheaper than the two partials: one reciprocal,
        which LLVM hoists out of a loop that divides by an invariant y, and a product per
        tangent lane); for a nonzero finite constant x = c, d(c/y) = -dy * r * (r * (1/c)),
        with 1/c folded: no division at all (the rule's ``when_constant`` form)."""
        x, y = inst.operands
        tx, ty_ = self.tangent(x), self.tangent(y)
        if ty_ is not None and 0 in constant_operands([x]):
            c = const_value(x)
            assert c is not None
            k = self.b.fmul(inst, fp_constant(inst.type, 1.0 / c))
            self.tangents[inst] = self._vec_scale(self.b.fneg(self.b.fmul(inst, k)), ty_)
            return
        num = tx
        if ty_ is not None:
            num = self._add(tx, self._vec_scale(self.b.fneg(inst), ty_))
        assert num is not None
        self.tangents[inst] = self._vec_scale(self.b.fdiv(fp_constant(y.type, 1.0), y), num)

    def _select(self, inst: ir.SelectInst) -> None:
        cond, tv, fv = inst.operands
        ty = inst.type
        a = self.tangent_or_zero(tv, ty)
        c = self.tangent_or_zero(fv, ty)
        if isinstance(a, list):
            self.tangents[inst] = [
                self.b.select(cond, x, y) for x, y in zip(a, c, strict=True)  # type: ignore[arg-type]
            ]
        else:
            if cond.type.is_vector and self.width > 1 and ty.is_float:
                raise self.error(inst, "vector select with width > 1 is not supported")
            self.tangents[inst] = self.b.select(cond, a, c)  # type: ignore[arg-type]

    def _structural(self, inst: ir.Instruction) -> None:
        """Instructions that move values around: the same instruction on the tangents."""
        from irgrad.ir.clone import clone_instruction

        ops = list(inst.operands)
        op = inst.opcode
        if op == "bitcast" and inst.type.is_integer != ops[0].type.is_integer and not (
            inst.type.is_pointer or ops[0].type.is_pointer
        ) and ops[0].type.is_fp_or_fp_vector:
            if inst.users and all(isinstance(u, ir.ICmpInst) for u in inst.users):
                return  # the bits only compared (signbit(x)): no tangent flows through
            raise self.error(inst, "integer operation on an active floating-point value")
        # which operand slots carry differentiable data
        data_slots = {
            "extractvalue": [0], "insertvalue": [0, 1], "extractelement": [0],
            "insertelement": [0, 1], "shufflevector": [0, 1], "bitcast": [0],
            "addrspacecast": [0], "freeze": [0],
        }[op]  # fmt: skip
        ts = [self.tangent_or_zero(ops[k], ops[k].type) for k in data_slots]

        def one(*lane_vals: ir.Value) -> ir.Value:
            vm: dict[ir.Value, ir.Value] = {ops[k]: v for k, v in zip(data_slots, lane_vals,
                                                                        strict=True)}
            new = clone_instruction(inst, vm)
            new.name = None
            new.metadata = []
            self.b.insert(new, f"'{inst.name}" if inst.name else None)
            return new

        if self.width == 1:
            self.tangents[inst] = one(*ts)  # type: ignore[arg-type]
        else:
            self.tangents[inst] = self.map_lanes(
                inst.type, ts, [ops[k].type for k in data_slots], one
            )


def _next(inst: ir.Instruction) -> ir.Instruction | None:
    insts = inst.parent.instructions  # type: ignore[union-attr]
    k = insts.index(inst) + 1
    return insts[k] if k < len(insts) else None


