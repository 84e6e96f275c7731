"""Derivatives of numba ``@njit`` functions: ``irgrad.grad``, ``irgrad.vjp``, ``irgrad.jvp``.

The analogue of Enzyme.jl for numba: the function's LLVM module is taken before numba's
final optimization, irgrad appends C-ABI wrappers that call Enzyme's entry points on it
(:mod:`irgrad.numba.abi`), and the module goes through irgrad's pipeline into a JIT
(:mod:`irgrad.numba.build`). The derivative is called through a ctypes pointer from a
small ``@njit`` adapter (:mod:`irgrad.numba.codegen`), so it is callable from Python
and from other ``@njit`` functions::

    @numba.njit
    def f(x, y):                      # x: float64 array, y: float64
        return np.sum(np.sin(x)) * y

    dfdx, dfdy = irgrad.grad(f)(x, 2.0)
    (dx, dy) = irgrad.vjp(f)((x, 2.0), 1.0, (np.zeros_like(x), 0.0))
    value, dvalue, (tx, ty) = irgrad.jvp(f)((x, 2.0), (np.ones_like(x), 0.0))

Supported arguments: float64 and float32 scalars (active), C-contiguous float64 and
float32 arrays of any rank (duplicated: shadow of the same shape and dtype), integer and
boolean scalars (constant); ``grad(f, argnums=...)`` makes the floats and arrays it does
not select constant (JAX's convention for the result). F-order and strided arrays go
to the derivative as C-contiguous copies (written back afterwards when writable).
Anything else (int arrays, 0-d arrays, tuples, ...) is a
:class:`~irgrad.errors.UsageError` naming the argument. ``f`` returns a float64 (grad,
vjp, jvp), a C-contiguous float64 array (vjp: ``ct_return`` is an array of its shape;
jvp: ``value`` and ``value_tangent`` are arrays, and ``f`` runs once more first to learn
the shape) or None (vjp/jvp of functions that only write into array arguments). Arrays
the function allocates itself (``np.empty``, ``np.exp(x)``, ``x * y``) are differentiated
through (NRT allocation becomes calloc + an arena, :mod:`irgrad.numba.nrt`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from irgrad.errors import UsageError
from irgrad.numba.build import build, build_gradient_of_gradient, kinds_of
from irgrad.numba.codegen import forward_source, reverse_source

_counter = itertools.count()
_MODES = ("grad", "vjp", "jvp")


def _py_func(func: Any) -> Callable[..., Any]:
    from numba.core.dispatcher import Dispatcher

    if isinstance(func, NumbaDerivative):  # grad(grad(f)): the arguments are f's
        return func.py_func
    if isinstance(func, Dispatcher):
        return func.py_func  # type: ignore[no-any-return]
    if callable(func):
        return func  # type: ignore[no-any-return]
    raise UsageError(f"irgrad.grad/vjp/jvp need a numba @njit function, got {func!r}")


def _arity(py_func: Callable[..., Any]) -> int:
    import inspect

    params = inspect.signature(py_func).parameters.values()
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY) for p in params):
        raise UsageError(f"{py_func.__name__}: irgrad needs a function with positional "
                         "parameters only (no *args, **kwargs or keyword-only parameters)")
    return len(params)


class NumbaDerivative:
    """``grad(f)``, ``vjp(f)`` or ``jvp(f)``: callable from Python and from ``@njit`` code.

    Inside ``@njit`` code the object is typed as its numba dispatcher (``.dispatcher``);
    from Python, arguments are checked first so a wrong type is a UsageError.
    """

    def __init__(self, func: Any, mode: str, opt_level: int = 2,
                 argnums: int | tuple[int, ...] | None = None) -> None:
        if mode not in _MODES:
            raise UsageError(f"unknown derivative kind {mode!r}, expected one of {_MODES}")
        self.argnums = argnums
        self.inner = func if isinstance(func, NumbaDerivative) else None
        if self.inner is not None and (mode != "grad" or self.inner.mode != "grad"):
            raise UsageError("irgrad differentiates a derivative only as grad(grad(f))")
        if self.inner is not None and self.inner.inner is not None:
            raise UsageError("irgrad differentiates a derivative only as grad(grad(f)); a "
                             "third derivative is not supported")
        self.py_func = _py_func(func)
        self._primal = func if hasattr(func, "py_func") and self.inner is None else None
        self.mode = mode
        self.opt_level = opt_level
        self.__name__ = f"{mode}_{self.py_func.__name__}"
        self.__doc__ = f"irgrad.{mode} of {self.py_func.__name__}"
        self._arity = _arity(self.py_func)
        self._selected = _normalize_argnums(argnums, self._arity, self.py_func.__name__)
        self.dispatcher = self._make_dispatcher()

    def __repr__(self) -> str:
        return f"<irgrad.{self.mode} of {self.py_func.__qualname__}>"

    # --- Python entry -------------------------------------------------------------------
    def __call__(self, *args: Any) -> Any:
        self._check_python_args(args)
        try:
            return self.dispatcher(*args)
        except RuntimeError as exc:
            if not str(exc).startswith("irgrad:"):
                raise
            # the function raised: run it on the same values to show its own exception
            primals = args if self.mode == "grad" else args[0]
            if self._primal is None:
                import numba

                self._primal = numba.njit(self.py_func)
            try:
                self._primal(*primals)
            except Exception as original:
                raise original from exc
            raise

    def _check_python_args(self, args: tuple[Any, ...]) -> None:
        import numba

        expected = self._arity if self.mode == "grad" else (3 if self.mode == "vjp" else 2)
        if len(args) != expected:
            raise UsageError(f"{self!r} takes {expected} arguments, got {len(args)}"
                             + ("" if self.mode == "grad" else
                                " (primals as a tuple, see irgrad.numba.api)"))
        try:
            types = tuple(numba.typeof(a) for a in args)
        except ValueError as exc:
            raise UsageError(f"{self!r}: {exc}") from None
        self._check_types(types)

    def _check_types(self, types: tuple[Any, ...]) -> list[Any]:
        """The ArgKinds for numba argument types (UsageError when unsupported)."""
        from numba.core import types as nt

        if self.mode == "grad":
            kinds = kinds_of(self.py_func, types)
            if self.inner is not None:
                self.inner._select(kinds)
            return self._select(kinds)
        primals = types[0]
        if not isinstance(primals, nt.BaseTuple) or len(primals) != self._arity:
            raise UsageError(f"{self!r}: the first argument must be a tuple of the "
                             f"{self._arity} arguments of {self.py_func.__name__}")
        kinds = kinds_of(self.py_func, tuple(primals))
        diff = [k for k in kinds if k.differentiable]
        seeds = types[-1]
        what = "ct_args" if self.mode == "vjp" else "tangents"
        if not isinstance(seeds, nt.BaseTuple) or len(seeds) != len(diff):
            raise UsageError(f"{self!r}: {what} must be a tuple with one entry per float64 "
                             f"scalar or array argument ({len(diff)}), got {seeds}")
        for j, (k, t) in enumerate(zip(diff, seeds, strict=True)):
            if k.kind == "array" and not (isinstance(t, nt.Array) and t.dtype.bitwidth == k.bits
                                           and isinstance(t.dtype, nt.Float)
                                           and t.ndim == k.ndim):
                raise UsageError(f"{self!r}: {what}[{j}] (for '{k.name}') must be a float{k.bits} "
                                 f"array of {k.ndim} dimension(s), got {t}")
            if k.kind == "float" and not isinstance(t, nt.Number):
                raise UsageError(f"{self!r}: {what}[{j}] (for '{k.name}') must be a number, "
                                 f"got {t}")
        return kinds

    # --- numba entry --------------------------------------------------------------------
    def _make_dispatcher(self) -> Any:
        """An ``@njit`` entry whose body calls an ``@overload``-ed stub: the overload builds
        the derivative for the argument types numba sees (Python calls and @njit callers)."""
        import numba
        from numba.extending import overload

        if self.mode == "grad":
            params = [f"a{i}" for i in range(self._arity)]
        elif self.mode == "vjp":
            params = ["primals", "ct_return", "ct_args"]
        else:
            params = ["primals", "tangents"]
        plist = ", ".join(params)
        namespace: dict[str, Any] = {}
        exec(f"def stub({plist}):\n    raise NotImplementedError\n", namespace)
        stub = namespace["stub"]
        stub.__name__ = f"irgrad_{self.__name__}_{next(_counter)}"
        exec(f"def typer({plist}):\n    return make_impl(({plist},))\n",
             {"make_impl": self._make_impl}, namespace)
        overload(stub, jit_options={"nopython": True})(namespace["typer"])
        exec(f"def entry({plist}):\n    return stub({plist})\n", {"stub": stub}, namespace)
        entry = namespace["entry"]
        entry.__name__ = self.__name__
        return numba.njit(entry)

    def _select(self, kinds: list[Any]) -> list[Any]:
        """``kinds`` with the floats and arrays ``argnums`` leaves out made constant; an
        ``argnums`` entry that is not a float or array argument is a UsageError."""
        import dataclasses

        if self._selected is None:
            return kinds
        for i in self._selected:
            if not kinds[i].differentiable:
                raise UsageError(f"{self!r}: argnums selects argument {i} ('{kinds[i].name}'), "
                                 "which is not a float scalar or array: it has no derivative")
        return [dataclasses.replace(k, active=False)
                if k.differentiable and i not in self._selected else k
                for i, k in enumerate(kinds)]

    def _make_impl(self, types: tuple[Any, ...]) -> Callable[..., Any]:
        import numpy as np

        kinds = self._check_types(types)
        # F-order and strided arrays reach the derivative as C-contiguous copies (see
        # irgrad.numba.codegen): numba compiles the function for C-contiguous arrays
        arg_types = tuple(_c_layout(t) for t in
                          (types if self.mode == "grad" else tuple(types[0])))
        name = self.py_func.__name__
        mode = "fwd" if self.mode == "jvp" else "rev"
        inactive = _inactive(kinds)
        if self.inner is not None:  # grad(grad(f)): the inner gradient as IR
            inner = _inactive(self.inner._select(kinds_of(self.py_func, arg_types)))
            built = build_gradient_of_gradient(self.py_func, arg_types, inner, inactive,
                                               self.opt_level)
        else:
            built = build(self.py_func, arg_types, mode, self.opt_level, inactive)
        if self.mode == "grad" and not built.has_return:
            what = "an array" if built.out_ndim else "None"
            raise UsageError(f"irgrad.grad: {name} returns {what}; grad needs a float64 "
                             "result (use irgrad.vjp / irgrad.jvp)")
        if self.mode == "vjp":
            _check_ct_return(self, types[1], built.out_ndim)
        if mode == "rev":
            source = reverse_source(name, kinds, self.mode == "vjp", built.out_ndim,
                                    single=isinstance(self.argnums, int),
                                    order=self._selected)
        else:
            source = forward_source(name, kinds, built.has_return, built.out_ndim)
        (fn,) = built.functions.values()
        if self._primal is None:
            import numba

            self._primal = numba.njit(self.py_func)
        namespace: dict[str, Any] = {"np": np, "FN": fn, "PRIMAL": self._primal}
        exec(source, namespace)
        adapter: Callable[..., Any] = namespace["adapter"]
        adapter.__irgrad_built__ = built  # type: ignore[attr-defined]  # keep the JIT alive
        return adapter


def _c_layout(t: Any) -> Any:
    from numba.core import types as nt

    if isinstance(t, nt.Array) and t.layout != "C":
        return t.copy(layout="C")
    return t


def _inactive(kinds: list[Any]) -> tuple[int, ...]:
    """Positions of the floats and arrays passed enzyme_const."""
    return tuple(i for i, k in enumerate(kinds) if k.kind in ("float", "array") and not k.active)


def _normalize_argnums(argnums: Any, arity: int, name: str) -> tuple[int, ...] | None:
    """``argnums`` as a tuple of non-negative positions (None: every float and array)."""
    if argnums is None:
        return None
    items = (argnums,) if isinstance(argnums, int) else argnums
    if not isinstance(items, tuple) or not items or \
            not all(isinstance(i, int) and not isinstance(i, bool) for i in items):
        raise UsageError(f"argnums must be an int or a non-empty tuple of ints, got {argnums!r}")
    out = []
    for i in items:
        if not -arity <= i < arity:
            raise UsageError(f"argnums {i} is out of range: {name} takes {arity} arguments")
        out.append(i % arity)
    if len(set(out)) != len(out):
        raise UsageError(f"argnums {argnums!r} names an argument twice")
    return tuple(out)


_cache: dict[tuple[Any, ...], NumbaDerivative] = {}


def _derivative(func: Any, mode: str, opt_level: int, argnums: Any = None) -> NumbaDerivative:
    """One NumbaDerivative per (function, kind, -O level, argnums): ``irgrad.grad(f)(x)``
    written inside a loop does not rebuild the @njit adapter each time."""
    try:
        key = (func, mode, opt_level, argnums)
        hash(key)
    except TypeError:
        return NumbaDerivative(func, mode, opt_level, argnums)
    found = _cache.get(key)
    if found is None:
        found = _cache[key] = NumbaDerivative(func, mode, opt_level, argnums)
    return found


def _check_ct_return(d: NumbaDerivative, ct_type: Any, out_ndim: int) -> None:
    from numba.core import types as nt

    if out_ndim and not (isinstance(ct_type, nt.Array) and ct_type.dtype == nt.float64
                         and ct_type.ndim == out_ndim):
        raise UsageError(f"{d!r}: ct_return must be a float64 array of {out_ndim} "
                         f"dimension(s) like the result of {d.py_func.__name__}, got {ct_type}")
    if not out_ndim and not isinstance(ct_type, nt.Number):
        raise UsageError(f"{d!r}: ct_return must be a number, got {ct_type}")


def grad(func: Any, *, opt_level: int = 2,
         argnums: int | tuple[int, ...] | None = None) -> NumbaDerivative:
    """The gradient of a float-valued numba function: ``grad(f)(*args)`` returns a tuple
    with df/darg for every float scalar and float array argument, in order. ``argnums``
    as in JAX: an int gives df/dargs[argnums] itself, a tuple of ints a tuple over those
    arguments (the others are constant: their derivatives are not computed)."""
    return _derivative(func, "grad", opt_level, argnums)


def vjp(func: Any, *, opt_level: int = 2) -> NumbaDerivative:
    """Reverse mode: ``vjp(f)(primals, ct_return, ct_args)`` -> tuple over the float64
    scalar/array arguments of the cotangents of their *initial* values; ``ct_args`` gives
    the cotangents of the arrays' *final* contents (arrays f writes are outputs)."""
    return _derivative(func, "vjp", opt_level)


def jvp(func: Any, *, opt_level: int = 2) -> NumbaDerivative:
    """Forward mode: ``jvp(f)(primals, tangents)`` -> ``(value, value_tangent,
    tangents_out)``; tangents_out holds the tangents of the arrays' final contents."""
    return _derivative(func, "jvp", opt_level)


def _register_typeof() -> None:
    from numba.extending import typeof_impl

    @typeof_impl.register(NumbaDerivative)
    def _typeof(value: NumbaDerivative, c: Any) -> Any:
        from numba.core import types

        return types.Dispatcher(value.dispatcher)


_register_typeof()
