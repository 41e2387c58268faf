"""The jax.numpy surface that jax.nn, jnp.linalg, jnp.fft and jax.scipy are
written against, while pyjax.numpy is still growing.

`from pyjax._src.scipy import jnp_pending as jnp` gives a module whose
attributes are pyjax.numpy's own functions where pyjax.numpy has them; for a
name it does not export yet, a stand-in below (`_clip` for `clip`, ...) that
stages exactly the equations JAX's function stages, so jaxprs already print
as JAX's. Once pyjax.numpy gains a function, the module attribute lookup
finds it there first and the stand-in is no longer used.

A few names are defined here directly because pyjax.numpy has them without
an option these libraries need (`where=` on reductions) or with a different
decomposition (`square`, which JAX binds as the `square` primitive).
"""

from __future__ import annotations

import operator

import numpy as np

from pyjax._src import dtypes
from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.numpy import reductions as _red
from pyjax._src.numpy.util import (aval_of, canonicalize_axis, check_arraylike, ensure_array, promote_args,
                                  promote_args_inexact)


def __getattr__(name: str):
    import pyjax.numpy as jnp

    found = getattr(jnp, name, None)
    if found is not None:
        return found
    standin = globals().get("_" + name)
    if standin is None:
        raise AttributeError(f"pyjax.numpy has no attribute {name!r} (and no stand-in is defined)")
    return standin


# ---------------------------------------------------------------------------
# Reductions with `where=`: the masked-out elements are replaced by the
# reduction's identity (a `_where` jit, as JAX stages it), then reduced.


def _where_fill(a, where, fill):
    import pyjax.numpy as jnp

    return jnp.where(where, a, fill)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None, promote_integers=True):  # noqa: A001
    """jnp.sum, with `where` masking elements out of the sum."""
    if where is not None:
        a = ensure_array(a)
        aval = aval_of(a)
        if dtype is not None:
            compute = dtypes.check_and_canonicalize_user_dtype(dtype, "sum")
        else:
            compute = _red._promoted_integer_dtype(aval.dtype) if promote_integers else aval.dtype
        if compute in (np.float16, dtypes.bfloat16):
            compute = np.dtype(np.float32)
        a = _where_fill(lax_ew._convert_element_type(a, compute, aval.weak_type), where, np.zeros((), compute)[()])
    return _red.sum(a, axis, dtype, None, keepdims, initial, None, promote_integers)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """jnp.max, with `where` (which needs `initial`, as reductions without an identity do)."""
    if where is not None:
        if initial is None:
            raise ValueError("reduction operation max does not have an identity, so to use a "
                             "where mask one has to specify 'initial'")
        a = ensure_array(a)
        a = _where_fill(a, where, np.array(-np.inf if aval_of(a).dtype.kind in "fc" else initial,
                                           aval_of(a).dtype)[()])
    return _red.max(a, axis, None, keepdims, initial, None)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """jnp.min, with `where` (which needs `initial`)."""
    if where is not None:
        if initial is None:
            raise ValueError("reduction operation min does not have an identity, so to use a "
                             "where mask one has to specify 'initial'")
        a = ensure_array(a)
        a = _where_fill(a, where, np.array(np.inf if aval_of(a).dtype.kind in "fc" else initial,
                                           aval_of(a).dtype)[()])
    return _red.min(a, axis, None, keepdims, initial, None)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """jnp.mean; with `where` the count is the number of selected elements."""
    if where is None:
        return _red.mean(a, axis, dtype, None, keepdims)
    a = ensure_array(a)
    aval = aval_of(a)
    result_dtype = dtypes.to_inexact_dtype(aval.dtype) if dtype is None else np.dtype(dtype)
    compute = np.dtype(np.float32) if dtype is None and result_dtype in (np.float16, dtypes.bfloat16) else result_dtype
    from pyjax._src.numpy.shape_ops import broadcast_to

    count = sum(broadcast_to(where, aval.shape), axis, dtype=compute, keepdims=keepdims)
    total = sum(a, axis, dtype=compute, keepdims=keepdims, where=where)
    return lax_ew._convert_element_type(lax_ew.div_p.bind(total, count), result_dtype, False)


def _replace_inf(x):
    # +inf becomes 0 (so exp(x - out) is never inf - inf); -inf stays, giving 0.
    aval = aval_of(x)
    zero = aval.dtype.type(0)
    zeros = lax_shapes.broadcast_in_dim(zero, aval.shape, ()) if aval.shape else zero
    return lax_ew.select_n_p.bind(lax_ew.eq_p.bind(x, aval.dtype.type(np.inf)), x, zeros)


@custom_jvp
def _lax_logaddexp(x1, x2):
    amax = lax_ew.max_p.bind(x1, x2)
    delta = lax_ew.sub_p.bind(x1, x2)
    # NaN delta: NaN inputs, or infinities of the same sign, where x1 + x2 is right.
    is_nan = lax_ew.ne_p.bind(delta, delta)
    same_sign_infinities = lax_ew.add_p.bind(x1, x2)
    tail = lax_ew.log1p_p.bind(lax_ew.exp_p.bind(lax_ew.neg_p.bind(lax_ew.abs_p.bind(delta)), accuracy=None),
                               accuracy=None)
    return lax_ew.select_n_p.bind(is_nan, lax_ew.add_p.bind(amax, tail), same_sign_infinities)


