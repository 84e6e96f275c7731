"""Cloning: a cloned function prints exactly like the original (but for its name), LLVM
accepts the module, the clone computes the same numbers, and the copy shares no uses."""

from __future__ import annotations

import ctypes
import re

import llvmlite.binding as llvm
import pytest

from irgrad.ir import parse_module
from irgrad.ir.builder import IRBuilder
from irgrad.ir.clone import (
    clone_blocks_into,
    clone_function,
    clone_instruction,
    remap_instructions,
)
from irgrad.ir.control import CallInst
from irgrad.ir.function import Argument, BasicBlock, Function
from irgrad.ir.instructions import Instruction, PHINode
from irgrad.ir.module import Module
from irgrad.ir.printer import print_function, print_module
from irgrad.ir.types import FunctionType, double, i64, ptr
from irgrad.llvm.jit import JITModule
from irgrad.toolchain import run_tool

C_SOURCE = r"""
#include <math.h>
#include <stdarg.h>
#include <string.h>
struct pt { double x, y; int tag; };
static double sq(double v) { return v * v; }
double norm(const struct pt *p) { return sqrt(sq(p->x) + sq(p->y)); }
double dot(const double *a, const double *b, long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
int classify(int k) {
  switch (k) { case 0: return 10; case 3: return 7; case 9: return -1; default: return k * 2; }
}
double sum_va(int n, ...) {
  va_list ap; va_start(ap, n); double s = 0;
  for (int i = 0; i < n; i++) s += va_arg(ap, double);
  va_end(ap); return s;
}
void smooth(double *restrict out, const double *restrict in, int n) {
  double tmp[16]; memset(tmp, 0, sizeof tmp);
  for (int i = 1; i + 1 < n && i < 16; i++) tmp[i] = (in[i-1] + in[i] + in[i+1]) / 3.0;
  memcpy(out, tmp, sizeof tmp);
}
double piecewise(double x) { return x > 0 ? sin(x) * x : (x < -1 ? exp(x) : fabs(x)); }
long fact(long n) { return n <= 1 ? 1 : n * fact(n - 1); }
"""

CXX_SOURCE = r"""
#include <stdexcept>
#include <vector>
double safe_sum(const std::vector<double>& v) {
  double s = 0;
  try { for (size_t i = 0; i <= v.size(); ++i) s += v.at(i); }
  catch (const std::out_of_range&) { s = -s; }
  return s;
}
"""


def compile_to_ir(source: str, lang: str, *flags: str) -> str:
    key = "clang++" if lang == "c++" else "clang"
    proc = run_tool(key, ["-x", lang, "-S", "-emit-llvm", "-o", "-", *flags, "-"],
                    input=source.encode())
    return proc.stdout.decode()


@pytest.fixture(scope="module")
def c_ir_o1() -> str:
    return compile_to_ir(C_SOURCE, "c", "-O1")


@pytest.fixture(scope="module")
def c_ir_debug() -> str:
    return compile_to_ir(C_SOURCE, "c", "-O2", "-g")


@pytest.fixture(scope="module")
def cxx_ir() -> str:
    return compile_to_ir(CXX_SOURCE, "c++", "-O2", "-g")


def body_without_header(fn: Function) -> str:
    text = print_function(fn)
    return text.split("{", 1)[1] if "{" in text else text


def check_all_clones(text: str) -> Module:
    module = parse_module(text)
    originals = [f for f in module.functions if not f.is_declaration]
    assert originals
    for fn in originals:
        clone, vm = clone_function(fn, fn.name + ".clone")
        assert clone.parent is module and clone.function_type == fn.function_type
        own = f"blockaddress(@{clone.name},"
        cloned_body = body_without_header(clone).replace(own, f"blockaddress(@{fn.name},")
        assert cloned_body == body_without_header(fn), fn.name
        header_of = re.sub(r" !dbg ![0-9]+", "", print_function(fn).split("{", 1)[0])
        header_clone = print_function(clone).split("{", 1)[0]
        assert header_clone.replace(f"@{clone.name}(", f"@{fn.name}(") == header_of
        assert_disjoint(fn, clone, vm)
    out = print_module(module)
    llvm.parse_assembly(out).verify()
    return module


