"""Use lists, operand slots, RAUW, block/function structure on parsed and built IR."""

from __future__ import annotations

from irgrad import ir

SRC = """
define double @f(double %x, double %y, i1 %c) {
entry:
  %m = fmul fast double %x, %y
  %a = fadd double %m, %x
  br i1 %c, label %then, label %exit

then:
  %s = fsub double %a, 1.000000e+00
  br label %exit

exit:
  %p = phi double [ %a, %entry ], [ %s, %then ]
  ret double %p
}
"""


def fn() -> ir.Function:
    m = ir.parse_module(SRC)
    return m.get_function("f")


def test_structure_and_fields() -> None:
    f = fn()
    assert [b.name for b in f.blocks] == ["entry", "then", "exit"]
    m, _a, br = f.entry_block.instructions
    assert isinstance(m, ir.BinaryOperator) and m.opcode == "fmul" and m.flags == ["fast"]
    assert m.lhs is f.args[0] and m.rhs is f.args[1]
    assert isinstance(br, ir.BranchInst) and br.is_conditional and br.condition is f.args[2]
    assert br.true_dest is f.blocks[1] and br.false_dest is f.blocks[2]
    phi = f.blocks[2].instructions[0]
    assert isinstance(phi, ir.PHINode)
    assert [(v.name, b.name) for v, b in phi.incoming] == [("a", "entry"), ("s", "then")]
    assert phi.incoming_value_for(f.blocks[1]).name == "s"
    assert f.blocks[2].phis() == [phi]
    assert f.blocks[2].first_non_phi.opcode == "ret"
    assert f.entry_block.successors() == [f.blocks[1], f.blocks[2]]
    assert f.blocks[2].predecessors() == [f.blocks[0], f.blocks[1]]
    assert f.entry_block.terminator is br
    assert [i.opcode for i in f.instructions()] == [
        "fmul", "fadd", "br", "fsub", "br", "phi", "ret"]


def test_use_lists() -> None:
    f = fn()
    x = f.args[0]
    assert sorted((u.user.opcode, u.index) for u in x.uses) == [("fadd", 1), ("fmul", 0)]
    a = f.entry_block.instructions[1]
    assert {u.user.opcode for u in a.uses} == {"fsub", "phi"}
    # block uses: branches and phis
    exit_bb = f.blocks[2]
    assert sorted(u.user.opcode for u in exit_bb.uses) == ["br", "br"]
    assert sorted(u.user.opcode for u in f.blocks[0].uses) == ["phi"]


def test_replace_all_uses_with_and_set_operand() -> None:
    f = fn()
    x, y = f.args[0], f.args[1]
    m = f.entry_block.instructions[0]
    x.replace_all_uses_with(y)
    assert x.uses == []
    assert m.lhs is y and m.rhs is y and len(y.uses) == 3
    m.set_operand(0, x)
    assert m.lhs is x and len(x.uses) == 1 and x.uses[0].user is m and len(y.uses) == 2
    two = ir.ConstantFP(ir.double, 2.0)
    m.set_operand(1, two)
    assert "fmul fast double %x, 2.000000e+00" in str(m)


def test_erase_and_insert() -> None:
    f = fn()
    then = f.blocks[1]
    s = then.instructions[0]
    phi = f.blocks[2].instructions[0]
    phi.set_incoming_value(1, f.args[1])
    assert s.uses == []
    a = s.operands[0]
    n_before = len(a.uses)
    s.erase_from_parent()
    assert s.parent is None and len(a.uses) == n_before - 1 and len(then.instructions) == 1
    neg = ir.UnaryOperator("fneg", f.args[0], name="neg")
    neg.insert_before(then.instructions[0])
    assert then.instructions[0] is neg and neg.parent is then
    text = ir.print_module(f.parent)
    assert "%neg = fneg double %x" in text
    assert "phi double [ %a, %entry ], [ %y, %then ]" in text


def test_phi_remove_incoming_and_switch_cases() -> None:
    f = fn()
    phi = f.blocks[2].instructions[0]
    phi.remove_incoming(f.blocks[1])
    assert phi.num_incoming == 1 and f.blocks[1].uses[0].user.opcode == "br"
    sw = ir.SwitchInst(f.args[2], f.blocks[0])
    sw.add_case(ir.ConstantInt(ir.i1, 1), f.blocks[1])
    assert [(c.value, b.name) for c, b in sw.cases] == [(1, "then")]
    assert sw.default_dest is f.blocks[0]


