"""Verifier: each broken rule gives an IRVerifyError naming function and instruction; valid
IR (clang's output, builder output, clones) passes."""

from __future__ import annotations

import pytest

from irgrad.errors import IRVerifyError, SourceLocation
from irgrad.ir import parse_module
from irgrad.ir.builder import IRBuilder
from irgrad.ir.clone import clone_function
from irgrad.ir.constants import ConstantFP, ConstantInt
from irgrad.ir.control import CallInst, ReturnInst
from irgrad.ir.function import Function
from irgrad.ir.instructions import BinaryOperator, CastInst, LoadInst, StoreInst
from irgrad.ir.module import Module
from irgrad.ir.types import FunctionType, double, float_, i1, i32, i64, ptr, void
from irgrad.ir.verifier import verify_function, verify_module
from irgrad.toolchain import run_tool

BASE = """
declare double @g(double, double)
declare i32 @printf(ptr, ...)
declare double @knr(...)

define double @f(double %x, i32 %k, ptr %p, i1 %c) {
entry:
  %y = fmul double %x, %x
  br i1 %c, label %then, label %join
then:
  %z = fadd double %y, 1.0
  br label %join
join:
  %r = phi double [ %z, %then ], [ %y, %entry ]
  ret double %r
}
"""


@pytest.fixture
def base() -> Module:
    return parse_module(BASE)


def func(m: Module) -> Function:
    f = m.get_function("f")
    assert f is not None
    return f


def inst_named(fn: Function, name: str):
    return next(i for i in fn.instructions() if i.name == name)


def expect(m: Module, message: str) -> IRVerifyError:
    with pytest.raises(IRVerifyError) as info:
        verify_module(m)
    assert info.value.message == message
    return info.value


def test_base_module_is_valid(base: Module) -> None:
    verify_module(base)
    verify_function(func(base))


def test_call_argument_count_against_declaration(base: Module) -> None:
    f = func(base)
    b = IRBuilder(position=f.blocks[2].terminator)
    g = base.get_function("g")
    b.insert(CallInst(FunctionType(double, [double]), g, [f.args[0]]))
    expect(base, "in function 'f': call to 'g' passes 1 argument(s), declaration takes 2: "
                 "%0 = call double @g(double %x)")


def test_call_argument_type_against_declaration(base: Module) -> None:
    f = func(base)
    b = IRBuilder(position=f.blocks[2].terminator)
    g = base.get_function("g")
    b.insert(CallInst(FunctionType(double, [double, i32]), g, [f.args[0], f.args[1]]),
             name="bad")
    expect(base, "in function 'f': call to 'g': argument 2 has type i32, declaration "
                 "expects double: %bad = call double @g(double %x, i32 %k)")


def test_call_return_type_against_declaration(base: Module) -> None:
    f = func(base)
    b = IRBuilder(position=f.blocks[2].terminator)
    g = base.get_function("g")
    b.insert(CallInst(FunctionType(float_, [double, double]), g, [f.args[0], f.args[0]]),
             name="h")
    expect(base, "in function 'f': call to 'g' expects a result of type float, declaration "
                 "returns double: %h = call float @g(double %x, double %x)")


def test_call_arguments_against_own_type(base: Module) -> None:
    f = func(base)
    b = IRBuilder(position=f.blocks[2].terminator)
    # an indirect call whose arguments do not match the call's function type
    b.insert(CallInst(FunctionType(void, [double]), f.args[2], [f.args[1]]))
    expect(base, "in function 'f': indirect call: argument 1 has type i32, expected double: "
                 "call void %p(i32 %k)")


def test_varargs_and_unprototyped_calls_are_valid(base: Module) -> None:
    f = func(base)
    b = IRBuilder(position=f.blocks[2].terminator)
    b.call(base.get_function("printf"), [f.args[2], f.args[0], f.args[1]])
    knr = base.get_function("knr")
    b.insert(CallInst(FunctionType(double, [double]), knr, [f.args[0]]))
    verify_module(base)
    # too few fixed arguments to a varargs function
    b.insert(CallInst(FunctionType(i32, [], var_arg=True), base.get_function("printf"), []),
             name="few")
    expect(base, "in function 'f': call to 'printf' passes 0 argument(s), declaration takes "
                 "at least 1: %few = call i32 (...) @printf()")


