"""numba's runtime (NRT) memory in a module to differentiate: calloc and an arena.

Arrays a numba function allocates (``np.empty``, ``np.exp(x)``, ``x * y`` ...) come from
``NRT_MemInfo_alloc_aligned``, an external function returning a *meminfo*::

    struct MemInfo { i64 refct; ptr dtor; ptr dtor_info; ptr data; i64 size; ptr ext; }

and are released by ``NRT_decref``. AD cannot see through the external allocator, so
before differentiation the module's NRT allocation is replaced by IR that irgrad
understands: the meminfo and the data are two ``calloc`` blocks. AD gives each a zeroed
shadow of the same size (also a ``calloc``); the shadow meminfo's ``data`` field holds
the shadow data, so the shadow of ``mi->data`` is the shadow array. ``NRT_incref`` and
``NRT_decref`` do nothing: nothing is freed while the derivative runs (the reverse pass
may still read primal temporaries). After AD, :func:`use_arena` routes every ``calloc``
through an arena that the wrappers release (``irgrad_nb_release``) when the derivative
returns. Peak memory is therefore every temporary of one call, primal and shadow.

The replacement is only used inside derivative modules: every meminfo there is either null
(the wrappers pass arrays without one) or allocated by this code, and nothing escapes to
numba (functions returning arrays are rejected).
"""

from __future__ import annotations

import re

RELEASE = "irgrad_nb_release"
ACQUIRE = "irgrad_nb_acquire"
_ALLOC_NAMES = (
    "NRT_MemInfo_alloc_aligned", "NRT_MemInfo_alloc_safe_aligned",
    "NRT_MemInfo_alloc", "NRT_MemInfo_alloc_safe",
)  # fmt: skip

_INCREF = """
define internal void @NRT_incref(ptr %mi) alwaysinline {
entry:
  ret void
}
"""

_DECREF = """
define internal void @NRT_decref(ptr %mi) alwaysinline {
entry:
  ret void
}
"""


def _alloc(name: str, aligned: bool) -> str:
    params = "i64 %size, i32 %align" if aligned else "i64 %size"
    return f"""
define internal ptr @{name}({params}) alwaysinline {{
entry:
  %mi = call ptr @calloc(i64 48, i64 1)
  %data = call ptr @calloc(i64 %size, i64 1)
  store i64 1, ptr %mi, align 8
  %f3 = getelementptr i8, ptr %mi, i64 24
  store ptr %data, ptr %f3, align 8
  %f4 = getelementptr i8, ptr %mi, i64 32
  store i64 %size, ptr %f4, align 8
  ret ptr %mi
}}
"""


# raw NRT memory (numba's exception arguments, built when a `raise` has dynamic values):
# calloc blocks in the arena as well, so a value stored there has a shadow to go to
_RAW = {
    "NRT_Allocate": "define internal ptr @NRT_Allocate(i64 %size) alwaysinline {\n"
                    "entry:\n  %p = call ptr @calloc(i64 %size, i64 1)\n  ret ptr %p\n}\n",
    "NRT_Allocate_External": "define internal ptr @NRT_Allocate_External(i64 %size, ptr %a) "
                             "alwaysinline {\nentry:\n  %p = call ptr @calloc(i64 %size, i64 1)"
                             "\n  ret ptr %p\n}\n",
    "NRT_Free": "define internal void @NRT_Free(ptr %p) alwaysinline {\nentry:\n  ret void\n}\n",
}


def _remove_function(text: str, name: str) -> tuple[str, bool]:
    """``text`` without the definition or declaration of ``@name`` (and whether found)."""
    sym = rf'@(?:{re.escape(name)}|"{re.escape(name)}")\('
    define = re.compile(rf"^define [^\n]*{sym}[^\n]*\{{\n.*?^\}}\n", re.M | re.S)
    text, n = define.subn("", text)
    declare = re.compile(rf"^declare [^\n]*{sym}[^\n]*\n", re.M)
    text, m = declare.subn("", text)
    return text, bool(n or m)


def _declares(text: str, name: str) -> bool:
    return re.search(rf"^(declare|define) [^\n]*@{re.escape(name)}\(", text, re.M) is not None


def replace_nrt_memory(text: str) -> str:
    """Module text with NRT allocation / reference counting replaced (see module doc)."""
    extra: list[str] = []
    for name, body in (("NRT_incref", _INCREF), ("NRT_decref", _DECREF)):
        text, found = _remove_function(text, name)
        if found:
            extra.append(body)
    for name in _ALLOC_NAMES:
        text, found = _remove_function(text, name)
        if found:
            extra.append(_alloc(name, aligned="aligned" in name))
    for name, body in _RAW.items():
        text, found = _remove_function(text, name)
        if found:
            extra.append(body)
    if not _declares(text, "calloc"):
        extra.append("declare noalias ptr @calloc(i64, i64)")
    extra.append(f"declare void @{RELEASE}()")
    extra.append(f"declare void @{ACQUIRE}()")
    return text + "\n" + "\n".join(extra) + "\n"


