"""Derivatives of numba ``@njit`` functions (``irgrad.grad``, ``irgrad.vjp``, ``irgrad.jvp``).

The public names are exported by :mod:`irgrad` itself; this package holds their modules,
each importing only those listed before it. ``import numba`` inside it is the real numba
(imports are absolute).

- ``capture``: numba's LLVM module before its final optimization (codegen hooks);
- ``abi``: the C-ABI wrappers appended to that module, which call Enzyme's entry points;
- ``nrt``: numba's runtime allocation replaced by calloc and an arena;
- ``codegen``: the ``@njit`` adapters that call the compiled wrappers;
- ``build``: one (function, signature, mode) through irgrad's pipeline into a JIT;
- ``api``: ``grad``, ``vjp``, ``jvp`` and the derivative object they return.
"""