def assert_disjoint(fn: Function, clone: Function, vm: dict) -> None:
    """No instruction of the clone uses a local value of the original, and vice versa."""
    for inst in clone.instructions():
        assert inst.parent is not None and inst.parent.parent is clone
        for op in inst.operands:
            if isinstance(op, Instruction):
                assert op.function is clone, (str(inst), op)
            if isinstance(op, BasicBlock | Argument):
                assert op.parent is clone, (str(inst), op)
    for inst in fn.instructions():
        assert vm[inst].opcode == inst.opcode
        for use in inst.uses:
            assert use.user.parent is None or use.user.parent.parent is fn  # type: ignore[attr-defined]


def test_clone_every_function_of_optimized_c(c_ir_o1: str) -> None:
    check_all_clones(c_ir_o1)


def test_clone_keeps_debug_info_and_llvm_accepts_it(c_ir_debug: str) -> None:
    module = check_all_clones(c_ir_debug)
    clone = module.get_function("dot.clone")
    assert clone is not None
    # instruction locations and debug records are copied; the subprogram is not
    assert any(i.get_metadata("dbg") for i in clone.instructions())
    assert any(i.debug_records for i in clone.instructions())
    assert not any(k == "dbg" for k, _ in clone.metadata)


def test_clone_cxx_exceptions_invoke_landingpad(cxx_ir: str) -> None:
    module = check_all_clones(cxx_ir)
    clone = next(f for f in module.functions if f.name.startswith("_Z8safe_sum") and
                 f.name.endswith(".clone"))
    opcodes = {i.opcode for i in clone.instructions()}
    assert {"invoke", "landingpad"} <= opcodes
    assert clone.personality is not None


def test_clone_handwritten_exotic_instructions() -> None:
    text = r"""
declare void @may_throw(i32)
declare i32 @__CxxFrameHandler3(...)
declare void @cleanup()
declare void @llvm.dbg.value(metadata, metadata, metadata)
declare i32 @llvm.experimental.constrained.fptosi.i32.f64(double, metadata)

@g = global i32 0

define void @funclets(i32 %x) personality ptr @__CxxFrameHandler3 {
entry:
  invoke void @may_throw(i32 %x)
          to label %ok unwind label %dispatch

dispatch:
  %cs = catchswitch within none [label %handler] unwind label %cleanup

handler:
  %cp = catchpad within %cs [ptr null, i32 64, ptr null]
  call void @cleanup() [ "funclet"(token %cp) ]
  catchret from %cp to label %ok

cleanup:
  %cl = cleanuppad within none []
  call void @cleanup() [ "funclet"(token %cl) ]
  cleanupret from %cl unwind to caller

ok:
  ret void
}

define i32 @misc(ptr %p, i32 %v, <4 x float> %vec, i1 %c) {
entry:
  %old = atomicrmw add ptr %p, i32 %v seq_cst, align 4
  %pair = cmpxchg weak ptr %p, i32 %old, i32 %v acquire monotonic, align 4
  %ok = extractvalue { i32, i1 } %pair, 1
  fence syncscope("singlethread") release
  %ld = load atomic volatile i32, ptr %p unordered, align 4, !nontemporal !0
  %fr = freeze i32 %ld
  %sh = shufflevector <4 x float> %vec, <4 x float> poison, <4 x i32> zeroinitializer
  %e = extractelement <4 x float> %sh, i64 2
  %fc = fcmp nnan ole float %e, 1.0
  %sel = select nsz i1 %fc, float %e, float 2.0
  %d = fpext float %sel to double
  %t = call i32 @llvm.experimental.constrained.fptosi.i32.f64(double %d, metadata !"fpexcept.strict")
  %ba = select i1 %c, ptr blockaddress(@misc, %second), ptr blockaddress(@misc, %third)
  indirectbr ptr %ba, [label %second, label %third]

second:
  %q = phi i32 [ %t, %entry ], [ %z, %third ]
  %gv = load i32, ptr @g, align 4
  %r = add nuw nsw i32 %q, %gv
  ret i32 %r

third:
  %z = add i32 %fr, 1
  br i1 %ok, label %second, label %third
}

!0 = !{i32 1}
"""
    module = check_all_clones(text)
    misc = module.get_function("misc.clone")
    assert misc is not None
    text_out = print_function(misc)
    assert "blockaddress(@misc.clone, %second)" in text_out
    assert '[ "funclet"(token %cp) ]' in print_function(module.get_function("funclets.clone"))