def test_binary_operand_types(base: Module) -> None:
    f = func(base)
    y = inst_named(f, "y")
    y.set_operand(1, f.args[1])
    expect(base, "in function 'f': fmul operands have different types (double and i32): "
                 "%y = fmul double %x, %k")


def test_integer_op_on_floats(base: Module) -> None:
    f = func(base)
    b = IRBuilder(position=f.blocks[0].terminator)
    b.insert(BinaryOperator("add", f.args[0], f.args[0]), name="s")
    expect(base, "in function 'f': add needs integer operands, got double: "
                 "%s = add double %x, %x")


def test_invalid_cast(base: Module) -> None:
    f = func(base)
    b = IRBuilder(position=f.blocks[0].terminator)
    b.insert(CastInst("trunc", f.args[1], i64), name="t")
    expect(base, "in function 'f': invalid trunc from i32 to i64: %t = trunc i32 %k to i64")


def test_store_to_non_pointer(base: Module) -> None:
    f = func(base)
    b = IRBuilder(position=f.blocks[0].terminator)
    b.insert(StoreInst(f.args[0], f.args[1]))
    expect(base, "in function 'f': store address must be a pointer, got i32: "
                 "store double %x, i32 %k")


def test_load_from_non_pointer(base: Module) -> None:
    f = func(base)
    b = IRBuilder(position=f.blocks[0].terminator)
    b.insert(LoadInst(double, f.args[0]), name="l")
    expect(base, "in function 'f': load address must be a pointer, got double: "
                 "%l = load double, double %x")


def test_icmp_on_floats_and_select_condition(base: Module) -> None:
    f = func(base)
    b = IRBuilder(position=f.blocks[0].terminator)
    cmp = b.fcmp("olt", f.args[0], 0.0, name="lt")
    sel = b.select(cmp, f.args[0], 1.0, name="s")
    verify_module(base)
    sel.set_operand(0, f.args[1])
    expect(base, "in function 'f': select condition must be i1 (or a vector of i1), got i32: "
                 "%s = select i32 %k, double %x, double 1.000000e+00")


def test_ret_type_mismatch(base: Module) -> None:
    f = func(base)
    ret = f.blocks[2].terminator
    ret.set_operand(0, f.args[1])
    expect(base, "in function 'f': ret of i32 in a function returning double: ret i32 %k")


def test_ret_void_in_non_void_function(base: Module) -> None:
    f = func(base)
    f.blocks[2].terminator.erase_from_parent()
    f.blocks[2].append(ReturnInst())
    expect(base, "in function 'f': ret void in a function returning double: ret void")


def test_missing_terminator(base: Module) -> None:
    f = func(base)
    f.blocks[1].terminator.erase_from_parent()
    expect(base, "in function 'f': block 'then' does not end with a terminator: "
                 "%z = fadd double %y, 1.0")


def test_terminator_in_the_middle(base: Module) -> None:
    f = func(base)
    b = IRBuilder(position=inst_named(f, "y"))
    b.br(f.blocks[2])
    expect(base, "in function 'f': terminator in the middle of block 'entry': br label %join")


def test_phi_not_first(base: Module) -> None:
    f = func(base)
    b = IRBuilder(position=inst_named(f, "r"))
    b.fadd(f.args[0], 1.0, name="early")
    expect(base, "in function 'f': phi node is not at the start of its block: "
                 "%r = phi double [ %z, %then ], [ %y, %entry ]")


def test_phi_missing_predecessor_and_type(base: Module) -> None:
    f = func(base)
    r = inst_named(f, "r")
    r.remove_incoming(f.blocks[0])
    expect(base, "in function 'f': phi has no entry for predecessor 'entry': "
                 "%r = phi double [ %z, %then ]")
    r.add_incoming(f.args[1], f.blocks[0])
    expect(base, "in function 'f': phi incoming value has type i32, phi has type double: "
                 "%r = phi double [ %z, %then ], [ %k, %entry ]")


