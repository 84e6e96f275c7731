"""The C library's sorting and searching calls get bodies irgrad can differentiate (a
pre-AD step, in modules that ask for derivatives).

``qsort``, glibc's ``qsort_r`` and ``bsearch`` are opaque library code that calls back the
program's comparator. Called on active data (a median, a trimmed mean, the interval of a
table lookup) they had no derivative. They have a simple one: sorting moves each element
(and its derivative) to its place, a search returns a pointer into the array it searched.
So each call becomes a call of an internal function that does the same in IR:

* ``qsort(base, n, size, cmp)`` / ``qsort_r(base, n, size, cmp, arg)``: a bottom-up merge
  sort (stable: ties keep their order, which ``qsort`` leaves unspecified) through a
  scratch block of ``n * size`` bytes, moving elements with ``memcpy`` of ``size`` bytes.
  Its derivative is AD's: the shadows move with the elements in the forward pass, the
  adjoints move back in the reverse pass, in every mode;
* ``bsearch(key, base, n, size, cmp)``: a binary search returning the element that
  compares equal (any of them, as ``bsearch`` may) or null; its shadow is the same element
  of the array's shadow.

One body per call site's comparator when it is a function of the module (called
directly, so the comparator needs no dispatch through a function pointer) and per constant
element size (its copies then have a size type analysis can lay fields over); a
comparator passed as a run-time pointer is called through it. A module that defines a
function of one of these names keeps its own. ``qsort`` and ``qsort_r`` reached through an
``invoke`` (C++ with exceptions) stay library calls.
"""

from __future__ import annotations

from irgrad import ir
from irgrad.ir.builder import IRBuilder

_I64 = ir.i64
#: library function -> number of arguments
SORT_SEARCH = {"qsort": 4, "qsort_r": 5, "bsearch": 5}


def lower_sort_search_libcalls(module: ir.Module) -> int:
    """Rewrite the ``qsort``/``qsort_r``/``bsearch`` calls of ``module`` (one that calls an
    ``__enzyme_*`` function) into calls of irgrad's bodies; how many."""
    if not any(f.name.startswith("__enzyme_") for f in module.functions
               if f.is_declaration and f.name):
        return 0
    done = 0
    for name, arity in SORT_SEARCH.items():
        fn = module.get_function(name)
        if fn is None or not fn.is_declaration or len(fn.args) != arity:
            continue
        for user in list(fn.users):
            if isinstance(user, ir.CallInst) and user.called_function is fn \
                    and len(user.args) == arity:
                _rewrite(module, user, name)
                done += 1
    return done


def _rewrite(module: ir.Module, call: ir.CallInst, name: str) -> None:
    args = list(call.args)
    cmp_at, size_at = (4, 3) if name == "bsearch" else (3, 2)
    cmp = args[cmp_at]
    direct = cmp if isinstance(cmp, ir.Function) and not cmp.is_declaration else None
    size = args[size_at]
    const_size = size.unsigned_value if isinstance(size, ir.ConstantInt) else None
    body_name = _body_name(name, direct, const_size)
    body = module.get_function(body_name) or (
        _bsearch_body if name == "bsearch" else _sort_body)(
        module, body_name, name, direct, const_size)
    b = IRBuilder(position=call)
    b.debug_loc = call.get_metadata("dbg")
    new = b.call(body, args, name=None if call.type.is_void else call.name)
    if not call.type.is_void:
        call.replace_all_uses_with(new)
    call.erase_from_parent()


def _body_name(kind: str, direct: ir.Function | None, size: int | None) -> str:
    return (f"__irgrad_{kind}.{direct.name if direct is not None else 'indirect'}"
            f".{size if size is not None else 'n'}")


def _new_body(module: ir.Module, name: str, fnty: ir.FunctionType,
              argnames: list[str]) -> ir.Function:
    fn = ir.Function(name, fnty, "internal", argnames)
    module.add_function(fn)
    return fn


def _compare(b: IRBuilder, cmp: ir.Value, direct: ir.Function | None, args: list[ir.Value],
             arity: int) -> ir.Value:
    """``cmp(args...)`` (an ``i32``), directly when the comparator is known."""
    ft = ir.FunctionType(ir.i32, [ir.ptr] * arity)
    callee = direct if direct is not None else cmp
    return b.call(callee, args[:arity], ft, name="order")


