"""Round trip of numba's LLVM IR (the module before its final optimization)."""

from __future__ import annotations

import numba
import numpy as np
from ir_helpers import check_roundtrip

from irgrad import ir


def test_numba_module_roundtrip() -> None:
    @numba.njit
    def kernel(x: np.ndarray, y: float) -> float:
        s = 0.0
        for i in range(x.shape[0]):
            s += np.sin(x[i]) * y
        return s

    assert kernel(np.ones(3), 2.0) == 3 * np.sin(1.0) * 2.0
    lib = kernel.overloads[kernel.signatures[0]].library
    text = lib.get_llvm_str()
    out = check_roundtrip(text, "numba.ll")
    m = ir.parse_module(out, lazy=False)
    assert any(f.name.startswith("_ZN") and not f.is_declaration for f in m.functions)