def test_phi_entry_for_non_predecessor(base: Module) -> None:
    f = func(base)
    r = inst_named(f, "r")
    r.add_incoming(f.args[0], f.blocks[2])
    expect(base, "in function 'f': phi has an entry for 'join', which is not a predecessor: "
                 "%r = phi double [ %z, %then ], [ %y, %entry ], [ %x, %join ]")


def test_use_not_dominated_by_definition(base: Module) -> None:
    f = func(base)
    # %y used in 'entry' by an instruction placed before its definition
    b = IRBuilder(position=inst_named(f, "y"))
    b.fadd(inst_named(f, "y"), 1.0, name="early")
    expect(base, "in function 'f': instruction does not dominate all its uses (operand "
                 "defined by: fmul): %early = fadd double %y, 1.000000e+00")


def test_use_in_non_dominated_block(base: Module) -> None:
    f = func(base)
    ret = f.blocks[2].terminator
    ret.set_operand(0, inst_named(f, "z"))  # %z is defined only on the 'then' path
    expect(base, "in function 'f': instruction does not dominate all its uses (operand "
                 "defined by: fadd): ret double %z")


def test_phi_operand_must_dominate_incoming_edge(base: Module) -> None:
    f = func(base)
    r = inst_named(f, "r")
    r.set_incoming_value(1, inst_named(f, "z"))  # from 'entry', but %z lives in 'then'
    expect(base, "in function 'f': phi operand does not dominate the end of incoming block "
                 "'entry': %r = phi double [ %z, %then ], [ %z, %entry ]")


def test_value_from_another_function(base: Module) -> None:
    f = func(base)
    other = Function("other", FunctionType(double, [double]), arg_names=["a"])
    base.add_function(other)
    b = IRBuilder(other.append_basic_block("entry"))
    b.ret(f.args[0])
    expect(base, "in function 'other': uses an argument of function 'f': ret double %x")
    other.entry_block.terminator.set_operand(0, inst_named(f, "y"))
    expect(base, "in function 'other': uses a value of function 'f': ret double %y")


def test_wrong_parent_pointer(base: Module) -> None:
    f = func(base)
    y = inst_named(f, "y")
    y.parent = f.blocks[1]
    expect(base, "in function 'f': instruction's parent is not the block that holds it: "
                 "%y = fmul double %x, %x")


def test_branch_condition_and_switch_case_types(base: Module) -> None:
    f = func(base)
    br = f.blocks[0].terminator
    br.set_operand(0, f.args[1])
    expect(base, "in function 'f': branch condition must be i1, got i32: "
                 "br i32 %k, label %then, label %join")
    br.set_operand(0, f.args[3])
    verify_module(base)
    b = IRBuilder(position=br)
    sw = b.switch(f.args[1], f.blocks[2], [(1, f.blocks[1])])
    br.erase_from_parent()
    verify_module(base)
    sw.add_case(ConstantInt(i32, 1), f.blocks[2])
    expect(base, "in function 'f': duplicate switch case value 1: "
                 "switch i32 %k, label %join [\n    i32 1, label %then\n    i32 1, label %join\n  ]")


def test_empty_block_and_branch_to_entry(base: Module) -> None:
    f = func(base)
    f.blocks[1].terminator.set_operand(0, f.blocks[0])
    expect(base, "in function 'f': branch to the entry block (it must have no predecessors): "
               "br label %entry")
    f.blocks[1].terminator.set_operand(0, f.blocks[2])
    f.append_basic_block("dangling")
    expect(base, "in function 'f': block 'dangling' is empty (no terminator)")


