"""One copy of the user's mutable globals, shared by the primal and every derivative.

Each derivative is its own shared library built from the whole module. If every library
had its own copy of ``static double weights[4]``, then ``lib["set_weights"](w)`` followed
by ``lib.gradient("f")`` would differentiate with zero weights: a silently wrong
derivative. Instead:

* before the primal library is built, every mutable global variable the module defines is
  renamed to ``__irgrad_<key>_<name>`` (unique: never bound to a symbol of another
  library) and given external linkage, so the primal library exports it;
* in a derivative's module those definitions become ``external global`` declarations;
  the derivative library is linked against the primal library (DT_NEEDED by its unique
  soname) and uses the primal's storage.

Read-only globals (``constant``) and thread-local ones stay private copies. The user's
functions are internal in a derivative's module: it exports only its wrapper.
"""

from __future__ import annotations

import re
from typing import Any

_GLOBAL_LINE = re.compile(r'^(@(?:"[^"]+"|[\w.$-]+)) = ([^\n]*?)\b(global|constant) ', re.M)
_SKIP = ("thread_local", "addrspace", "external", "extern_weak", "appending")


def _mutable_globals(text: str) -> set[str]:
    """Names of the mutable global variables ``text`` defines (not declarations)."""
    found = set()
    for m in _GLOBAL_LINE.finditer(text):
        prefix = m.group(2)
        if m.group(3) != "global" or any(word in prefix for word in _SKIP):
            continue
        if "llvm." in m.group(1) or "__enzyme_" in m.group(1):
            continue  # LLVM's own and Enzyme's registrations (AD reads their initializers)
        found.add(m.group(1)[1:].strip('"'))
    return found


def export_globals(module: Any, text: str, key: str) -> list[tuple[str, str]]:
    """Rename and externalize ``module``'s mutable globals (in place).

    Returns (new name, LLVM type) of each, for :func:`declare_globals`.
    """
    import llvmlite.binding as llvm

    mutable = _mutable_globals(text)
    shared: list[tuple[str, str]] = []
    for gv in module.global_variables:
        if gv.is_declaration or gv.name not in mutable:
            continue
        gv.name = f"__irgrad_{key[:12]}_{gv.name}"
        gv.linkage = llvm.Linkage.external
        gv.visibility = llvm.Visibility.default
        shared.append((gv.name, str(gv.global_value_type)))
    return shared


def declare_globals(text: str, shared: list[tuple[str, str]]) -> str:
    """``text`` with the definitions of ``shared`` globals replaced by declarations."""
    if not shared:
        return text
    types = dict(shared)

    def replace(m: re.Match[str]) -> str:
        name = m.group(1)[1:].strip('"')
        if name not in types:
            return m.group(0)
        return f"{m.group(1)} = external global {types[name]}<<EOL>>"

    lines = []
    for line in text.split("\n"):
        if line.startswith("@"):
            new = _GLOBAL_LINE.sub(replace, line, count=1)
            if "<<EOL>>" in new:
                line = new.split("<<EOL>>")[0]
        lines.append(line)
    return "\n".join(lines)


def derivative_module(text: str, shared: list[tuple[str, str]], filename: str) -> str:
    """The module a derivative is built from: shared globals declared, and every
    external function made internal (the derivative library exports only its wrapper;
    what the derivative does not call is deleted by the optimizer instead of being
    compiled again)."""
    import llvmlite.binding as llvm

    from irgrad.llvm.load import parse_llvm

    module = parse_llvm(declare_globals(text, shared), filename)
    for fn in module.functions:
        if not fn.is_declaration and fn.linkage == llvm.Linkage.external:
            fn.linkage = llvm.Linkage.internal
    return str(module)


__all__ = ["declare_globals", "derivative_module", "export_globals"]