_ARENA = """
@irgrad_nb_lock = internal global i32 0
@irgrad_nb_arena = internal global ptr null
@irgrad_nb_arena_len = internal global i64 0
@irgrad_nb_arena_cap = internal global i64 0

define internal ptr @irgrad_nb_calloc(i64 %n, i64 %size) {
entry:
  %p = call ptr @calloc(i64 %n, i64 %size)
  %len = load i64, ptr @irgrad_nb_arena_len, align 8
  %cap = load i64, ptr @irgrad_nb_arena_cap, align 8
  %arr0 = load ptr, ptr @irgrad_nb_arena, align 8
  %full = icmp eq i64 %len, %cap
  br i1 %full, label %grow, label %push
grow:
  %twice = shl i64 %cap, 1
  %newcap = add i64 %twice, 64
  %bytes = shl i64 %newcap, 3
  %arr1 = call ptr @realloc(ptr %arr0, i64 %bytes)
  store ptr %arr1, ptr @irgrad_nb_arena, align 8
  store i64 %newcap, ptr @irgrad_nb_arena_cap, align 8
  br label %push
push:
  %arr = phi ptr [ %arr0, %entry ], [ %arr1, %grow ]
  %slot = getelementptr ptr, ptr %arr, i64 %len
  store ptr %p, ptr %slot, align 8
  %len1 = add i64 %len, 1
  store i64 %len1, ptr @irgrad_nb_arena_len, align 8
  ret ptr %p
}

define internal void @irgrad_nb_release() {
entry:
  %len = load i64, ptr @irgrad_nb_arena_len, align 8
  %arr = load ptr, ptr @irgrad_nb_arena, align 8
  %empty = icmp eq i64 %len, 0
  br i1 %empty, label %done, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %slot = getelementptr ptr, ptr %arr, i64 %i
  %p = load ptr, ptr %slot, align 8
  call void @free(ptr %p)
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, %len
  br i1 %more, label %loop, label %done
done:
  store i64 0, ptr @irgrad_nb_arena_len, align 8
  store atomic i32 0, ptr @irgrad_nb_lock release, align 4
  ret void
}

define internal void @irgrad_nb_acquire() {
entry:
  br label %try
try:
  %r = cmpxchg ptr @irgrad_nb_lock, i32 0, i32 1 acquire monotonic, align 4
  %ok = extractvalue { i32, i1 } %r, 1
  br i1 %ok, label %done, label %wait
wait:
  %y = call i32 @sched_yield()
  br label %try
done:
  ret void
}
"""

_CALLOC_CALL = re.compile(r"@calloc\(")
_RELEASE_DECL = re.compile(rf"^declare [^\n]*@(?:{RELEASE}|{ACQUIRE})\(\)[^\n]*\n", re.M)
_ARENA_CALLOC_DECL = re.compile(r"^declare [^\n]*@irgrad_nb_calloc\([^\n]*\n", re.M)


def use_arena(text: str) -> str:
    """Module text after AD: every ``calloc`` (the NRT allocations above and the shadows
    AD made for them) goes through an arena that ``irgrad_nb_release`` frees.

    Nothing in a derivative module frees what NRT allocated (``NRT_decref`` does nothing),
    so primal values stay readable during the reverse pass; the wrappers release the
    arena when the derivative returns. (The AD tape uses malloc/realloc/free, never
    calloc.) The arena is a module global, so the wrappers hold a spin lock
    (``irgrad_nb_acquire``, released by ``irgrad_nb_release``): one derivative call at a
    time per module; other threads wait.
    """
    if RELEASE not in text:
        return text
    text = _CALLOC_CALL.sub("@irgrad_nb_calloc(", text)
    text = _ARENA_CALLOC_DECL.sub("", text)
    text = _RELEASE_DECL.sub("", text)
    extra = [_ARENA]
    for name, decl in (("calloc", "declare noalias ptr @calloc(i64, i64)"),
                       ("realloc", "declare noalias ptr @realloc(ptr, i64)"),
                       ("free", "declare void @free(ptr)"),
                       ("sched_yield", "declare i32 @sched_yield()")):
        if not _declares(text, name):
            extra.append(decl)
    return text + "\n" + "\n".join(extra) + "\n"