def test_call_operand_layout() -> None:
    m = ir.parse_module("""
declare i32 @g(i32, ptr)
define i32 @f(i32 %a, ptr %p) {
  %r = call i32 @g(i32 noundef %a, ptr nonnull %p) #0 [ "deopt"(i32 7) ]
  ret i32 %r
}
attributes #0 = { nounwind }
""")
    call = m.get_function("f").entry_block.instructions[0]
    assert isinstance(call, ir.CallInst)
    assert call.called_function is m.get_function("g") and call.callee is m.get_function("g")
    assert [a.name for a in call.args] == ["a", "p"]
    assert call.arg_attrs == [["noundef"], ["nonnull"]] and call.fn_attrs == ["#0"]
    assert [(t, [v.value for v in vs]) for t, vs in call.bundles] == [("deopt", [7])]
    assert call.function_type == ir.FunctionType(ir.i32, [ir.i32, ir.ptr])
    g = m.get_function("g")
    assert [u.user for u in g.uses] == [call]
    call.set_arg(0, ir.ConstantInt(ir.i32, 5))
    assert "call i32 @g(i32 noundef 5, ptr nonnull %p) #0 [ \"deopt\"(i32 7) ]" in str(call)


def test_build_function_and_print() -> None:
    mod = ir.Module()
    f = ir.Function("sq", ir.FunctionType(ir.double, [ir.double]), arg_names=["x"])
    mod.add_function(f)
    bb = f.append_basic_block("entry")
    p = bb.append(ir.BinaryOperator("fmul", f.args[0], f.args[0]))
    bb.append(ir.ReturnInst(p))
    text = ir.print_module(mod)
    assert "define double @sq(double %x) {\nentry:\n  %0 = fmul double %x, %x\n" in text
    assert ir.print_module(ir.parse_module(text)) == text
    assert mod.unique_name("sq") == "sq.1" and mod.unique_name("other") == "other"
    decl = mod.get_or_insert_function("ext", ir.FunctionType(ir.void, []))
    assert decl.is_declaration and mod.get_or_insert_function("ext", decl.function_type) is decl


def test_duplicate_names_are_uniqued_on_print() -> None:
    mod = ir.Module()
    f = ir.Function("f", ir.FunctionType(ir.i32, [ir.i32]), arg_names=["x"])
    mod.add_function(f)
    bb = f.append_basic_block("entry")
    a = bb.append(ir.BinaryOperator("add", f.args[0], f.args[0], name="x"))
    b = bb.append(ir.BinaryOperator("add", a, a, name="x"))
    bb.append(ir.ReturnInst(b))
    text = ir.print_module(mod)
    assert "%x1 = add i32 %x, %x" in text and "%x2 = add i32 %x1, %x1" in text


def test_duplicate_block_labels_match_their_references() -> None:
    """Two blocks of one name (a derivative of a derivative clones ``fwd.entry`` into a
    function that has its own): each label is printed as its branches spell it."""
    mod = ir.Module()
    f = ir.Function("f", ir.FunctionType(ir.void, []))
    mod.add_function(f)
    first = f.append_basic_block("entry")
    second = f.append_basic_block("entry")
    ir.IRBuilder(first).br(second)
    ir.IRBuilder(second).ret_void()
    text = ir.print_module(mod)
    assert "br label %entry1" in text and "\nentry1:\n" in text
    ir.parse_module(text)  # the labels resolve


def test_function_attributes_resolve_groups() -> None:
    m = ir.parse_module("""
define void @f() #0 {
  ret void
}
attributes #0 = { noinline nounwind optnone "frame-pointer"="all" memory(read) }
""")
    f = m.get_function("f")
    assert f.fn_attrs == ["#0"]
    assert f.has_attribute("optnone") and f.has_attribute("frame-pointer")
    assert f.has_attribute("memory") and not f.has_attribute("readnone")


def test_global_value_fields() -> None:
    m = ir.parse_module(
        '@g = internal thread_local unnamed_addr constant [2 x i32] [i32 1, i32 2], '
        'section "s", align 8\n@e = external global double\n')
    g, e = m.globals
    assert g.linkage == "internal" and g.thread_local == "thread_local"
    assert g.unnamed_addr == "unnamed_addr" and g.is_constant and g.section == "s"
    assert g.align == 8 and g.value_type == ir.ArrayType(2, ir.i32) and g.type == ir.ptr
    assert e.is_declaration and e.initializer is None and not e.is_constant
