"""The jax.numpy surface that jax.nn, jnp.linalg, jnp.fft and jax.scipy are
written against, while pyjax.numpy is still growing.

`from pyjax._src.scipy import jnp_pending as jnp` gives a module whose
attributes are pyjax.numpy's own functions where pyjax.numpy has them, and
for a name it does not export yet, a stand-in registered below that stages
exactly the equations JAX's function stages (so jaxprs already print as
JAX's). Once pyjax.numpy gains a function, the lookup finds it there first
and the stand-in is no longer used; a stand-in can then be deleted.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np

from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.numpy.util import (
    aval_of,
    canonicalize_axis,
    check_arraylike,
    ensure_array,
    promote_args_inexact,
)

_STANDINS: dict[str, Callable] = {}


def __getattr__(name: str):
    import pyjax.numpy as jnp

    found = getattr(jnp, name, None)
    if found is not None:
        return found
    if name in _STANDINS:
        return _STANDINS[name]
    raise AttributeError(f"pyjax.numpy has no attribute {name!r} (and no stand-in is defined)")


def standin(fn: Callable) -> Callable:
    """Registers `fn` as the stand-in for the jax.numpy function of its name."""
    _STANDINS[fn.__name__] = fn
    return fn


def _full(value, like):
    aval = aval_of(like)
    scalar = np.array(value, aval.dtype)[()]
    return lax_shapes.broadcast_in_dim(scalar, aval.shape, ()) if aval.shape else scalar


# ---- logaddexp: a custom_jvp, as lax.logaddexp is in JAX


def _zero_positive_inf(x):
    # exp(x - out) with x = out = +inf would be exp(nan): use 0 - 0 there.
    # (-inf is kept: exp(-inf - out) = 0 is the right scale.)
    return lax_ew.select_n_p.bind(lax_ew.eq_p.bind(x, aval_of(x).dtype.type(np.inf)), x, _full(0, x))


@custom_jvp
def _logaddexp_real(x1, x2):
    amax = lax_ew.max_p.bind(x1, x2)
    delta = lax_ew.sub_p.bind(x1, x2)
    # A NaN delta means NaN inputs or infinities of the same sign, where
    # x1 + x2 is the answer.
    is_nan = lax_ew.ne_p.bind(delta, delta)
    same_sign_infinities = lax_ew.add_p.bind(x1, x2)
    tail = lax_ew.log1p_p.bind(lax_ew.exp_p.bind(lax_ew.neg_p.bind(lax_ew.abs_p.bind(delta)), accuracy=None),
                               accuracy=None)
    return lax_ew.select_n_p.bind(is_nan, lax_ew.add_p.bind(amax, tail), same_sign_infinities)


def _logaddexp_jvp(primals, tangents):
    x1, x2 = primals
    t1, t2 = tangents
    out = _logaddexp_real(x1, x2)
    scale1 = lax_ew.exp_p.bind(lax_ew.sub_p.bind(_zero_positive_inf(x1), _zero_positive_inf(out)), accuracy=None)
    scale2 = lax_ew.exp_p.bind(lax_ew.sub_p.bind(_zero_positive_inf(x2), _zero_positive_inf(out)), accuracy=None)
    return out, lax_ew.add_p.bind(lax_ew.mul_p.bind(t1, scale1), lax_ew.mul_p.bind(t2, scale2))


_logaddexp_real.__name__ = "logaddexp"
_logaddexp_real.defjvp(_logaddexp_jvp)


@standin
def logaddexp(x1, x2, /):
    """Elementwise log(exp(x1) + exp(x2)) without overflow; its derivative
    stays finite where an input is infinite."""
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    if aval_of(x1).dtype.kind == "c":
        raise NotImplementedError("logaddexp of complex inputs is not implemented in pyjax yet")
    return _logaddexp_real(x1, x2)


# ---- clip, split


def clip(arr=None, /, min=None, max=None):
    """Clips `arr` to [min, max] (either bound may be None)."""
    import pyjax.numpy as jnp

    if min is not None:
        arr = jnp.maximum(min, arr)
    if max is not None:
        arr = jnp.minimum(max, arr)
    return arr


standin(jit(clip))  # a jit named `clip` in jaxprs


@standin
def split(ary, indices_or_sections, axis: int = 0):
    """Splits `ary` into equal sections, or at the given indices, along `axis`."""
    ary = ensure_array(ary)
    axis = canonicalize_axis(operator.index(axis), aval_of(ary).ndim)
    size = aval_of(ary).shape[axis]
    if isinstance(indices_or_sections, (tuple, list, np.ndarray)):
        sizes = list(np.diff(np.asarray([0, *indices_or_sections, size])))
    else:
        part, rest = divmod(size, int(indices_or_sections))
        if rest:
            raise ValueError(f"array split does not result in an equal division: rest is {rest}")
        sizes = [part] * int(indices_or_sections)
    # jnp.split hands lax the sizes as NumPy integers, and they print so in
    # the jaxpr (lax.split here would make them ints).
    return list(lax_slicing.split_p.bind(ary, sizes=tuple(np.int64(s) for s in sizes), axis=axis))


# ---- tril, triu


def _lower_mask(shape, k):
    rows = lax_ew.add_p.bind(lax_shapes.broadcasted_iota(np.int32, shape, 0), np.int32(k))
    return lax_ew.ge_p.bind(rows, lax_shapes.broadcasted_iota(np.int32, shape, 1))


def _masked(m, k, keep_lower: bool):
    m = ensure_array(m)
    aval = aval_of(m)
    if aval.ndim < 2:
        raise ValueError(f"{'tril' if keep_lower else 'triu'} requires an array of at least two dimensions")
    # triu keeps what is not strictly below the k-th diagonal: the mask of tril(k - 1), inverted.
    mask = _lower_mask(aval.shape[-2:], k if keep_lower else k - 1)
    if aval.ndim > 2:
        mask = lax_shapes.broadcast_in_dim(mask, aval.shape, (aval.ndim - 2, aval.ndim - 1))
    zeros = _full(0, m)
    return lax_ew.select_n_p.bind(mask, zeros, m) if keep_lower else lax_ew.select_n_p.bind(mask, m, zeros)


def tril(m, k: int = 0):
    """The lower triangle of `m` (on and below the k-th diagonal); zeros elsewhere."""
    return _masked(m, k, True)


def triu(m, k: int = 0):
    """The upper triangle of `m` (on and above the k-th diagonal); zeros elsewhere."""
    return _masked(m, k, False)


standin(jit(tril, static_argnames=("k",)))
standin(jit(triu, static_argnames=("k",)))


# ---- logical_and / logical_or, isinf


def _logical(name, primitive):
    def fn(*args):
        from pyjax._src.numpy.util import promote_shapes

        check_arraylike(name, *args)
        args = [ensure_array(a) for a in args]
        args = [a if aval_of(a).dtype == np.bool_ else lax_ew.ne_p.bind(a, aval_of(a).dtype.type(0)) for a in args]
        return primitive.bind(*promote_shapes(name, *args))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise logical {name.split('_')[1].upper()} of truth values."
    return standin(fn)


_logical("logical_and", lax_ew.and_p)
_logical("logical_or", lax_ew.or_p)


@standin
def isinf(x, /):
    """Elementwise test for positive or negative infinity."""
    x = ensure_array(x)
    dtype = aval_of(x).dtype
    if dtype.kind not in "fc":
        return _full(False, lax_ew.ne_p.bind(x, x))
    return lax_ew.eq_p.bind(lax_ew.abs_p.bind(x), np.array(np.inf, dtype)[()])


# ---- diagonal: a[..., i, i + offset] as jnp's integer-array indexing gathers it


def _normalized(index, size: int):
    return lax_ew.select_n_p.bind(lax_ew.lt_p.bind(index, np.int32(0)), index,
                                  lax_ew.add_p.bind(index, np.int32(size)))


def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The `offset` diagonal of `a` along (axis1, axis2), moved to the last axis."""
    from pyjax._src.lax import gather_scatter as lax_gather

    a = ensure_array(a)
    shape = aval_of(a).shape
    if len(shape) < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    offset = operator.index(offset)
    ndim = len(shape)
    axis1, axis2 = canonicalize_axis(axis1, ndim), canonicalize_axis(axis2, ndim)
    size = max(0, min(shape[axis1] + min(offset, 0), shape[axis2] - max(offset, 0)))
    rest = [d for d in range(ndim) if d not in (axis1, axis2)]
    a = lax_shapes.transpose(a, (*rest, axis1, axis2)) if (axis1, axis2) != (ndim - 2, ndim - 1) else a
    rows_n, cols_n = aval_of(a).shape[-2:]
    i = lax_shapes.iota(np.int32, size)
    j = lax_shapes.iota(np.int32, size)
    if offset:
        j = lax_ew.add_p.bind(np.int32(abs(offset)), j)
    rows, cols = (i, j) if offset >= 0 else (j, i)
    rows, cols = _normalized(rows, rows_n), _normalized(cols, cols_n)
    indices = lax_shapes.concatenate([lax_shapes.broadcast_in_dim(rows, (size, 1), (0,)),
                                      lax_shapes.broadcast_in_dim(cols, (size, 1), (0,))], 1)
    nb = ndim - 2
    dnums = lax_gather.GatherDimensionNumbers(offset_dims=tuple(range(nb)), collapsed_slice_dims=(nb, nb + 1),
                                              start_index_map=(nb, nb + 1))
    # The leading axes are the gather's offset dims, so the diagonal comes last.
    return lax_gather.gather(a, indices, dnums, (*aval_of(a).shape[:-2], 1, 1),
                             mode=lax_gather.GatherScatterMode.PROMISE_IN_BOUNDS)


