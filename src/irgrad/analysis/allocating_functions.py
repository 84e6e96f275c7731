"""Functions that return fresh heap memory: allocator wrappers that are not inlined.

Real code allocates through its own helpers -- ``xmalloc``, an aligned allocator that
rounds the address up by hand (Eigen's ``conditional_aligned_new_auto`` at -O0), a
``new_vector(n)`` -- and each call's result is memory the caller fills with active data.
A call of such a function is an allocation for activity analysis, as ``malloc`` is: its
result has a shadow (the callee's derivative returns it).

A function returns fresh memory when every value it returns is null or is based on an
allocation it makes: a known allocator's result, or the result of another function that
returns fresh memory (called directly, or through a pointer that can only hold it), reached through GEPs, casts, phis and selects and through integer
address arithmetic (``inttoptr((ptrtoint(p) & -64) + 64)``).
"""

from __future__ import annotations

from irgrad import ir
from irgrad.analysis.function_pointers import single_callee
from irgrad.analysis.known_functions import callee_name, is_allocation

_MAX_DEPTH = 64
_ADDRESS_OPS = ("add", "sub", "and", "or", "xor")

FreshMemo = dict[ir.Function, "bool | None"]  # None while being decided (recursion: no)


def returns_fresh_allocation(fn: ir.Function | None, memo: FreshMemo | None = None) -> bool:
    """True when every pointer ``fn`` returns is null or fresh heap memory it allocates
    (``memo`` caches answers for one analysis)."""
    if fn is None or fn.is_declaration or not fn.return_type.is_pointer:
        return False
    memo = {} if memo is None else memo
    if fn in memo:
        return bool(memo[fn])
    memo[fn] = None
    answer = False
    rets = [i for i in fn.instructions() if isinstance(i, ir.ReturnInst)]
    if rets:
        seen: set[ir.Value] = set()
        answer = all(r.value is not None and _fresh(r.value, seen, 0, memo) for r in rets)
    memo[fn] = answer
    return answer


def _fresh(v: ir.Value, seen: set[ir.Value], depth: int, memo: FreshMemo) -> bool:
    if v in seen:
        return True  # a cycle through phis: decided by the other incoming values
    if depth > _MAX_DEPTH:
        return False
    seen.add(v)
    if isinstance(v, ir.ConstantPointerNull):
        return True
    if isinstance(v, ir.CallBase):
        if is_allocation(callee_name(v)):
            return True
        callee = v.called_function
        if callee is None:  # through a pointer that can hold one function (made direct in
            got = single_callee(v)  # the copy the AD engine differentiates)
            if got is None:
                return False
            callee = got[0]
            if is_allocation(callee.name):
                return True
        return returns_fresh_allocation(callee, memo)
    if isinstance(v, ir.GetElementPtrInst):
        return _fresh(v.pointer, seen, depth + 1, memo)
    if isinstance(v, ir.CastInst) and v.opcode in ("bitcast", "addrspacecast", "inttoptr",
                                                   "ptrtoint"):
        return _fresh(v.value, seen, depth + 1, memo)
    if isinstance(v, ir.BinaryOperator) and v.opcode in _ADDRESS_OPS:
        a, b = v.operands
        if isinstance(b, ir.Constant):
            return _fresh(a, seen, depth + 1, memo)
        if isinstance(a, ir.Constant) and v.opcode != "sub":
            return _fresh(b, seen, depth + 1, memo)
        return False
    if isinstance(v, ir.PHINode):
        return all(_fresh(x, seen, depth + 1, memo) for x, _ in v.incoming)
    if isinstance(v, ir.SelectInst):
        return (_fresh(v.true_value, seen, depth + 1, memo)
                and _fresh(v.false_value, seen, depth + 1, memo))
    return False


__all__ = ["FreshMemo", "returns_fresh_allocation"]