def test_clone_computes_the_same_numbers(c_ir_o1: str) -> None:
    module = parse_module(c_ir_o1)
    for name in ("dot", "classify", "fact", "piecewise"):
        clone_function(module.get_function(name), name + "_copy")
    jit = JITModule(print_module(module))
    dot = [jit.get(n, ctypes.c_double, [ctypes.POINTER(ctypes.c_double)] * 2 + [ctypes.c_long])
           for n in ("dot", "dot_copy")]
    a = (ctypes.c_double * 5)(1, 2, 3, 4, 5)
    b = (ctypes.c_double * 5)(0.5, -1, 2, 0.25, 3)
    assert dot[0](a, b, 5) == dot[1](a, b, 5) == 0.5 - 2 + 6 + 1 + 15
    cls = [jit.get(n, ctypes.c_int, [ctypes.c_int]) for n in ("classify", "classify_copy")]
    assert [cls[1](k) for k in range(11)] == [cls[0](k) for k in range(11)]
    assert [cls[1](k) for k in (0, 3, 9, 4)] == [10, 7, -1, 8]
    fact = jit.get("fact_copy", ctypes.c_long, [ctypes.c_long])
    assert fact(10) == 3628800
    pw = [jit.get(n, ctypes.c_double, [ctypes.c_double]) for n in ("piecewise", "piecewise_copy")]
    for x in (-2.0, -0.5, 0.7, 3.0):
        assert pw[1](x) == pw[0](x)


def test_clone_is_independent_of_the_original(c_ir_o1: str) -> None:
    module = parse_module(c_ir_o1)
    dot = module.get_function("dot")
    dot.materialize()
    before = print_function(dot)
    clone, vm = clone_function(dot, "dot2")
    # mutate the clone heavily: erase everything
    for bb in list(clone.blocks):
        bb.erase_from_parent()
    assert print_function(dot) == before
    # map covers arguments, blocks and instructions
    assert all(vm[a] is clone_arg for a, clone_arg in zip(dot.args, clone.args, strict=True))
    assert all(isinstance(vm[bb], BasicBlock) for bb in dot.blocks)


def test_clone_default_name_is_unique_and_into_other_module(c_ir_o1: str) -> None:
    module = parse_module(c_ir_o1)
    sq = module.get_function("norm")
    c1, _ = clone_function(sq)
    c2, _ = clone_function(sq)
    assert (c1.name, c2.name) == ("norm.1", "norm.2")
    other = Module()
    other.data_layout, other.triple = module.data_layout, module.triple
    # the body refers to @sqrt etc. of the first module: declare them in the other one
    c3, _ = clone_function(module.get_function("fact"), module=other)
    assert c3.parent is other and c3.name == "fact"
    assert other.functions == [c3]


