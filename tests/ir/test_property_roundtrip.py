"""Hypothesis: random types, constants and straight-line functions survive print∘parse
unchanged, and LLVM 22 accepts what we print (and prints it as it prints its own parse)."""

from __future__ import annotations

import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_helpers import llvm_print

from irgrad import ir

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

int_types = st.sampled_from([1, 8, 16, 32, 64, 128, 7, 24]).map(ir.IntType)
float_types = st.sampled_from(["half", "bfloat", "float", "double", "x86_fp80", "fp128"]).map(
    ir.FloatType)
ptr_types = st.sampled_from([0, 0, 1, 3]).map(ir.PointerType)
scalar_types = st.one_of(int_types, float_types, ptr_types)


def _extend(children: st.SearchStrategy[ir.Type]) -> st.SearchStrategy[ir.Type]:
    return st.one_of(
        st.builds(ir.ArrayType, st.integers(0, 4), children),
        st.builds(lambda ts, p: ir.StructType(ts, p), st.lists(children, max_size=3),
                  st.booleans()),
        st.builds(ir.VectorType, st.integers(1, 8), st.one_of(int_types, float_types,
                                                              ptr_types)),
    )


types = st.recursive(scalar_types, _extend, max_leaves=6)


@SETTINGS
@given(types)
def test_type_roundtrip(t: ir.Type) -> None:
    assert ir.parse_type(str(t)) == t
    assert str(ir.parse_type(str(t))) == str(t)


def constant_of(t: ir.Type) -> st.SearchStrategy[ir.Value]:
    special = st.sampled_from([ir.UndefValue, ir.PoisonValue]).map(lambda c: c(t))
    if isinstance(t, ir.IntType):
        lo, hi = -(1 << (t.width - 1)), (1 << (t.width - 1)) - 1
        if t.width == 1:
            lo, hi = 0, 1
        return st.one_of(st.integers(lo, hi).map(lambda v: ir.ConstantInt(t, v)), special)
    if isinstance(t, ir.FloatType):
        if t.kind == "double":
            vals = st.floats(allow_nan=False, width=64)
        elif t.kind == "float":
            vals = st.floats(allow_nan=False, width=32)
        elif t.kind == "half":
            vals = st.floats(allow_nan=False, width=16)
        elif t.kind == "bfloat":
            vals = st.integers(0, 0xFFFF).map(
                lambda b: struct.unpack("<f", struct.pack("<I", b << 16))[0]).filter(
                lambda v: v == v)
        else:
            return st.one_of(special, st.just(ir.ConstantAggregateZero(t)).map(
                lambda _: ir.ConstantFP(t, 0.0, "0xK00000000000000000000" if t.kind ==
                                        "x86_fp80" else "0xL00000000000000000000000000000000")))
        return st.one_of(vals.map(lambda v: ir.ConstantFP(t, v)), special)
    if isinstance(t, ir.PointerType):
        return st.one_of(st.just(t).map(ir.ConstantPointerNull), special)
    zero = st.just(t).map(ir.ConstantAggregateZero)
    if isinstance(t, ir.ArrayType):
        elems = st.lists(constant_of(t.element), min_size=t.count, max_size=t.count)
        return st.one_of(zero, special, elems.map(lambda es: ir.ConstantArray(t, es)))
    if isinstance(t, ir.VectorType):
        elems = st.lists(constant_of(t.element), min_size=t.count, max_size=t.count)
        splat = constant_of(t.element).filter(
            lambda c: not isinstance(c, ir.UndefValue)).map(
            lambda c: ir.ConstantVector(t, [c], splat=True))
        return st.one_of(zero, special, splat, elems.map(lambda es: ir.ConstantVector(t, es)))
    assert isinstance(t, ir.StructType)
    parts = st.tuples(*(constant_of(e) for e in t.elements))
    return st.one_of(zero, special, parts.map(lambda es: ir.ConstantStruct(t, list(es))))


@SETTINGS
@given(st.data())
def test_constant_roundtrip(data: st.DataObject) -> None:
    t = data.draw(types.filter(lambda t: not (isinstance(t, ir.ArrayType) and t.count == 0)))
    c = data.draw(constant_of(t))
    m = ir.Module()
    m.add_global(ir.GlobalVariable("g", t, c))
    text = ir.print_module(m)
    again = ir.print_module(ir.parse_module(text))
    assert again == text
    assert llvm_print(text) == llvm_print(again)