def _sort_body(module: ir.Module, name: str, kind: str, direct: ir.Function | None,
               const_size: int | None) -> ir.Function:
    """``void (ptr base, i64 n, i64 size, ptr cmp[, ptr arg])``: bottom-up merge sort."""
    with_arg = kind == "qsort_r"
    params = [ir.ptr, _I64, _I64, ir.ptr] + ([ir.ptr] if with_arg else [])
    fn = _new_body(module, name, ir.FunctionType(ir.void, params),
                   ["base", "n", "size", "cmp"] + (["arg"] if with_arg else []))
    base, n, size_arg, cmp = fn.args[:4]
    extra = [fn.args[4]] if with_arg else []
    size: ir.Value = ir.ConstantInt(_I64, const_size) if const_size is not None else size_arg
    malloc = module.get_or_insert_function("malloc", ir.FunctionType(ir.ptr, [_I64]))
    free = module.get_or_insert_function("free", ir.FunctionType(ir.void, [ir.ptr]))
    blocks = {k: fn.append_basic_block(k) for k in (
        "entry", "setup", "pass", "run", "merge", "has_right", "compare", "take_left",
        "take_right", "step", "merged", "pass_done", "finish", "copy_back", "release",
        "done")}
    zero, one = ir.ConstantInt(_I64, 0), ir.ConstantInt(_I64, 1)
    b = IRBuilder(blocks["entry"])
    b.cond_br(b.icmp("ult", n, ir.ConstantInt(_I64, 2), name="trivial"), blocks["done"],
              blocks["setup"])

    b.position_at_end(blocks["setup"])
    nbytes = b.mul(n, size, name="bytes")
    scratch = b.call(malloc, [nbytes], name="scratch")
    b.br(blocks["pass"])

    # one pass: runs of `width` sorted elements in `src` merged pairwise into `dst`
    b.position_at_end(blocks["pass"])
    width = b.phi(_I64, [(one, blocks["setup"])], name="width")
    src = b.phi(ir.ptr, [(base, blocks["setup"])], name="src")
    dst = b.phi(ir.ptr, [(scratch, blocks["setup"])], name="dst")
    twice = b.shl(width, one, name="width.next")
    b.br(blocks["run"])

    def umin(x: ir.Value, y: ir.Value, label: str) -> ir.Value:
        return b.select(b.icmp("ult", x, y), x, y, name=label)

    b.position_at_end(blocks["run"])
    lo = b.phi(_I64, [(zero, blocks["pass"])], name="lo")
    mid = umin(b.add(lo, width), n, "mid")
    span = b.add(lo, twice, name="lo.next")  # where the next pair of runs starts
    hi = umin(span, n, "hi")
    b.br(blocks["merge"])

    b.position_at_end(blocks["merge"])
    i = b.phi(_I64, [(lo, blocks["run"])], name="i")
    j = b.phi(_I64, [(mid, blocks["run"])], name="j")
    k = b.phi(_I64, [(lo, blocks["run"])], name="k")
    b.cond_br(b.icmp("ult", i, mid, name="left_left"), blocks["has_right"],
              blocks["take_right"])

    b.position_at_end(blocks["has_right"])
    b.cond_br(b.icmp("ult", j, hi, name="right_left"), blocks["compare"],
              blocks["take_left"])

    b.position_at_end(blocks["compare"])
    pi = b.gep(ir.i8, src, [b.mul(i, size)], name="pi")
    pj = b.gep(ir.i8, src, [b.mul(j, size)], name="pj")
    order = _compare(b, cmp, direct, [pi, pj, *extra], 3 if with_arg else 2)
    b.cond_br(b.icmp("sle", order, ir.ConstantInt(ir.i32, 0), name="left_first"),
              blocks["take_left"], blocks["take_right"])

    incremented = []
    for side, idx in (("take_left", i), ("take_right", j)):
        b.position_at_end(blocks[side])
        to = b.gep(ir.i8, dst, [b.mul(k, size)], name="to")
        b.memcpy(to, b.gep(ir.i8, src, [b.mul(idx, size)], name="from"), size)
        incremented.append(b.add(idx, one, name=f"{idx.name}.inc"))
        b.br(blocks["step"])

    b.position_at_end(blocks["step"])
    i2 = b.phi(_I64, [(incremented[0], blocks["take_left"]), (i, blocks["take_right"])],
               name="i.next")
    j2 = b.phi(_I64, [(j, blocks["take_left"]), (incremented[1], blocks["take_right"])],
               name="j.next")
    k2 = b.add(k, one, name="k.next")
    i.add_incoming(i2, blocks["step"])
    j.add_incoming(j2, blocks["step"])
    k.add_incoming(k2, blocks["step"])
    b.cond_br(b.icmp("ult", k2, hi), blocks["merge"], blocks["merged"])

    b.position_at_end(blocks["merged"])
    lo.add_incoming(span, blocks["merged"])
    b.cond_br(b.icmp("ult", span, n), blocks["run"], blocks["pass_done"])

    # the merged runs are in `dst`: it is the next pass's source
    b.position_at_end(blocks["pass_done"])
    width.add_incoming(twice, blocks["pass_done"])
    src.add_incoming(dst, blocks["pass_done"])
    dst.add_incoming(src, blocks["pass_done"])
    b.cond_br(b.icmp("ult", twice, n), blocks["pass"], blocks["finish"])

    b.position_at_end(blocks["finish"])
    b.cond_br(b.icmp("eq", dst, base, name="in_place"), blocks["release"],
              blocks["copy_back"])

    b.position_at_end(blocks["copy_back"])
    b.memcpy(base, dst, nbytes)
    b.br(blocks["release"])

    b.position_at_end(blocks["release"])
    b.call(free, [scratch])
    b.br(blocks["done"])

    b.position_at_end(blocks["done"])
    b.ret_void()
    return fn


