"""Enzyme's names: the entry points (``__enzyme_autodiff``...) and the argument markers
(``enzyme_dup``...), and how they are recognized in IR.

Entry points are matched by name prefix after C++ demangling (``__enzyme_autodiff2``,
``_Z17__enzyme_autodiffIdJPdS0_EET_PvDpT0_``, a ``static`` wrapper's declaration all
count), as Enzyme matches by name. A marker is an ``int`` global the user declares and
never defines (``extern int enzyme_dup;``), passed by value (``load i32, ptr @enzyme_dup``),
by reference (``ptr @enzyme_dup``) or as a metadata string (``metadata !"enzyme_dup"``);
:func:`marker_name` reads all three. A declared global named ``enzyme_...`` that is not
one of Enzyme's markers is reported (a misspelt marker would otherwise be taken for an
argument).
"""

from __future__ import annotations

from enum import Enum

from irgrad import ir
from irgrad.ad.core.config import DerivativeMode, DiffeType
from irgrad.analysis.known_functions import unmangled_name


class EntryKind(Enum):
    """What an ``__enzyme_*`` entry point asks for."""

    AUTODIFF = ("__enzyme_autodiff", DerivativeMode.REVERSE_COMBINED)
    FWDDIFF = ("__enzyme_fwddiff", DerivativeMode.FORWARD)
    AUGMENTFWD = ("__enzyme_augmentfwd", DerivativeMode.REVERSE_PRIMAL)
    AUGMENTSIZE = ("__enzyme_augmentsize", DerivativeMode.REVERSE_PRIMAL)
    REVERSE = ("__enzyme_reverse", DerivativeMode.REVERSE_GRADIENT)
    FWDSPLIT = ("__enzyme_fwdsplit", DerivativeMode.FORWARD)
    BATCH = ("__enzyme_batch", DerivativeMode.FORWARD)
    VIRTUALREVERSE = ("__enzyme_virtualreverse", DerivativeMode.REVERSE_PRIMAL)  # a split pair
    # a loop run to a fixed point, differentiated at its converged state (the mode is
    # the enclosing derivative's)
    FIXED_POINT = ("__enzyme_fixed_point", DerivativeMode.REVERSE_COMBINED)
    SET_FIXED_POINT = ("__enzyme_set_fixed_point", DerivativeMode.REVERSE_COMBINED)
    CHECKPOINT_FOR = ("__enzyme_checkpoint_for", DerivativeMode.REVERSE_COMBINED)
    CHECKPOINT_WHILE = ("__enzyme_checkpoint_while", DerivativeMode.REVERSE_COMBINED)
    # Enzyme's entry points beyond differentiation: recognized to be refused
    TRUNCATE = ("__enzyme_truncate", DerivativeMode.FORWARD)
    EXPAND = ("__enzyme_expand", DerivativeMode.FORWARD)
    ERROR_ESTIMATE = ("__enzyme_error_estimate", DerivativeMode.FORWARD)
    TRACE = ("__enzyme_trace", DerivativeMode.FORWARD)
    CONDITION = ("__enzyme_condition", DerivativeMode.FORWARD)
    SAMPLE = ("__enzyme_sample", DerivativeMode.FORWARD)
    OBSERVE = ("__enzyme_observe", DerivativeMode.FORWARD)
    TODENSE = ("__enzyme_todense", DerivativeMode.FORWARD)

    @property
    def prefix(self) -> str:
        return self.value[0]

    @property
    def mode(self) -> DerivativeMode:
        return self.value[1]


# longest prefixes first: __enzyme_augmentsize before __enzyme_augmentfwd (no overlap
# today, but a future __enzyme_autodiff_x must not shadow a longer entry point)
_KINDS = sorted(EntryKind, key=lambda k: -len(k.prefix))

# -- markers -------------------------------------------------------------------------------
ACTIVITY_MARKERS = {
    "enzyme_dup": DiffeType.DUP,
    "enzyme_dupnoneed": DiffeType.DUP_NONEED,
    "enzyme_out": DiffeType.OUT,
    "enzyme_const": DiffeType.CONST,
}
# enzyme_not_overwritten, and Enzyme's newer spelling of the same promise
NOT_OVERWRITTEN_MARKERS = ("enzyme_not_overwritten", "enzyme_nocache")
# activity + one integer (the byte stride between the shadows of the lanes)
STRIDED_MARKERS = {"enzyme_dupv": DiffeType.DUP, "enzyme_dupnoneedv": DiffeType.DUP_NONEED}
# how the return value takes part
RETURN_MARKERS = {
    "enzyme_const_return": DiffeType.CONST,
    "enzyme_active_return": DiffeType.OUT,
    "enzyme_dup_return": DiffeType.DUP,
}
FLAG_MARKERS = ("enzyme_primal_return", "enzyme_noret", "enzyme_nofree",
                "enzyme_not_overwritten", "enzyme_nocache", "enzyme_interleave",
                "enzyme_runtime_activity")  # the last: always on in irgrad
