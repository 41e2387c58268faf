"""Wrapped functions and their transformations (JAX's `jax.extend.linear_util`).

A `WrappedFun` is a Python function plus a stack of transformations, each a
function `gen(f, *static_args, *args, **kwargs)` that calls the function
below it (`f`) and may store an auxiliary output. `call_wrapped` runs the
whole stack. Wrapped functions hash and compare by what they are made of,
so `cache` can memoise a computation on one.

pyjax's own transformations take plain callables; this module is the
interface libraries written against JAX's internals use (e.g. with
`jax.interpreters.partial_eval.trace_to_jaxpr_dynamic`).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Hashable
from typing import Any

from pyjax._src import config


class StoreException(Exception):
    """A store was read before being written, or written twice."""


class _Empty:
    __slots__ = ()


_EMPTY = _Empty()


class Store:
    """Holds one auxiliary output, written once."""

    __slots__ = ("_val",)

    def __init__(self):
        self._val = _EMPTY

    def store(self, val) -> None:
        if self._val is not _EMPTY:
            raise StoreException("Store occupied")
        self._val = val

    def reset(self) -> None:
        self._val = _EMPTY

    @property
    def val(self):
        if self._val is _EMPTY:
            raise StoreException("Store empty")
        return self._val

    def __bool__(self):
        return self._val is not _EMPTY

    __nonzero__ = __bool__


class EqualStore(Store):
    """A store that accepts a second write of an equal value."""

    __slots__ = ()

    def store(self, val) -> None:
        if self._val is not _EMPTY:
            try:
                same = bool(self._val == val)
            except Exception:  # noqa: BLE001  (incomparable values: the first write stands, as occupied)
                same = False
            if not same:
                raise StoreException("Store occupied with not-equal value")
            return
        self._val = val


def fun_name(f) -> str:
    """The name of a function (of a partial's function) for reprs."""
    while isinstance(f, functools.partial):
        f = f.func
    return getattr(f, "__name__", None) or type(f).__name__


class WrappedFun:
    """A function with a stack of transformations applied to it.

    Args:
      f: the function being transformed.
      f_transformed: `f` with every transformation applied (what `call_wrapped` runs).
      transforms: the (generator, static args) of each transformation, innermost first.
      stores: the store of each transformation (None where it has none).
      params: keyword arguments `f` is always called with, as sorted (name, value) pairs.
      in_type: the input types, when annotated.
      debug_info: where the function came from.
    """

    __slots__ = ("f", "f_transformed", "transforms", "stores", "params", "in_type", "debug_info")

    def __init__(self, f: Callable, f_transformed: Callable, transforms: tuple, stores: tuple, params: tuple,
                 in_type, debug_info):
        self.f = f
        self.f_transformed = f_transformed
        self.transforms = transforms
        self.stores = stores
        self.params = params
        self.in_type = in_type
        self.debug_info = debug_info

    @property
    def __name__(self) -> str:
        return fun_name(self.f)

    def wrap(self, gen: Callable, gen_static_args: tuple, out_store: Store | None) -> WrappedFun:
        """One more transformation on top: `gen(f, [store,] *static_args, *args, **kwargs)`."""
        if out_store is None:
            transformed = functools.partial(gen, self.f_transformed, *gen_static_args)
        else:
            transformed = functools.partial(gen, self.f_transformed, out_store, *gen_static_args)
        return WrappedFun(self.f, transformed, ((gen, gen_static_args),) + self.transforms,
                          (out_store,) + self.stores, self.params, self.in_type, self.debug_info)

    def populate_stores(self, stores) -> None:
        """Copies the values of another wrapping's stores into this one's (a cache hit)."""
        for self_store, other_store in zip(self.stores, stores, strict=True):
            if self_store is not None:
                self_store.store(other_store.val)

    def call_wrapped(self, *args, **kwargs):
        """Calls the transformed function."""
        return self.f_transformed(*args, **kwargs)

    def replace_debug_info(self, debug_info) -> WrappedFun:
        return WrappedFun(self.f, self.f_transformed, self.transforms, self.stores, self.params, self.in_type,
                          debug_info)

    def with_unknown_names(self) -> WrappedFun:
        return self

    def __repr__(self):
        stack = "\n".join(f"{i}   : {fun_name(gen)}   {args}" for i, (gen, args) in enumerate(self.transforms))
        return f"Wrapped function:\n{stack}\nCore: {fun_name(self.f)}\n"

    def __hash__(self):
        return hash((self.f, self.transforms, self.params, self.in_type))

    def __eq__(self, other):
        return (type(other) is WrappedFun and self.f == other.f and self.transforms == other.transforms
                and self.params == other.params and self.in_type == other.in_type)


def wrap_init(f: Callable, params=None, *, debug_info=None) -> WrappedFun:
    """Wraps function `f` as a `WrappedFun`, suitable for transformation."""
    params_dict = {} if params is None else dict(params)
    params_tuple = () if params is None else tuple(sorted(params_dict.items()))
    return WrappedFun(f, functools.partial(f, **params_dict), (), (), params_tuple, None, debug_info)


def _curry(f):
    # transformation(gen) is a decorator; transformation(gen, fun, *static) applies it.
    @functools.wraps(f)
    def curried(gen, *rest, **kwargs):
        if not rest:
            return functools.partial(f, gen, **kwargs)
        return f(gen, *rest, **kwargs)

    return curried


@_curry
def transformation2(gen, fun: WrappedFun, *gen_static_args) -> WrappedFun:
    """Adds one more transformation to a WrappedFun.

    Args:
      gen: the transformation, called as `gen(f, *gen_static_args, *args, **kwargs)`.
      fun: a WrappedFun on which to apply the transformation.
      gen_static_args: static args for the transformation.
    """
    return fun.wrap(gen, gen_static_args, None)


@_curry
def transformation_with_aux2(gen, fun: WrappedFun, *gen_static_args, use_eq_store: bool = False,
                             unk_names: bool = False) -> tuple[WrappedFun, Callable[[], Any]]:
    """Adds one more transformation with auxiliary output to a WrappedFun:
    `gen(f, store, *gen_static_args, *args, **kwargs)`; returns the new
    function and a thunk reading the store."""
    out_store = EqualStore() if use_eq_store else Store()
    return fun.wrap(gen, gen_static_args, out_store), lambda: out_store.val


@_curry
def transformation(gen, fun: WrappedFun, *gen_static_args) -> WrappedFun:
    """The generator form of transformation2: `gen(*gen_static_args, *args)`
    yields the (args, kwargs) to call the function with, is sent its result,
    and yields the transformed result."""

    def gen2(f, *args, **kwargs):
        gen_inst = gen(*args, **kwargs)
        args_, kwargs_ = next(gen_inst)
        return gen_inst.send(f(*args_, **kwargs_))

    gen2.__name__ = fun_name(gen)
    return transformation2(gen2, fun, *gen_static_args)


@_curry
def transformation_with_aux(gen, fun: WrappedFun, *gen_static_args) -> tuple[WrappedFun, Callable[[], Any]]:
    """The generator form of transformation_with_aux2: the generator's last
    yield is (result, auxiliary output)."""

    def gen2(f, store, *args, **kwargs):
        gen_inst = gen(*args, **kwargs)
        args_, kwargs_ = next(gen_inst)
        ans, aux = gen_inst.send(f(*args_, **kwargs_))
        store.store(aux)
        return ans

    gen2.__name__ = fun_name(gen)
    return transformation_with_aux2(gen2, fun, *gen_static_args)


def cache(call: Callable, *, explain: Callable | None = None):
    """Memoization decorator for functions taking a WrappedFun as first argument.

    The wrapped function's transformations and params, the other arguments
    and the tracing-relevant configuration make the key; on a hit the
    stores of the call that filled the entry are copied into the new
    wrapping's stores.

    Args:
      call: a Python callable that takes a WrappedFun as its first argument.
      explain: called as `explain(fun, is_first_use, cache, key, elapsed)` on a miss.

    Returns:
       A memoized version of ``call``.
    """
    fun_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def memoized_fun(fun: WrappedFun, *args):
        try:
            cache_for_f = fun_caches.setdefault(fun.f, {})
        except TypeError:  # not weak-referenceable: no caching
            return call(fun, *args)
        key = (fun.transforms, fun.params, fun.in_type, args, config.trace_context_id())
        entry = cache_for_f.get(key)
        if entry is not None:
            ans, stores = entry
            fun.populate_stores(stores)
            return ans
        if explain is not None:
            explain(fun, not cache_for_f, cache_for_f, key, 0.0)
        ans = call(fun, *args)
        cache_for_f[key] = (ans, fun.stores)
        return ans

    def clear():
        fun_caches.clear()

    memoized_fun.cache_clear = clear
    return memoized_fun


def merge_linear_aux(aux1, aux2):
    """Reads whichever of two stores was written (exactly one must be):
    (True, value) for the first, (False, value) for the second."""
    try:
        out1 = aux1()
    except StoreException:
        try:
            out2 = aux2()
        except StoreException:
            raise StoreException("neither store occupied") from None
        return False, out2
    try:
        aux2()
    except StoreException:
        return True, out1
    raise StoreException("both stores occupied")


__all__ = ["Callable", "Hashable", "EqualStore", "Store", "StoreException", "WrappedFun", "cache", "fun_name",
           "merge_linear_aux", "transformation", "transformation2", "transformation_with_aux",
           "transformation_with_aux2", "wrap_init"]