def _logaddexp_jvp(primals, tangents):
    x1, x2 = primals
    t1, t2 = tangents
    out = _lax_logaddexp(x1, x2)
    # Infinities are replaced by zero so that exp(x - out) is never inf - inf.
    scale1 = lax_ew.exp_p.bind(lax_ew.sub_p.bind(_replace_inf(x1), _replace_inf(out)), accuracy=None)
    scale2 = lax_ew.exp_p.bind(lax_ew.sub_p.bind(_replace_inf(x2), _replace_inf(out)), accuracy=None)
    return out, lax_ew.add_p.bind(lax_ew.mul_p.bind(t1, scale1), lax_ew.mul_p.bind(t2, scale2))


_lax_logaddexp.__name__ = "logaddexp"
_lax_logaddexp.defjvp(_logaddexp_jvp)


def logaddexp(x1, x2, /):
    """Elementwise log(exp(x1) + exp(x2)), without overflow: a custom_jvp, as
    JAX stages it (its derivative stays finite where an input is infinite)."""
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    if aval_of(x1).dtype.kind == "c":
        raise NotImplementedError("logaddexp of complex inputs is not implemented in pyjax yet")
    return _lax_logaddexp(x1, x2)


def square(x, /):
    """Elementwise x * x: the `square` primitive, as jnp.square binds it."""
    (x,) = promote_args("square", x)
    return lax_ew.square_p.bind(x)


# ---------------------------------------------------------------------------
# Stand-ins for functions pyjax.numpy does not have yet.


def clip(arr=None, /, min=None, max=None):  # noqa: A002
    """Clips `arr` to [min, max] (either bound may be None)."""
    import pyjax.numpy as jnp

    if min is not None:
        arr = jnp.maximum(min, arr)
    if max is not None:
        arr = jnp.minimum(max, arr)
    return arr


# Jitted under its public name (the jit equation is named after it), but kept
# off the module's attributes so that pyjax.numpy's own clip wins once it exists.
_clip = jit(clip)
del clip


def _split(ary, indices_or_sections, axis: int = 0):
    """Splits `ary` into equal sections, or at the given indices, along `axis`."""
    ary = ensure_array(ary)
    axis = canonicalize_axis(operator.index(axis), aval_of(ary).ndim)
    size = aval_of(ary).shape[axis]
    if isinstance(indices_or_sections, (tuple, list, np.ndarray)):
        bounds = np.asarray([0, *indices_or_sections, size])
        sizes = list(np.diff(bounds))
    else:
        part, rest = divmod(size, int(indices_or_sections))
        if rest:
            raise ValueError(f"array split does not result in an equal division: rest is {rest}")
        sizes = [part] * int(indices_or_sections)
    # jnp.split hands lax the sizes as NumPy integers, and they print so in
    # the jaxpr (lax.split here would make them ints).
    return list(lax_slicing.split_p.bind(ary, sizes=tuple(np.int64(s) for s in sizes), axis=axis))


def _triangle_mask(shape, k, lower: bool):
    rows = lax_shapes.broadcasted_iota(np.int32, shape, 0)
    rows = lax_ew.add_p.bind(rows, np.int32(k))
    cols = lax_shapes.broadcasted_iota(np.int32, shape, 1)
    return (lax_ew.ge_p if lower else lax_ew.le_p).bind(rows, cols)


def _tri_select(m, k, lower):
    m = ensure_array(m)
    aval = aval_of(m)
    if aval.ndim < 2:
        raise ValueError(f"{'tril' if lower else 'triu'} requires an array of at least two dimensions")
    mask = _triangle_mask(aval.shape[-2:], k, lower)
    zero = lax_shapes.broadcast_in_dim(np.zeros((), aval.dtype)[()], aval.shape, ())
    if aval.ndim > 2:
        mask = lax_shapes.broadcast_in_dim(mask, aval.shape, (aval.ndim - 2, aval.ndim - 1))
    return lax_ew.select_n_p.bind(mask, zero, m)


def tril(m, k: int = 0):
    """The lower triangle of `m` (on and below the k-th diagonal); the rest zero."""
    return _tri_select(m, k, True)


def triu(m, k: int = 0):
    """The upper triangle of `m` (on and above the k-th diagonal); the rest zero."""
    m = ensure_array(m)
    aval = aval_of(m)
    mask = _triangle_mask(aval.shape[-2:], k - 1, True)
    zero = lax_shapes.broadcast_in_dim(np.zeros((), aval.dtype)[()], aval.shape, ())
    if aval.ndim > 2:
        mask = lax_shapes.broadcast_in_dim(mask, aval.shape, (aval.ndim - 2, aval.ndim - 1))
    return lax_ew.select_n_p.bind(mask, m, zero)


_tril = jit(tril, static_argnames=("k",))
_triu = jit(triu, static_argnames=("k",))
del tril, triu


def _logical(name, primitive):
    def fn(*args):
        check_arraylike(name, *args)
        args = [ensure_array(a) for a in args]
        args = [a if aval_of(a).dtype == np.bool_ else lax_ew.ne_p.bind(a, aval_of(a).dtype.type(0)) for a in args]
        from pyjax._src.numpy.util import promote_shapes

        return primitive.bind(*promote_shapes(name, *args))

    fn.__name__ = name
    fn.__doc__ = f"Elementwise logical {name.split('_')[1].upper()} of truth values."
    return fn


_logical_and = _logical("logical_and", lax_ew.and_p)
_logical_or = _logical("logical_or", lax_ew.or_p)


def _isinf(x, /):
    """Elementwise test for positive or negative infinity."""
    x = ensure_array(x)
    dtype = aval_of(x).dtype
    if dtype.kind not in "fc":
        return lax_shapes.broadcast_in_dim(np.False_, aval_of(x).shape, ()) if aval_of(x).shape else np.False_
    return lax_ew.eq_p.bind(lax_ew.abs_p.bind(x), np.array(np.inf, dtype)[()])
