"""The Python API: ``irgrad.compile``, :class:`Library`, derivatives of compiled functions.

The public names are exported by :mod:`irgrad` itself (``irgrad.compile``,
``irgrad.Library``, ``irgrad.Active`` ...); this package holds their modules, each
importing only those listed before it:

- ``annotations``: ``Active``/``Const``/``Duplicated``/``DuplicatedNoNeed``, the activity
  of an argument given in Python (Enzyme's argument markers);
- ``signature``: C-ABI signatures of a module's functions, from debug info;
- ``wrappers``: the C-ABI wrapper (LLVM IR) that asks for one derivative;
- ``callables``: calling compiled functions and derivative wrappers through ctypes;
- ``disk_cache``: the on-disk cache of compiled libraries;
- ``native``: IR text through irgrad's pipeline to a loaded shared library;
- ``shared_globals``: one copy of the user's mutable globals, in the primal library;
- ``derivatives``: ``autodiff``/``fwddiff``/``gradient``/``vjp``/``jvp`` on NumPy values;
- ``library``: ``compile``, ``compile_c`` and :class:`Library`, which ties them together.
"""