def test_source_location_from_debug_info() -> None:
    src = "double sq(double x) {\n  double y = x * x;\n  return y + 1.0;\n}\n"
    text = run_tool("clang", ["-x", "c", "-S", "-emit-llvm", "-O1", "-g", "-o", "-", "-"],
                    input=src.encode()).stdout.decode()
    m = parse_module(text)
    verify_module(m, all_functions=True)
    f = m.get_function("sq")
    mul = next(i for i in f.instructions() if i.opcode == "fmul")
    mul.set_operand(1, ConstantFP(float_, 2.0))
    err = expect(m, "in function 'sq': fmul operands have different types (double and "
                    f"float): {str(mul).strip()}")
    assert err.location == SourceLocation("<stdin>", 2, 16)
    assert err.format().startswith("<stdin>:2:16: error: in function 'sq': fmul operands")


def test_unmaterialized_functions_are_skipped_unless_asked() -> None:
    m = parse_module(BASE.replace("%z = fadd double %y, 1.0", "%z = fadd double %y, %y"))
    verify_module(m)
    assert not func(m).is_materialized
    verify_module(m, all_functions=True)
    assert func(m).is_materialized


def test_invoke_result_dominates_normal_destination_only() -> None:
    text = """
declare i32 @may_throw()
declare i32 @__gxx_personality_v0(...)
define i32 @f() personality ptr @__gxx_personality_v0 {
entry:
  %v = invoke i32 @may_throw() to label %ok unwind label %lp
ok:
  %w = add i32 %v, 1
  ret i32 %w
lp:
  %e = landingpad { ptr, i32 } cleanup
  ret i32 0
}
"""
    m = parse_module(text, lazy=False)
    verify_module(m)
    f = m.get_function("f")
    lp_ret = f.blocks[2].terminator
    lp_ret.set_operand(0, f.blocks[0].terminator)
    expect(m, "in function 'f': instruction does not dominate all its uses (operand defined "
              "by: invoke): ret i32 %v")


PROGRAMS: list[tuple[str, str]] = [
    ("c", "#include <math.h>\n#include <stdio.h>\n"
          "struct s { double a[4]; int n; };\n"
          "double f(struct s *p, double x) { double t = 0; for (int i = 0; i < p->n; i++)"
          " t += sin(p->a[i] * x); if (t > 1) printf(\"%f\\n\", t); return t; }\n"
          "int sw(int k) { switch (k) { case 1: case 2: return 5; case 7: return 1; }"
          " return 0; }\n"),
    ("c++", "#include <vector>\n#include <stdexcept>\n"
            "double g(std::vector<double> &v) { double s = 0;"
            " try { for (int i = 0; i < 5; i++) s += v.at(i); } catch (...) { s = -1; }"
            " return s; }\n"),
]


@pytest.mark.parametrize(("lang", "source"), PROGRAMS)
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_clang_output_and_its_clones_are_valid(lang: str, source: str, opt: str) -> None:
    key = "clang++" if lang == "c++" else "clang"
    text = run_tool(key, ["-x", lang, "-S", "-emit-llvm", opt, "-g", "-o", "-", "-"],
                    input=source.encode()).stdout.decode()
    m = parse_module(text)
    verify_module(m, all_functions=True)
    for fn in [f for f in m.functions if not f.is_declaration]:
        clone_function(fn)
    verify_module(m)


def test_builder_output_is_valid() -> None:
    m = Module()
    f = Function("h", FunctionType(i64, [i64, ptr]), arg_names=["n", "p"])
    m.add_function(f)
    b = IRBuilder(f.append_basic_block("entry"))
    loop = f.append_basic_block("loop")
    done = f.append_basic_block("done")
    entry = f.entry_block
    b.br(loop)
    b.position_at_end(loop)
    i = b.phi(i64, name="i")
    nxt = b.add(i, 1, name="next")
    b.store(nxt, b.gep(i64, f.args[1], [i]))
    b.memset(f.args[1], 0, 8)
    b.cond_br(b.icmp("ult", nxt, f.args[0]), loop, done)
    i.add_incoming(ConstantInt(i64, 0), entry)
    i.add_incoming(nxt, loop)
    b.position_at_end(done)
    b.ret(b.zext(b.trunc(nxt, i1), i64))
    verify_module(m)