def test_clone_blocks_into_with_premapped_arguments() -> None:
    """What AD does: paste f's body into a function with more arguments."""
    src = parse_module("""
define double @f(double %x, ptr %p) {
entry:
  %v = load double, ptr %p, align 8
  %m = fmul double %x, %v
  %c = fcmp ogt double %m, 0.0
  br i1 %c, label %pos, label %done
pos:
  %s = call double @llvm.sqrt.f64(double %m)
  br label %done
done:
  %r = phi double [ %s, %pos ], [ 0.0, %entry ]
  ret double %r
}
declare double @llvm.sqrt.f64(double)
""")
    f = src.get_function("f")
    g = Function("f_with_shadow", FunctionType(double, [double, ptr, ptr, double]),
                 arg_names=["x", "p", "dp", "scale"])
    src.add_function(g)
    vm: dict = {f.args[0]: g.args[0], f.args[1]: g.args[1]}
    blocks = clone_blocks_into(f, g, vm)
    assert [b.name for b in blocks] == ["entry", "pos", "done"] and g.blocks == blocks
    assert vm[f.blocks[2]] is blocks[2]
    # extend the pasted body: scale the result in a new block
    b = IRBuilder()
    ret = blocks[2].terminator
    b.position_before(ret)
    scaled = b.fmul(ret.operands[0], g.args[3], name="scaled")
    ret.set_operand(0, scaled)
    text = print_module(src)
    llvm.parse_assembly(text).verify()
    assert "%m = fmul double %x, %v" in print_function(g)
    fn = JITModule(text).get("f_with_shadow", ctypes.c_double,
                             [ctypes.c_double, ctypes.POINTER(ctypes.c_double),
                              ctypes.c_void_p, ctypes.c_double])
    cell = ctypes.c_double(8.0)
    assert fn(2.0, ctypes.byref(cell), None, 0.5) == pytest.approx(2.0)
    assert fn(-2.0, ctypes.byref(cell), None, 0.5) == 0.0


def test_clone_instruction_unattached_with_map() -> None:
    m = parse_module("""
define double @h(double %a, double %b) {
  %s = fadd fast double %a, %b, !fpmath !0
  %c = call nnan double @llvm.fabs.f64(double %s) #0
  ret double %c
}
declare double @llvm.fabs.f64(double)
attributes #0 = { nounwind }
!0 = !{float 2.5}
""")
    h = m.get_function("h")
    s, c, _ = h.entry_block.instructions
    ns = clone_instruction(s, {h.args[0]: h.args[1]})
    assert ns.parent is None and ns.operands == (h.args[1], h.args[1])
    assert ns.flags == ["fast"] and ns.metadata == s.metadata and ns.metadata is not s.metadata
    nc = clone_instruction(c, {s: ns})
    assert isinstance(nc, CallInst) and nc.args == (ns,)
    assert nc.flags == ["nnan"] and nc.fn_attrs == c.fn_attrs
    assert nc.called_function is c.called_function
    nc.fn_attrs.append("noinline")
    assert "noinline" not in c.fn_attrs
    # uses are registered on the mapped values only
    assert [u.user for u in ns.uses] == [nc]
    assert len(h.args[0].uses) == 1


def test_phi_forward_references_resolved() -> None:
    m = parse_module("""
define i64 @loop(i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %next, %body ]
  %acc = phi i64 [ 0, %entry ], [ %acc2, %body ]
  %done = icmp sge i64 %i, %n
  br i1 %done, label %exit, label %body
body:
  %acc2 = add i64 %acc, %i
  %next = add i64 %i, 1
  br label %head
exit:
  ret i64 %acc
}
""")
    f = m.get_function("loop")
    g, vm = clone_function(f, "loop2")
    phi = g.blocks[1].instructions[0]
    assert isinstance(phi, PHINode)
    assert phi.incoming[1] == (vm[f.blocks[2].instructions[1]], g.blocks[2])
    fn = JITModule(print_module(m)).get("loop2", ctypes.c_int64, [ctypes.c_int64])
    assert fn(10) == 45
    assert g.return_type == i64


def test_clone_without_debug_locations(c_ir_debug: str) -> None:
    module = parse_module(c_ir_debug)
    norm = module.get_function("norm")
    clone, _ = clone_function(norm, "norm_nodebug", keep_debug_locations=False)
    assert any(i.get_metadata("dbg") for i in norm.instructions())
    assert not any(i.get_metadata("dbg") or i.debug_records for i in clone.instructions())
    llvm.parse_assembly(print_module(module)).verify()


def test_remap_instructions_rewrites_operands() -> None:
    m = parse_module("""
define double @k(double %a, double %b) {
  %s = fmul double %a, %a
  ret double %s
}
""")
    k = m.get_function("k")
    s = k.entry_block.instructions[0]
    remap_instructions([s], {k.args[0]: k.args[1]})
    assert s.operands == (k.args[1], k.args[1])
    assert not k.args[0].uses
    assert "%s = fmul double %b, %b" in print_function(k)
