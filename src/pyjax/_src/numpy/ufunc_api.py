"""jnp.ufunc and jnp.frompyfunc: NumPy's universal-function protocol
(call with broadcasting, reduce, accumulate, at, reduceat, outer) for a
scalar Python function, built from vmap and loops.

jnp.add, jnp.multiply and the other ufuncs JAX exposes are ufunc objects
with the same methods (`jnp.add.reduce` is jnp.sum); the array operators
call the plain functions underneath, keeping their eager fast paths.
"""

from __future__ import annotations

import math
import operator
from functools import partial

import numpy as np

from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.util import aval_of, canonicalize_axis, check_arraylike

_AT_INPLACE_WARNING = ("Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like\n"
                       "np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.\n"
                       ">>> arr = jnp.add.at(arr, ind, val, inplace=False)\n")


def _one(x):
    from pyjax._src.numpy.creation import asarray

    return np.ones((), aval_of(asarray(x)).dtype)[()]


def _result_dtype(func, *args):
    from pyjax._src.api import eval_shape

    return eval_shape(func, *(_one(a) for a in args)).dtype


class ufunc:
    """A universal function: applies `func` elementwise with broadcasting and
    offers reduce / accumulate / at / reduceat / outer.

    Args:
      func: the scalar function.
      nin, nout: its numbers of inputs and outputs.
      identity: the identity of a binary ufunc (used by reduce).
      call, reduce, accumulate, at, reduceat: faster implementations to use
        instead of the generic (vmap / loop based) ones.

    Example:
      >>> hypot = jnp.frompyfunc(lambda a, b: jnp.sqrt(a * a + b * b), nin=2, nout=1, identity=0)
      >>> hypot.reduce(jnp.array([3., 4.]))
      Array(5., dtype=float32)
    """

    def __init__(self, func, /, nin: int, nout: int, *, name=None, nargs=None, identity=None, call=None, reduce=None,
                 accumulate=None, at=None, reduceat=None):
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        self._func = func
        self.nin = operator.index(nin)
        self.nout = operator.index(nout)
        self.nargs = operator.index(nargs or nin)
        self.identity = identity
        self._call = call
        self._reduce = reduce
        self._accumulate = accumulate
        self._at = at
        self._reduceat = reduceat

    def __hash__(self):
        return hash((self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs))

    def __eq__(self, other):
        return isinstance(other, ufunc) and (
            (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)
            == (other._func, other.__name__, other.identity, other.nin, other.nout, other.nargs))

    def __repr__(self):
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=None):
        if self._call is not None and out is None and where is None:
            return self._call(*args)  # it checks its arguments itself, with this name
        from pyjax._src.numpy.vectorize import vectorize

        check_arraylike(self.__name__, *args)
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        if self._call is not None:
            return self._call(*args)
        return vectorize(self._func)(*args)

    def _binary_only(self, what: str):
        if self.nin != 2:
            raise ValueError(f"{what} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{what} only supported for functions returning a single value")

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
        """Reduces `a` along `axis` by repeated application of the ufunc."""
        check_arraylike(f"{self.__name__}.reduce", a)
        self._binary_only("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if where is not None:
            check_arraylike(f"{self.__name__}.reduce", where)
            if initial is None and self.identity is None:
                raise ValueError(f"reduction operation {self.__name__!r} does not have an identity, so to use a "
                                 "where mask one has to specify 'initial'.")
            if aval_of(where).dtype != np.bool_:
                raise ValueError(f"where argument must have dtype=bool; got dtype={aval_of(where).dtype}")
        reducer = self._reduce or self._reduce_via_loop
        return reducer(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)

    def _reduce_via_loop(self, arr, axis=0, dtype=None, keepdims=False, initial=None, where=None):
        from pyjax._src.lax.control_flow import fori_loop
        from pyjax._src.numpy.creation import asarray
        from pyjax._src.numpy.shape_ops import broadcast_to, moveaxis
        from pyjax._src.numpy.util import full
        from pyjax._src.numpy.where import _where

        arr = asarray(arr)
        initial = self.identity if initial is None else initial
        dtype = _result_dtype(self._func, arr, arr) if dtype is None else dtype
        if where is not None:
            where = broadcast_to(where, aval_of(arr).shape)
        if isinstance(axis, tuple):
            raise NotImplementedError("tuple of axes")
        shape = aval_of(arr).shape
        if axis is None:
            final_shape = (1,) * len(shape) if keepdims else ()
            arr = arr.ravel()
            where = where.ravel() if where is not None else None
            axis = 0
        else:
            axis = canonicalize_axis(axis, len(shape))
            final_shape = (*shape[:axis], 1, *shape[axis + 1:]) if keepdims else (*shape[:axis], *shape[axis + 1:])
        if axis != 0:
            arr = moveaxis(arr, axis, 0)
            where = moveaxis(where, axis, 0) if where is not None else None
        if aval_of(arr).shape[0] == 0:
            if initial is None:
                raise ValueError(f"zero-size array to reduction operation {self.__name__} which has no identity")
            return full(final_shape, initial, dtype)

        def body(i, val):
            step = self(val, arr[i].astype(dtype))
            return step if where is None else _where(where[i], step, val)

        start_index, start = (1, arr[0]) if initial is None else (0, initial)
        start = broadcast_to(asarray(start).astype(dtype), aval_of(arr).shape[1:])
        result = fori_loop(start_index, aval_of(arr).shape[0], body, start)
        return result.reshape(final_shape) if keepdims else result

    def accumulate(self, a, axis: int = 0, dtype=None, out=None):
        """The running reduction along `axis`."""
        self._binary_only("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        accumulator = self._accumulate or self._accumulate_via_scan
        return accumulator(a, axis=axis, dtype=dtype)

    def _accumulate_via_scan(self, arr, axis=0, dtype=None):
        from pyjax._src.lax.control_flow import scan
        from pyjax._src.numpy.creation import asarray
        from pyjax._src.numpy.shape_ops import moveaxis
        from pyjax._src.numpy.util import full
        from pyjax._src.numpy.where import _where

        check_arraylike(f"{self.__name__}.accumulate", arr)
        arr = asarray(arr)
        dtype = _result_dtype(self._func, arr, arr) if dtype is None else dtype
        if isinstance(axis, tuple) or axis is None:
            raise ValueError("accumulate does not allow multiple axes")
        axis = canonicalize_axis(axis, aval_of(arr).ndim)
        if aval_of(arr).size == 0:
            return full(aval_of(arr).shape, 0, dtype)
        arr = moveaxis(arr, axis, 0)

        # Step k combines the running value with element k; step 0 just
        # takes element 0 (the ufunc may have no identity to start from).
        def step(carry, _):
            k, running = carry
            is_first = k == 0
            head = arr[0].astype(dtype)
            combined = self(running.astype(dtype), arr[k].astype(dtype))
            running = _where(is_first, head, combined)
            return (k + 1, running), running

        _, result = scan(step, (0, arr[0].astype(dtype)), None, length=aval_of(arr).shape[0])
        return moveaxis(result, 0, axis)

    def at(self, a, indices, b=None, /, *, inplace: bool = True):
        """The ufunc applied in place at `indices` (a copy: inplace=False),
        once per occurrence of an index."""
        if inplace:
            raise NotImplementedError(_AT_INPLACE_WARNING)
        apply_at = self._at or self._at_via_scan
        operands = () if b is None else (b,)
        return apply_at(a, indices, *operands)

    def _at_via_scan(self, a, indices, *args):
        from pyjax._src.lax.control_flow import scan
        from pyjax._src.numpy.creation import asarray
        from pyjax._src.numpy.indexing import as_index_tuple
        from pyjax._src.numpy.shape_ops import broadcast_to

        check_arraylike(f"{self.__name__}.at", a, *args)
        dtype = _result_dtype(self._func, a, *args)
        a = asarray(a).astype(dtype)
        args = tuple(asarray(arg).astype(dtype) for arg in args)
        indices = as_index_tuple(indices)
        if not indices:
            return a
        shapes = [np.shape(i) if not hasattr(i, "aval") else aval_of(i).shape for i in indices
                  if not isinstance(i, slice)]
        shape = shapes and tuple(np.broadcast_shapes(*shapes))
        if not shape:
            # Only slices and scalars: one update of the selected block.
            ref = a.at[indices]
            return ref.set(self(ref.get(), *args))
        if args:
            tail = aval_of(args[0]).shape[len(shape):]
            args = (broadcast_to(args[0], (*shape, *tail)).reshape(math.prod(shape), *tail),)
        indices = [i if isinstance(i, slice) else broadcast_to(i, shape).ravel() for i in indices]

        # One index position per step, so repeated indices apply repeatedly.
        def step(carry, x):
            k, acc = carry
            where_k = tuple(ix if isinstance(ix, slice) else ix[k] for ix in indices)
            ref = acc.at[where_k]
            acc = ref.set(self(ref.get(), *(arg[k] for arg in args)))
            return (k + 1, acc), x

        carry, _ = scan(step, (0, a), None, aval_of(indices[0]).shape[0])
        return carry[1]

    def reduceat(self, a, indices, axis: int = 0, dtype=None, out=None):
        """Reductions over the slices [indices[i], indices[i+1]) along `axis`."""
        self._binary_only("reduceat")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        segment_reducer = self._reduceat or self._reduceat_via_loop
        return segment_reducer(a, indices, axis=axis, dtype=dtype)

    def _reduceat_via_loop(self, a, indices, axis=0, dtype=None):
        from pyjax._src.lax import slicing as lax_slicing
        from pyjax._src.lax.control_flow import fori_loop
        from pyjax._src.numpy.creation import asarray
        from pyjax._src.numpy.joining import append
        from pyjax._src.numpy.take import take
        from pyjax._src.numpy.where import _where

        check_arraylike(f"{self.__name__}.reduceat", a, indices)
        a = asarray(a)
        indices = asarray(indices)
        if aval_of(a).ndim == 0:
            raise ValueError(f"reduceat: a must have 1 or more dimension, got a.shape={aval_of(a).shape}")
        if aval_of(indices).ndim != 1:
            raise ValueError(f"reduceat: indices must be one-dimensional, got indices.shape={aval_of(indices).shape}")
        if isinstance(axis, (tuple, list)) or axis is None:
            raise ValueError("reduceat requires a single integer axis.")
        axis = canonicalize_axis(axis, aval_of(a).ndim)
        out = take(a, indices, axis=axis)
        ind = lax_shapes.expand_dims(append(indices, aval_of(a).shape[axis]),
                                     list(np.delete(np.arange(aval_of(out).ndim), axis)))
        start = lax_slicing.slice_in_dim(ind, 0, aval_of(ind).shape[axis] - 1, axis=axis)
        end = lax_slicing.slice_in_dim(ind, 1, aval_of(ind).shape[axis], axis=axis)

        def body(i, out):
            return _where((i > start) & (i < end), self(out, take(a, lax_shapes.expand_dims(i, (0,)), axis=axis)), out)

        return fori_loop(0, aval_of(a).shape[axis], body, out)

    def outer(self, A, B, /):
        """The ufunc applied to every pair of elements of A and B."""
        from pyjax._src.api import vmap

        self._binary_only("outer")
        check_arraylike(f"{self.__name__}.outer", A, B)
        ravel = partial(lambda x: lax_shapes.reshape(x, (aval_of(x).size,)))
        from pyjax._src.numpy.creation import asarray

        A, B = asarray(A), asarray(B)
        result = vmap(vmap(self, (None, 0)), (0, None))(ravel(A), ravel(B))
        if self.nout == 1:
            return result.reshape(*aval_of(A).shape, *aval_of(B).shape)
        return tuple(r.reshape(*aval_of(A).shape, *aval_of(B).shape) for r in result)


def frompyfunc(func, /, nin: int, nout: int, *, identity=None) -> ufunc:
    """A jnp.ufunc from a scalar Python function (vectorized with vmap)."""
    return ufunc(func, nin=nin, nout=nout, identity=identity)


def _without_dtype(reduction):
    # max and min take no dtype; the ufunc protocol passes one.
    def reduce(a, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=None):
        result = reduction(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)
        return result if dtype is None else result.astype(dtype)

    return reduce


def _scatter_at(method: str):
    # ufunc.at for add / multiply through the matching `.at[...]` scatter;
    # booleans go through int32 (scatter-add of bools is not defined).
    def at(a, indices, b):
        if aval_of(a).dtype != np.bool_:
            return getattr(a.at[indices], method)(b)
        as_int = a.astype("int32")
        updates = b.astype(bool).astype("int32")
        return getattr(as_int.at[indices], method)(updates).astype(bool)

    return at


def make_builtin_ufuncs() -> dict:
    """JAX's built-in ufunc objects (jnp.add, jnp.multiply, ..., jnp.negative),
    keyed by name: each calls the plain jnp function (which the array
    operators use directly, keeping their eager fast paths) and adds NumPy's
    ufunc methods (`jnp.add.reduce` is jnp.sum, `jnp.multiply.accumulate`
    is jnp.cumprod, and so on)."""
    from pyjax._src.numpy import cumulative, reductions, ufuncs, ufuncs_extra

    add_at, multiply_at = _scatter_at("add"), _scatter_at("mul")

    binary = {
        ufuncs.add: {"identity": 0, "reduce": reductions.sum, "accumulate": cumulative.cumsum, "at": add_at},
        ufuncs.multiply: {"identity": 1, "reduce": reductions.prod, "accumulate": cumulative.cumprod,
                          "at": multiply_at},
        ufuncs.subtract: {"identity": None, "at": lambda a, i, b: a.at[i].subtract(b)},
        ufuncs.bitwise_and: {"identity": -1, "reduce": reductions.reduce_bitwise_and},
        ufuncs.bitwise_or: {"identity": 0, "reduce": reductions.reduce_bitwise_or},
        ufuncs.bitwise_xor: {"identity": 0, "reduce": reductions.reduce_bitwise_xor},
        ufuncs.minimum: {"identity": None, "reduce": _without_dtype(reductions.min)},
        ufuncs.maximum: {"identity": None, "reduce": _without_dtype(reductions.max)},
        ufuncs.logical_and: {"identity": True, "reduce": reductions.reduce_logical_and},
        ufuncs.logical_or: {"identity": False, "reduce": reductions.reduce_logical_or},
        ufuncs.logical_xor: {"identity": False, "reduce": reductions.reduce_logical_xor},
        ufuncs_extra.logaddexp: {"identity": -np.inf},
        ufuncs_extra.logaddexp2: {"identity": -np.inf},
    }
    made = {fn.__name__: ufunc(fn, 2, 1, name=fn.__name__, call=fn, **props) for fn, props in binary.items()}
    made["negative"] = ufunc(ufuncs.negative, 1, 1, name="negative", call=ufuncs.negative)
    return made