standin(jit(diagonal, static_argnames=("offset", "axis1", "axis2")))


# ---- select, signbit, polyval


@standin
def select(condlist, choicelist, default=0):
    """Elementwise choicelist[i] for the first i whose condlist[i] holds; `default` where none does."""
    import pyjax.numpy as jnp
    from pyjax._src.lax import reductions as lax_red

    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    choices = jnp.broadcast_arrays(*[jnp.asarray(c) for c in (default, *choicelist)])
    conditions = jnp.broadcast_arrays(*[jnp.asarray(c) for c in condlist])
    shape = jnp.broadcast_shapes(aval_of(choices[0]).shape, aval_of(conditions[0]).shape)
    choices = [jnp.broadcast_to(c, shape) for c in jnp.broadcast_arrays(*[lax_ew._convert_element_type(
        c, aval_of(choices[1]).dtype, False) for c in choices])]
    conditions = [jnp.broadcast_to(c, shape) for c in conditions]
    # The first true condition wins: argmax over [False, c0, c1, ...] finds it
    # (and 0, the default, where all are false).
    never = _full(False, conditions[0])
    stacked = jnp.stack([never, *conditions], axis=0)
    which = lax_red.argmax(stacked, 0, np.int32)
    return lax_ew.select_n_p.bind(which, *choices)