VALUE_MARKERS = ("enzyme_width", "enzyme_tape", "enzyme_allocated", "enzyme_byref")
BATCH_MARKERS = ("enzyme_scalar", "enzyme_vector", "enzyme_buffer")
# __enzyme_fixed_point's (enzyme/fixed_point.h); enzyme_scheme: __enzyme_checkpoint_for's
FIXED_POINT_MARKERS = ("enzyme_fp_state", "enzyme_fp_reduction", "enzyme_fp_max_iters",
                       "enzyme_fp_control", "enzyme_checkpoint_region", "enzyme_scheme")
# Enzyme markers irgrad does not implement: an error, never ignored
UNSUPPORTED_MARKERS = {
    "enzyme_interface": "probabilistic programming (enzyme_interface) is not supported",
    "enzyme_trace": "probabilistic programming (enzyme_trace) is not supported",
    "enzyme_duptrace": "probabilistic programming (enzyme_duptrace) is not supported",
    "enzyme_likelihood": "probabilistic programming (enzyme_likelihood) is not supported",
    "enzyme_duplikelihood": "probabilistic programming (enzyme_duplikelihood) is not "
    "supported",
    "enzyme_observations": "probabilistic programming (enzyme_observations) is not "
    "supported",
    "enzyme_active_rand_var": "probabilistic programming (enzyme_active_rand_var) is not "
    "supported",
}
MARKER_NAMES = frozenset([*ACTIVITY_MARKERS, *STRIDED_MARKERS, *RETURN_MARKERS,
                          *FLAG_MARKERS, *VALUE_MARKERS, *BATCH_MARKERS,
                          *FIXED_POINT_MARKERS, *UNSUPPORTED_MARKERS])


def _global_marker(gv: ir.GlobalVariable) -> str | None:
    if gv.name in MARKER_NAMES:
        return gv.name
    if gv.name.startswith("enzyme_") and gv.is_declaration:
        return gv.name  # an unknown marker: reported by the parser
    return None


def marker_name(value: ir.Value) -> str | None:
    """The marker a call argument stands for (``load i32, ptr @enzyme_dup``, ``ptr
    @enzyme_dup`` or ``metadata !"enzyme_dup"``), or None for an ordinary argument."""
    if isinstance(value, ir.LoadInst):
        value = value.pointer
    if isinstance(value, ir.GlobalVariable):
        return _global_marker(value)
    if isinstance(value, ir.MetadataAsValue):
        raw = value.raw.strip()
        if raw.startswith('!"') and raw.endswith('"') and raw[2:-1].startswith("enzyme_"):
            return raw[2:-1]
    return None


def entry_kind(name: str) -> EntryKind | None:
    """The entry point a function name stands for (None: not an ``__enzyme_*`` entry)."""
    if "__enzyme_" not in name:
        return None
    base = unmangled_name(name)
    return next((k for k in _KINDS if base.startswith(k.prefix)), None)


def entry_mode(name: str) -> DerivativeMode | None:
    """The derivative mode an ``__enzyme_*`` entry point asks for (None: not an entry)."""
    kind = entry_kind(name)
    return kind.mode if kind is not None else None


def strip_casts(value: ir.Value) -> ir.Value:
    """``value`` without bitcasts, address-space casts, int/ptr round trips and aliases
    (the function argument of an ``__enzyme_*`` call)."""
    while True:
        if isinstance(value, ir.ConstantExpr) and value.opcode in (
            "bitcast", "addrspacecast", "ptrtoint", "inttoptr"
        ):
            value = value.operands[0]
        elif isinstance(value, ir.CastInst) and value.opcode in (
            "bitcast", "addrspacecast", "ptrtoint", "inttoptr"
        ):
            value = value.value
        elif isinstance(value, ir.GlobalAlias) and not isinstance(value, ir.GlobalIFunc):
            value = value.aliasee
        else:
            return value


def enzyme_calls(module: ir.Module) -> list[tuple[ir.CallBase, EntryKind]]:
    """Every call of an ``__enzyme_*`` entry point, with what it asks for."""
    found: list[tuple[ir.CallBase, EntryKind]] = []
    for fn in list(module.functions):
        kind = entry_kind(fn.name)
        if kind is None:
            continue
        for use in list(fn.uses):
            user = use.user
            if isinstance(user, ir.CallBase) and user.callee is fn:
                found.append((user, kind))
    return found


def remove_markers(module: ir.Module) -> None:
    """Erase marker loads (now unused) and the marker / entry point declarations."""
    for gv in list(module.globals):
        if not isinstance(gv, ir.GlobalVariable) or _global_marker(gv) is None:
            continue
        for use in list(gv.uses):
            user = use.user
            if isinstance(user, ir.LoadInst) and not user.uses:
                user.erase_from_parent()
        if not gv.uses and gv.is_declaration:
            module.remove_global(gv)
    for fn in list(module.functions):
        if entry_kind(fn.name) is not None and fn.is_declaration and not fn.uses:
            module.remove_function(fn)


def describe(activity: DiffeType) -> str:
    return {
        DiffeType.DUP: "enzyme_dup",
        DiffeType.DUP_NONEED: "enzyme_dupnoneed",
        DiffeType.OUT: "enzyme_out",
        DiffeType.CONST: "enzyme_const",
    }[activity]
