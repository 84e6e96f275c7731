"""Reading Enzyme's registrations and annotations from IR (no compiler involved): what
each becomes, and the errors of the forms a C compiler rarely produces."""

from __future__ import annotations

import pytest

from irgrad import ir
from irgrad.ad.api.registrations import read_registrations
from irgrad.ad.core.custom_derivatives import AugmentedLayout, Role
from irgrad.ad.core.diagnostics import source_name
from irgrad.errors import DifferentiationError

_FUNCTIONS = """
define double @sq(double %x, i32 %n) { ret double %x }
define { ptr, double } @sq_aug(double %x, i32 %n, i32 %n2) { ret { ptr, double } zeroinitializer }
define double @sq_rev(double %x, i32 %n, i32 %n2, double %d, ptr %t) { ret double %d }
define double @sq_rev2(double %x, i32 %n, i32 %n2, double %d, ptr %t) { ret double %x }
define { double, double } @sq_fwd(double %x, double %dx, i32 %n) { ret { double, double } zeroinitializer }
define ptr @take(ptr %pool, i64 %bytes) { ret ptr null }
declare void @give(ptr, ptr)
declare void @trace(double)
@table = global [4 x double] zeroinitializer
@.log1p = private constant [6 x i8] c"log1p\\00"
@.args = private constant [5 x i8] c"0,-1\\00"
@.inactive = private constant [16 x i8] c"enzyme_inactive\\00", section "llvm.metadata"
@.file = private constant [4 x i8] c"x.c\\00", section "llvm.metadata"
"""


def _read(globals_text: str) -> object:
    return read_registrations(ir.parse_module(_FUNCTIONS + globals_text))


def test_every_kind_is_read() -> None:
    reg = _read("""
@__enzyme_register_gradient_sq = global [3 x ptr] [ptr @sq, ptr @sq_aug, ptr @sq_rev]
@_ZN2ns30__enzyme_register_derivative_sqE = global { ptr, ptr } { ptr @sq, ptr @sq_fwd }
@__enzyme_inactivefn3 = global ptr @trace
@__enzyme_inactive_global = global [1 x ptr] [ptr @table]
@__enzyme_allocation_like = global [4 x ptr] [ptr @take, ptr inttoptr (i64 1 to ptr), ptr @.args, ptr @give]
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @sq_fwd, ptr @.inactive, ptr @.file, i32 3, ptr null }], section "llvm.metadata"
""")
    (grad,) = reg.custom.gradients.values()  # type: ignore[attr-defined]
    assert grad.layout is AugmentedLayout.TAPE_RESULT and grad.tape_type == ir.ptr
    # the integer passed twice (Enzyme's convention), read from the arity
    assert [p.role for p in grad.augmented.params] == [Role.PRIMAL, Role.PRIMAL, Role.INT_COPY]
    assert [p.role for p in grad.reverse.params][-2:] == [Role.DRET, Role.TAPE]
    (fwd,) = reg.custom.forwards.values()  # type: ignore[attr-defined]
    assert [p.role for p in fwd.forward.params] == [Role.PRIMAL, Role.SHADOW, Role.PRIMAL]
    assert reg.inactive == {"trace", "sq_fwd"}  # type: ignore[attr-defined]
    assert reg.inactive_globals == {"table"}  # type: ignore[attr-defined]
    alloc = reg.allocators["take"]  # type: ignore[attr-defined]
    assert alloc.size_args == (1,) and alloc.free_function == "give"
    assert alloc.free_args == (0, -1) and reg.deallocators == {"give": 1}  # type: ignore[attr-defined]
    assert {"sq", "sq_aug", "sq_rev", "sq_fwd", "trace", "take", "give"} <= set(reg.preserve)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("text", "message"), [
    ("@__enzyme_register_gradient_sq = external global [3 x ptr]",
     "declared but not defined"),
    ("@__enzyme_register_gradient_sq = global [3 x ptr] zeroinitializer",
     "the function must be a function, not a null pointer"),
    ("@__enzyme_register_gradient_sq = global [4 x ptr] [ptr @sq, ptr @sq_aug, ptr @sq_rev, ptr @.args]",
     "found 4 element(s)"),
    ("@__enzyme_function_like = global [2 x ptr] [ptr @sq, ptr @table]",
     "must be a string literal, not the global variable table"),
    ("@__enzyme_function_like = global [2 x ptr] [ptr @trace, ptr @.log1p]",
     "the signatures must agree"),
    ("@__enzyme_shadow_global_table = global [2 x ptr] [ptr @table, ptr @table]",
     "irgrad does not know this Enzyme registration"),
    ("@__enzyme_register_gradient_a = global [3 x ptr] [ptr @sq, ptr @sq_aug, ptr @sq_rev]\n"
     "@__enzyme_register_gradient_b = global [3 x ptr] [ptr @sq, ptr @sq_aug, ptr @sq_rev2]",
     "sq already has a custom derivative for this mode (__enzyme_register_gradient_a)"),
])
def test_malformed(text: str, message: str) -> None:
    with pytest.raises(DifferentiationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _read(text)


def test_the_same_registration_twice_is_read_once() -> None:
    """Two units that registered the same functions (linked: the second renamed)."""
    reg = _read("""
@__enzyme_register_gradient_sq = global [3 x ptr] [ptr @sq, ptr @sq_aug, ptr @sq_rev]
@__enzyme_register_gradient_sq.unit1 = global [3 x ptr] [ptr @sq, ptr @sq_aug, ptr @sq_rev]
""")
    (grad,) = reg.custom.gradients.values()  # type: ignore[attr-defined]
    assert grad.reverse.function.name == "sq_rev"


def test_unsupported_annotation_is_located() -> None:
    text = """
@.other = private constant [23 x i8] c"enzyme_sparse_accumulate\\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @sq, ptr @.other, ptr @.file, i32 7, ptr null }], section "llvm.metadata"
"""
    with pytest.raises(DifferentiationError, match="does not support the attribute") as err:
        _read(text.replace("[23 x i8]", "[25 x i8]"))
    assert err.value.location is not None and err.value.location.line == 7


def test_user_annotations_are_left_alone() -> None:
    text = """
@.mine = private constant [6 x i8] c"hot=1\\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @sq, ptr @.mine, ptr @.file, i32 7, ptr null }], section "llvm.metadata"
"""
    reg = _read(text)
    assert not reg.preserve  # type: ignore[attr-defined]


@pytest.mark.parametrize(("mangled", "name"), [
    ("__enzyme_register_gradient_f", "__enzyme_register_gradient_f"),
    ("_ZN2ns28__enzyme_register_gradient_fE", "__enzyme_register_gradient_f"),
    ("_ZL19__enzyme_inactivefn", "__enzyme_inactivefn"),
    ("_ZN5outer5inner3regE", "reg"),
])
def test_source_names_of_mangled_globals(mangled: str, name: str) -> None:
    assert source_name(mangled) == name
