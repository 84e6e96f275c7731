"""Global activity of mutable globals whose address escapes: a global through which no
floating-point value can be reached (a message log of strings) stays inactive; any way a
float could get there keeps it active (irgrad.analysis.type_reach)."""

from __future__ import annotations

import pytest

from irgrad import ir
from irgrad.analysis.global_activity import global_activity

# @log is a {ptr, ptr, ptr} (a vector's three pointers); @append(ptr %v, ...) is not
# inlined: it allocates a block, stores it into the vector and writes into it. @f is
# differentiated.
_MODULE = """
@log = global {{ ptr, ptr, ptr }} zeroinitializer
@text = private constant [4 x i8] c"abc\\00"

declare ptr @malloc(i64)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @opaque(ptr)

define void @append(ptr %v, ptr %extra) {{
entry:
  %block = call ptr @malloc(i64 64)
  store ptr %block, ptr %v
  {body}
  ret void
}}

define double @f(double %x) {{
entry:
  %tmp = alloca [2 x double]
  store double %x, ptr %tmp
  call void @append(ptr @log, ptr %tmp)
  %y = fmul double %x, %x
  ret double %y
}}
"""

CASES = {
    # characters and counts only
    "characters": ("""call void @llvm.memcpy.p0.p0.i64(ptr %block, ptr @text, i64 4, i1 false)
  %n = getelementptr i8, ptr %block, i64 8
  store i64 4, ptr %n""", False),
    "string_pointer": ("""%p = getelementptr i8, ptr %block, i64 16
  store ptr %p, ptr %block
  %q = load ptr, ptr %block
  store i8 7, ptr %q""", False),
    # a float stored through a pointer reachable from @log
    "double_store": ("store double 1.0, ptr %block", True),
    "double_load": ("%d = load double, ptr %block", True),
    # a float's bits as an integer
    "float_bits": ("""%b = bitcast double 2.0 to i64
  %c = add i64 %b, 0
  store i64 %c, ptr %block""", True),
    # the caller's array of doubles copied in, as bytes
    "copied_in": ("call void @llvm.memcpy.p0.p0.i64(ptr %block, ptr %extra, i64 16, i1 false)",
                  True),
    # an integer loaded from the caller's doubles stored in
    "integer_copy": ("""%i = load i64, ptr %extra
  store i64 %i, ptr %block""", True),
    # the address of the caller's doubles stored into the block
    "pointer_to_doubles": ("store ptr %extra, ptr %block", True),
    # a function irgrad does not know receives the block
    "unknown_callee": ("call void @opaque(ptr %block)", True),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_escaping_global_active_only_when_a_float_can_reach_it(case: str) -> None:
    body, active = CASES[case]
    module = ir.parse_module(_MODULE.format(body=body), lazy=False)
    f = module.get_function("f")
    assert f is not None
    got = global_activity(module, [f])
    names = {g.name for g in got.active}
    assert ("log" in names) is active, (case, names)
    if not active:
        assert {g.name for g in got.float_free} == {"log"}


def test_a_global_holding_floats_stays_active() -> None:
    text = _MODULE.replace("{{ ptr, ptr, ptr }}", "{{ ptr, double }}").format(body="")
    module = ir.parse_module(text, lazy=False)
    f = module.get_function("f")
    assert f is not None
    assert "log" in {g.name for g in global_activity(module, [f]).active}