INT_OPS = ["add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "udiv", "srem"]
INT_FLAGS = {"add": ["nsw", "nuw"], "sub": ["nsw"], "mul": ["nuw"], "shl": ["nsw"],
             "lshr": ["exact"], "ashr": ["exact"], "udiv": ["exact"], "or": ["disjoint"]}
FP_OPS = ["fadd", "fsub", "fmul", "fdiv", "frem"]
FMF = ["nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc", "fast"]
ICMP = ["eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle"]
FCMP = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
        "ule", "une", "uno", "true"]
VALUE_TYPES = [ir.i1, ir.i8, ir.i32, ir.i64, ir.float_, ir.double]


def build_function(data: st.DataObject) -> ir.Module:
    nargs = data.draw(st.integers(1, 4))
    params = [data.draw(st.sampled_from(VALUE_TYPES[1:])) for _ in range(nargs)]
    ret_t = data.draw(st.sampled_from(VALUE_TYPES))
    m = ir.Module()
    names = [data.draw(st.sampled_from([None, "x", "y.1", "arg 2", "z"])) for _ in params]
    f = ir.Function("f", ir.FunctionType(ret_t, params), arg_names=names)
    m.add_function(f)
    bb = f.append_basic_block(data.draw(st.sampled_from([None, "entry", "0start"])))
    pool: list[ir.Value] = list(f.args)

    def pick(t: ir.Type) -> ir.Value:
        cands = [v for v in pool if v.type == t]
        if cands and data.draw(st.integers(0, 4)):
            return data.draw(st.sampled_from(cands))
        return data.draw(constant_of(t))

    for _ in range(data.draw(st.integers(1, 12))):
        kind = data.draw(st.sampled_from(["int", "fp", "icmp", "fcmp", "select", "cast",
                                          "fneg", "freeze"]))
        name = data.draw(st.sampled_from([None, None, "v", "tmp.1"]))
        it = data.draw(st.sampled_from([ir.i8, ir.i32, ir.i64]))
        ft = data.draw(st.sampled_from([ir.float_, ir.double]))
        if kind == "int":
            op = data.draw(st.sampled_from(INT_OPS))
            flags = data.draw(st.lists(st.sampled_from(INT_FLAGS.get(op, ["nsw"])),
                                       max_size=1, unique=True)) if op in INT_FLAGS else []
            inst = ir.BinaryOperator(op, pick(it), pick(it), name, flags)
        elif kind == "fp":
            flags = data.draw(st.lists(st.sampled_from(FMF), max_size=2, unique=True))
            flags = ["fast"] if "fast" in flags else sorted(flags, key=FMF.index)
            inst = ir.BinaryOperator(data.draw(st.sampled_from(FP_OPS)), pick(ft), pick(ft),
                                     name, flags)
        elif kind == "icmp":
            inst = ir.ICmpInst(data.draw(st.sampled_from(ICMP)), pick(it), pick(it), name)
        elif kind == "fcmp":
            inst = ir.FCmpInst(data.draw(st.sampled_from(FCMP)), pick(ft), pick(ft), name)
        elif kind == "select":
            t = data.draw(st.sampled_from(VALUE_TYPES))
            inst = ir.SelectInst(pick(ir.i1), pick(t), pick(t), name)
        elif kind == "cast":
            op, src, dst = data.draw(st.sampled_from([
                ("sext", ir.i8, ir.i64), ("zext", ir.i32, ir.i64), ("trunc", ir.i64, ir.i8),
                ("sitofp", ir.i32, ir.double), ("fptosi", ir.double, ir.i32),
                ("fpext", ir.float_, ir.double), ("fptrunc", ir.double, ir.float_),
                ("uitofp", ir.i64, ir.float_), ("bitcast", ir.i64, ir.double)]))
            inst = ir.CastInst(op, pick(src), dst, name)
        elif kind == "fneg":
            inst = ir.UnaryOperator("fneg", pick(ft), name)
        else:
            inst = ir.FreezeInst(pick(data.draw(st.sampled_from(VALUE_TYPES))), name)
        bb.append(inst)
        pool.append(inst)
    bb.append(ir.ReturnInst(pick(ret_t)))
    return m


@SETTINGS
@given(st.data())
def test_straight_line_function_roundtrip(data: st.DataObject) -> None:
    m = build_function(data)
    text = ir.print_module(m)
    for lazy in (True, False):
        assert ir.print_module(ir.parse_module(text, lazy=lazy)) == text
    assert llvm_print(text) == llvm_print(ir.print_module(ir.parse_module(text, lazy=False)))