def signbit(x, /):
    """Elementwise True where the sign bit is set (including -0.0 and -nan)."""
    x = ensure_array(x)
    dtype = aval_of(x).dtype
    if dtype.kind in "iu":
        return lax_ew.lt_p.bind(x, dtype.type(0))
    if dtype == np.bool_:
        return _full(False, x)
    if dtype.kind != "f":
        raise ValueError(f"jnp.signbit is not defined for {dtype}")
    int_type = {2: np.int16, 4: np.int32, 8: np.int64}[dtype.itemsize]
    bits = lax_ew.bitcast_convert_type_p.bind(x, new_dtype=np.dtype(int_type))
    shifted = lax_ew.shift_right_arithmetic_p.bind(bits, int_type(8 * dtype.itemsize - 1))
    return lax_ew._convert_element_type(shifted, np.dtype(bool), False)


standin(jit(signbit))


@standin
def polyval(p, x, *, unroll: int = 16):
    """The polynomial with coefficients `p` (highest degree first) at `x`, by Horner's rule."""
    import pyjax.numpy as jnp

    p = jnp.asarray(p)
    x = jnp.asarray(x)
    # From zero, as JAX's scan does (so 0 * inf gives its NaN too).
    y = jnp.zeros_like(x)
    for i in range(aval_of(p).shape[0]):
        y = y * x + p[i]
    return y


# The stand-ins must not be module attributes, or they would shadow
# pyjax.numpy's own functions: they are reached through __getattr__ only.
for _name in _STANDINS:
    globals().pop(_name, None)
del _name
