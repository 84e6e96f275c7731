"""Input functions (``sscanf``, ``fgets``, ``fread``...) and what they write into each
destination argument: for the scanf family,
the conversions of its format string (``"%d %lf %31s"``: an ``int``, a ``double``,
characters); for ``fread``/``read``, raw bytes of a size given by the arguments.

Derivatives need it in one place: the destinations receive data read from text or a
file, which carries no derivative, so a destination that has a shadow must have the
floating-point values there replaced by zeros (:mod:`irgrad.ad.forward.input_calls`)."""

from __future__ import annotations

import re

from irgrad import ir

# Input functions: what they write into their destination arguments is read from text or
# a file, never a derivative; the first destination argument (the scanf family writes
# every argument after its format). They are inactive when no destination is memory
# that carries derivatives (analysis.local_memory.local_writes counts them as writes of
# inactive data); parsing into active memory stays an error (its shadow would keep the
# adjoint of the value it replaced).
INPUT_FUNCTIONS: dict[str, int] = {
    "sscanf": 2, "__isoc99_sscanf": 2, "fscanf": 2, "__isoc99_fscanf": 2, "scanf": 1,
    "__isoc99_scanf": 1, "fgets": 0, "fread": 0, "read": 1,
}  # fmt: skip


def input_destination(name: str | None, index: int) -> bool:
    """Is argument ``index`` of a call of ``name`` a destination of an input function?"""
    first = INPUT_FUNCTIONS.get(name or "")
    if first is None:
        return False
    single = name in ("fgets", "fread", "read")
    return index == first if single else index >= first

# %[*][width][length]conversion; %[...] scansets; %% is a literal percent
_CONVERSION = re.compile(r"%(\*?)(\d*)(hh|h|ll|l|L|j|z|t|q)?(\[\^?\]?[^\]]*\]|[a-zA-Z%])")
_FLOATS = {"": ir.float_, "l": ir.double, "L": ir.x86_fp80, "q": ir.x86_fp80}


def format_string(v: ir.Value) -> str | None:
    """The text of a constant C string argument (a global's initializer), or None."""
    base = v
    while isinstance(base, ir.GetElementPtrInst | ir.ConstantExpr) and base.operands:
        if any(not (isinstance(i, ir.ConstantInt) and i.value == 0) for i in base.operands[1:]):
            return None
        base = base.operands[0]
    if isinstance(base, ir.GlobalVariable) and isinstance(base.initializer,
                                                          ir.ConstantDataString):
        return base.initializer.data.split(b"\0", 1)[0].decode("latin-1")
    return None


def scanned_floats(call: ir.CallBase, name: str) -> dict[int, ir.Type] | None:
    """For a scanf-family call: argument index -> the floating-point type its conversion
    stores (``%lf``: double); None when the format is not a constant."""
    first = INPUT_FUNCTIONS[name]
    fmt = format_string(call.args[first - 1])
    if fmt is None:
        return None
    out: dict[int, ir.Type] = {}
    k = first
    for m in _CONVERSION.finditer(fmt):
        suppressed, _width, length, conv = m.groups()
        if conv == "%" or suppressed:
            continue
        if conv in "fFeEgGaA":
            out[k] = _FLOATS.get(length or "", ir.double)
        k += 1
    return out


__all__ = ["INPUT_FUNCTIONS", "format_string", "input_destination", "scanned_floats"]
