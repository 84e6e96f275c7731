"""Hand-written samples covering every instruction kind: print∘parse is stable and LLVM 22
accepts our output and prints it exactly as it prints the original."""

from __future__ import annotations

from pathlib import Path

import pytest
from ir_helpers import INPUTS, check_roundtrip

from irgrad import ir

SAMPLES = sorted(INPUTS.glob("*.ll"))


def test_samples_exist() -> None:
    assert {p.name for p in SAMPLES} >= {
        "instructions.ll", "globals.ll", "eh.ll", "atomics_debug.ll"}


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_roundtrip(path: Path) -> None:
    check_roundtrip(path.read_text(), path.name)


def test_every_opcode_is_covered() -> None:
    seen: set[str] = set()
    for p in SAMPLES:
        m = ir.parse_module(p.read_text(), p.name, lazy=False)
        for f in m.functions:
            seen.update(i.opcode for i in f.instructions())
    expected = set(
        ["add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor", "fadd", "fsub", "fmul", "fdiv", "frem", "fneg", "icmp", "fcmp", "trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp", "ptrtoint", "inttoptr", "bitcast", "addrspacecast", "alloca", "load", "store", "getelementptr", "call", "invoke", "callbr", "phi", "select", "ret", "br", "switch", "indirectbr", "unreachable", "extractvalue", "insertvalue", "extractelement", "insertelement", "shufflevector", "atomicrmw", "cmpxchg", "fence", "va_arg", "freeze", "landingpad", "resume", "cleanuppad", "catchpad", "catchswitch", "catchret", "cleanupret"]
    )
    assert expected - seen == set()


def test_debug_records_follow_renumbering() -> None:
    text = (INPUTS / "atomics_debug.ll").read_text()
    m = ir.parse_module(text, lazy=False)
    f = m.get_function("atomics")
    ev = next(i for i in f.instructions() if i.opcode == "extractvalue")
    add = next(i for i in f.instructions() if i.opcode == "add")
    assert [r.kind for r in add.debug_records] == ["value", "value"]
    assert add.debug_records[0].values == [ev]
    assert add.debug_records[1].values == [ev, f.entry_block.instructions[10]]
    ev.name = "renamed"
    out = ir.print_module(m)
    assert "#dbg_value(i64 %renamed, !9, !DIExpression(), !10)" in out
    assert add.metadata == [("dbg", "!10")]
    load = next(i for i in f.instructions() if i.opcode == "load" and not i.ordering)
    assert load.metadata == [("tbaa", "!11"), ("range", "!14"), ("noundef", "!15")]


def test_flags_and_fields_parsed() -> None:
    m = ir.parse_module((INPUTS / "instructions.ll").read_text(), lazy=False)
    insts = {i.name: i for f in m.functions for i in f.instructions() if i.name}
    assert insts["sub"].flags == ["nuw", "nsw"] and insts["or"].flags == ["disjoint"]
    assert insts["z"].flags == ["nneg"] and insts["cmp"].flags == ["samesign"]
    assert insts["cmp"].predicate == "ult"
    assert insts["g1"].flags == ["inbounds", "nuw"] and insts["g2"].flags == ["nusw"]
    assert insts["g1"].source_type == m.struct_types["struct.Pair"]
    assert insts["dyn"].count.name == "n" and insts["a"].count is None
    assert insts["a"].align == 4 and insts["vol"].volatile
    assert insts["r1"].tail == "notail" and insts["r1"].calling_conv == "fastcc"
    assert insts["r4"].calling_conv == "cc 10" and insts["r4"].fn_attrs == ["nounwind"]
    assert insts["r0"].arg_attrs[1] == ["noundef", "nonnull", "align 8", "dereferenceable(16)"]
    lp = insts["lp"]
    assert lp.cleanup and [k for k, _ in lp.clauses] == ["catch", "filter"]
    asm = insts["asm"].callee
    assert isinstance(asm, ir.InlineAsm) and asm.constraints == "=r,r"
    f = m.get_function("arith")
    assert f.return_attrs == ["range(i32 0, 10)"] and f.args[0].attrs == ["noundef"]