def _bsearch_body(module: ir.Module, name: str, kind: str, direct: ir.Function | None,
                  const_size: int | None) -> ir.Function:
    """``ptr (ptr key, ptr base, i64 n, i64 size, ptr cmp)``: binary search."""
    fn = _new_body(module, name, ir.FunctionType(ir.ptr, [ir.ptr, ir.ptr, _I64, _I64, ir.ptr]),
                   ["key", "base", "n", "size", "cmp"])
    key, base, n, size_arg, cmp = fn.args
    size: ir.Value = ir.ConstantInt(_I64, const_size) if const_size is not None else size_arg
    blocks = {k: fn.append_basic_block(k) for k in (
        "entry", "loop", "probe", "below", "not_below", "above", "found", "missing")}
    zero, one = ir.ConstantInt(_I64, 0), ir.ConstantInt(_I64, 1)
    b = IRBuilder(blocks["entry"])
    b.br(blocks["loop"])

    b.position_at_end(blocks["loop"])
    lo = b.phi(_I64, [(zero, blocks["entry"])], name="lo")
    hi = b.phi(_I64, [(n, blocks["entry"])], name="hi")
    b.cond_br(b.icmp("ult", lo, hi, name="more"), blocks["probe"], blocks["missing"])

    b.position_at_end(blocks["probe"])
    mid = b.add(lo, b.lshr(b.sub(hi, lo), one), name="mid")
    at = b.gep(ir.i8, base, [b.mul(mid, size)], name="at")
    order = _compare(b, cmp, direct, [key, at], 2)
    b.cond_br(b.icmp("slt", order, ir.ConstantInt(ir.i32, 0)), blocks["below"],
              blocks["not_below"])

    b.position_at_end(blocks["below"])
    b.br(blocks["loop"])

    b.position_at_end(blocks["not_below"])
    b.cond_br(b.icmp("sgt", order, ir.ConstantInt(ir.i32, 0)), blocks["above"],
              blocks["found"])

    b.position_at_end(blocks["above"])
    past = b.add(mid, one, name="past")
    b.br(blocks["loop"])
    lo.add_incoming(lo, blocks["below"])
    hi.add_incoming(mid, blocks["below"])
    lo.add_incoming(past, blocks["above"])
    hi.add_incoming(hi, blocks["above"])

    b.position_at_end(blocks["found"])
    b.ret(at)
    b.position_at_end(blocks["missing"])
    b.ret(ir.ConstantPointerNull())
    return fn


__all__ = ["SORT_SEARCH", "lower_sort_search_libcalls"]
