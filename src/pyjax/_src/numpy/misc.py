"""Numerical helpers of jax.numpy's main module: differences (diff,
ediff1d, gradient), interpolation (interp, unwrap), integration
(trapezoid), choice (select, choose, piecewise), statistics of pairs (cov,
corrcoef), 1-D convolution (convolve, correlate), bit packing, and the
shape/size/ndim/isscalar/iterable queries.
"""

from __future__ import annotations

import operator
from functools import partial

import numpy as np

from pyjax._src import core, dtypes, errors
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src import dispatch
from pyjax._src.numpy.joining import concatenate, stack
from pyjax._src.numpy.shape_ops import (
    atleast_2d,
    broadcast_arrays,
    broadcast_to,
    ensure_index_tuple,
    expand_dims,
    flip,
    moveaxis,
    ravel,
    swapaxes,
)
from pyjax._src.numpy.util import (
    aval_of,
    canonicalize_axis,
    check_arraylike,
    constant_like,
    ensure_array,
    ensure_arraylike,
    promote_args_inexact,
    promote_dtypes,
    promote_dtypes_inexact,
)
from pyjax._src.numpy.where import where


@jit(static_argnames=("n", "axis"))
def diff(a, n: int = 1, axis: int = -1, prepend=None, append=None):
    """The n-th discrete difference along `axis` (a[i+1] - a[i], repeated
    n times; != for booleans), after joining `prepend`/`append`."""
    arr = ensure_arraylike("diff", a)
    n = operator.index(n)
    axis = operator.index(axis)
    if n == 0:
        return arr
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if aval_of(arr).ndim == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    nd = aval_of(arr).ndim
    axis = canonicalize_axis(axis, nd)
    combined = []
    for extra, first in ((prepend, True), (arr, None), (append, False)):
        if first is None:
            combined.append(arr)
            continue
        if extra is None:
            continue
        extra = ensure_arraylike("diff", extra)
        if not aval_of(extra).ndim:
            shape = list(aval_of(arr).shape)
            shape[axis] = 1
            extra = broadcast_to(extra, tuple(shape))
        combined.append(extra)
    if len(combined) > 1:
        arr = concatenate(combined, axis)
    upper = [slice(None)] * nd
    lower = [slice(None)] * nd
    upper[axis] = slice(1, None)
    lower[axis] = slice(None, -1)
    op = operator.ne if aval_of(arr).dtype == np.bool_ else operator.sub
    for _ in range(n):
        arr = op(arr[tuple(upper)], arr[tuple(lower)])
    return arr


@jit
def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of the flattened array, with
    optional values before and after."""
    arr = ensure_arraylike("ediff1d", ary).ravel()
    result = lax_ew.sub(arr[1:], arr[:-1])
    if to_begin is not None:
        to_begin = ensure_arraylike("ediff1d", to_begin)
        result = concatenate((ravel(to_begin.astype(aval_of(arr).dtype)), result))
    if to_end is not None:
        to_end = ensure_arraylike("ediff1d", to_end)
        result = concatenate((result, ravel(to_end.astype(aval_of(arr).dtype))))
    return result


@jit(static_argnames=("axis", "edge_order"))
def gradient(f, *varargs, axis=None, edge_order=None):
    """The gradient of sampled `f`: central differences inside, one-sided at
    the edges, with uniform (scalar) or coordinate (1-D array) spacings."""
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    a, *spacing = promote_dtypes_inexact(f, *varargs)
    a = ensure_array(a)

    def along(a, h, axis):
        sliced = partial(lax_slicing.slice_in_dim, a, axis=axis)
        upper_edge = sliced(1, 2) - sliced(0, 1)
        lower_edge = sliced(-1, None) - sliced(-2, -1)
        h_ndim = np.ndim(h) if not hasattr(h, "aval") else aval_of(h).ndim
        if h_ndim == 0:
            inner = (sliced(2, None) - sliced(None, -2)) * 0.5 / h
            lower_edge /= h
            upper_edge /= h
        elif h_ndim == 1:
            if aval_of(h).shape[0] != aval_of(a).shape[axis]:
                raise ValueError("Spacing arrays must have the same length as the dimension along which the gradient "
                                 "is calculated.")
            h_shape = [1] * aval_of(a).ndim
            h_shape[axis] = aval_of(h).shape[0]
            h = h.reshape(h_shape)
            sliced_x = partial(lax_slicing.slice_in_dim, h, axis=axis)
            upper_edge /= sliced_x(1, 2) - sliced_x(0, 1)
            lower_edge /= sliced_x(-1, None) - sliced_x(-2, -1)
            dx1 = sliced_x(1, -1) - sliced_x(0, -2)
            dx2 = sliced_x(2, None) - sliced_x(1, -1)
            wa = -dx2 / (dx1 * (dx1 + dx2))
            wb = (dx2 - dx1) / (dx1 * dx2)
            wc = dx1 / (dx2 * (dx1 + dx2))
            inner = wa * sliced(0, -2) + wb * sliced(1, -1) + wc * sliced(2, None)
        else:
            raise ValueError("Spacing arrays must be 1D arrays or scalars.")
        return concatenate((upper_edge, inner, lower_edge), axis=axis)

    ndim = aval_of(a).ndim
    axes = tuple(range(ndim)) if axis is None else tuple(canonicalize_axis(i, ndim) for i in ensure_index_tuple(axis))
    if len(axes) == 0:
        return []
    if min(s for i, s in enumerate(aval_of(a).shape) if i in axes) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least 2 elements are "
                         "required.")
    if len(spacing) == 0:
        dx = [1.0] * len(axes)
    elif len(spacing) == 1:
        dx = list(spacing) * len(axes)
    elif len(spacing) == len(axes):
        dx = list(spacing)
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for axis={axis}")
    grads = [along(a, h, ax) for ax, h in zip(axes, dx)]
    return grads[0] if len(axes) == 1 else grads


def _interp(x, xp, fp, left=None, right=None, period=None):
    from pyjax._src.numpy.sorting import searchsorted
    from pyjax._src.numpy.ufuncs import abs as abs_
    from pyjax._src.numpy.ufuncs_extra import clip

    x, xp, fp = ensure_arraylike("interp", x, xp, fp)
    if aval_of(xp).shape != aval_of(fp).shape or aval_of(xp).ndim != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x_arr, xp_arr = promote_dtypes_inexact(x, xp)
    (fp_arr,) = promote_dtypes_inexact(fp)
    extrapolate = []
    for name, value in (("left", left), ("right", right)):
        if isinstance(value, str) and value != "extrapolate":
            raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', but got: {value!r}")
        extrapolate.append(isinstance(value, str))
    if dtypes.issubdtype(aval_of(x_arr).dtype, np.complexfloating):
        raise ValueError("jnp.interp: complex x values not supported.")
    if period is not None:
        if np.ndim(period) != 0:
            raise ValueError(f"period must be a scalar; got {period}")
        period = abs_(period)
        x_arr = x_arr % period
        xp_arr = xp_arr % period
        from pyjax._src.lax import sorting as lax_sorting

        xp_arr, fp_arr = lax_sorting.sort_key_val(xp_arr, fp_arr)
        xp_arr = concatenate([xp_arr[-1:] - period, xp_arr, xp_arr[:1] + period])
        fp_arr = concatenate([fp_arr[-1:], fp_arr, fp_arr[:1]])
    i = clip(searchsorted(xp_arr, x_arr, side="right"), 1, aval_of(xp_arr).shape[0] - 1)
    df = fp_arr[i] - fp_arr[i - 1]
    dx = xp_arr[i] - xp_arr[i - 1]
    delta = x_arr - xp_arr[i - 1]
    epsilon = np.spacing(np.finfo(aval_of(xp_arr).dtype).eps)
    tiny = lax_ew.abs(dx) <= epsilon  # keeps the gradient finite where dx ~ 0
    f = where(tiny, fp_arr[i - 1], fp_arr[i - 1] + (delta / where(tiny, 1, dx)) * df)
    # The fill value is taken before the comparison (and even when `period`
    # makes it unused), the order in which JAX stages these equations.
    if not extrapolate[0]:
        fill = fp_arr[0] if left is None else left
        if period is None:
            f = where(x_arr < xp_arr[0], fill, f)
    if not extrapolate[1]:
        fill = fp_arr[-1] if right is None else right
        if period is None:
            f = where(x_arr > xp_arr[-1], fill, f)
    return f


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of the points (xp, fp) at x (xp
    increasing); `left`/`right` give the values outside (or 'extrapolate');
    `period` makes the coordinates periodic."""
    static = [n for n, v in (("left", left), ("right", right)) if isinstance(v, str) or v is None]
    if period is None:
        static.append("period")
    return jit(_interp, static_argnames=static)(x, xp, fp, left, right, period)


@jit(static_argnames=("axis",))
def unwrap(p, discont=None, axis: int = -1, period=2 * np.pi):
    """Unwraps phase angles: jumps larger than `discont` are replaced by
    their complement modulo `period`."""
    from pyjax._src.numpy.cumulative import cumsum
    from pyjax._src.numpy.ufuncs import abs as abs_
    from pyjax._src.numpy.ufuncs_extra import mod

    p = ensure_arraylike("unwrap", p)
    p, period = promote_dtypes("unwrap", p, period)
    if dtypes.issubdtype(aval_of(p).dtype, np.complexfloating):
        raise ValueError("jnp.unwrap does not support complex inputs.")
    if aval_of(p).shape[axis] == 0:
        return p
    if discont is None:
        discont = period / 2
    interval = period // 2 if dtypes.issubdtype(aval_of(p).dtype, np.integer) else period / 2
    dd = diff(p, axis=axis)
    ddmod = mod(dd + interval, period) - interval
    ddmod = where((ddmod == -interval) & (dd > 0), interval, ddmod)
    correction = where(abs_(dd) < discont, 0, ddmod - dd)
    return concatenate((lax_slicing.slice_in_dim(p, 0, 1, axis=axis),
                        lax_slicing.slice_in_dim(p, 1, None, axis=axis) + cumsum(correction, axis=axis)), axis=axis)


@jit(static_argnames=("axis",))
def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """The integral of the samples `y` along `axis` by the trapezoidal rule
    (sample points `x`, or a uniform spacing `dx`)."""
    from pyjax._src.numpy.creation import asarray

    if x is None:
        y = ensure_arraylike("trapezoid", y)
        (y_arr,) = promote_dtypes_inexact(y)
        dx_array = asarray(dx)
        if aval_of(dx_array).ndim > 0:
            dx_array = lax_shapes.expand_dims(dx_array, tuple(range(aval_of(y_arr).ndim - aval_of(dx_array).ndim)))
            dx_array = moveaxis(dx_array, axis, -1)
    else:
        y, x = ensure_arraylike("trapezoid", y, x)
        y_arr, x_arr = promote_dtypes_inexact(y, x)
        dx_array = diff(x_arr) if aval_of(x_arr).ndim == 1 else moveaxis(diff(x_arr, axis=axis), axis, -1)
    y_arr = moveaxis(y_arr, axis, -1)
    if aval_of(dx_array).ndim == 0 or aval_of(dx_array).shape[-1] == 1:
        dx_reduced = dx_array if aval_of(dx_array).ndim == 0 else dx_array[..., 0]
        return dx_reduced * (y_arr.sum(-1) - 0.5 * (y_arr[..., 0] + y_arr[..., -1]))
    return 0.5 * (dx_array * (y_arr[..., 1:] + y_arr[..., :-1])).sum(-1)


def select(condlist, choicelist, default=0):
    """Elementwise, the choice of the first true condition (else `default`)."""
    from pyjax._src.numpy.creation import asarray
    from pyjax._src.numpy.reductions import argmax

    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})")
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    condlist = [asarray(c) for c in condlist]
    choicelist = [asarray(c) for c in choicelist]
    # The default goes first with a False condition: argmax of all-False is 0.
    choicelist = promote_dtypes("select", asarray(default), *choicelist)
    conditions = stack(broadcast_arrays(False, *condlist))
    idx = argmax(conditions.astype(bool), axis=0)
    return lax_ew.select_n(*broadcast_arrays(idx, *choicelist))


def choose(a, choices, out=None, mode: str = "raise"):
    """Elementwise, choices[a] (mode 'raise' needs concrete `a`; 'wrap' and
    'clip' handle out-of-range values)."""
    from pyjax._src.numpy.creation import array, asarray, indices
    from pyjax._src.numpy.indexing import concrete_value
    from pyjax._src.numpy.reductions import any as any_
    from pyjax._src.numpy.ufuncs_extra import clip

    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    check_arraylike("choose", a, *choices)
    a, *choices = [ensure_array(x) for x in (a, *choices)]
    if not dtypes.issubdtype(aval_of(a).dtype, np.integer):
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        if concrete_value(a) is None:
            raise errors.ConcretizationTypeError(
                a, "The error occurred because jnp.choose was jit-compiled with mode='raise'. Use mode='wrap' or "
                   "mode='clip' instead.")
        arr = asarray(a)
        if any_((arr < 0) | (arr >= n)):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        arr = asarray(a) % n
    elif mode == "clip":
        arr = clip(a, 0, n - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    arr, *choices = broadcast_arrays(arr, *choices)
    return array(choices)[(arr,) + indices(aval_of(arr).shape, sparse=True)]


def piecewise(x, condlist, funclist, *args, **kw):
    """Evaluates a piecewise function: where condlist[i] holds (the last true
    one wins), funclist[i](x) (or a constant); an extra function is the
    default. Each element runs only its own branch (a `switch`)."""
    from pyjax._src.numpy.creation import asarray

    x_arr = ensure_arraylike("piecewise", x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funclist = list(funclist[-1:]) + list(funclist[:-1])
    elif nf == nc:
        funclist = [0] + list(funclist)
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected; got {nf}")
    consts = {i: c for i, c in enumerate(funclist) if not callable(c)}
    funcs = {i: f for i, f in enumerate(funclist) if callable(f)}
    return _piecewise(x_arr, asarray(condlist, dtype=bool), consts, frozenset(funcs.items()), *args, **kw)


@partial(jit, static_argnames=["funcs"])
def _piecewise(x, condlist, consts, funcs, *args, **kw):
    from pyjax._src.lax.control_flow import switch
    from pyjax._src.numpy.creation import array, zeros_like
    from pyjax._src.numpy.cumulative import cumsum
    from pyjax._src.numpy.reductions import argmax
    from pyjax._src.numpy.vectorize import vectorize

    funcdict = dict(funcs)
    funclist = [consts.get(i, funcdict.get(i)) for i in range(len(condlist) + 1)]
    indices = argmax(cumsum(concatenate([zeros_like(condlist[:1]), condlist], 0), 0), 0)
    dtype = aval_of(x).dtype

    def call(f):
        return lambda v: f(v, *args, **kw).astype(dtype)

    def const(c):
        return lambda v: array(c, dtype=dtype)

    funclist = [call(f) if callable(f) else const(f) for f in funclist]
    return vectorize(switch, excluded=(1,))(indices, funclist, x)


@jit(static_argnames=("rowvar", "bias", "ddof", "dtype"))
def cov(m, y=None, rowvar: bool = True, bias: bool = False, ddof=None, fweights=None, aweights=None, dtype=None):
    """The covariance matrix of the variables in the rows of `m` (columns if
    not `rowvar`), with optional frequency and analytic weights."""
    from pyjax._src.numpy.contractions import dot
    from pyjax._src.numpy.creation import array, asarray, full
    from pyjax._src.numpy.reductions import average
    from pyjax._src.numpy.reductions import sum as sum_
    from pyjax._src.numpy.ufuncs import abs as abs_
    from pyjax._src.numpy.ufuncs import true_divide

    if y is not None:
        m, y = promote_args_inexact("cov", m, y)
        if aval_of(y).ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    else:
        (m,) = promote_args_inexact("cov", m)
    if aval_of(m).ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"cov: dtype must be a subclass of float or complex; got dtype={dtype}")
    X = atleast_2d(m)
    if not rowvar and aval_of(m).ndim != 1:
        X = X.T
    if aval_of(X).shape[0] == 0:
        return array([]).reshape(0, 0)
    if y is not None:
        y_arr = atleast_2d(y)
        if not rowvar and aval_of(y_arr).shape[0] != 1:
            y_arr = y_arr.T
        X = concatenate((X, y_arr), axis=0)
    if aval_of(X).shape[1] == 0:
        shape = () if aval_of(X).shape[0] == 1 else (aval_of(X).shape[0],) * 2
        return full(shape, np.nan, dtype=aval_of(X).dtype)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    w = None
    if fweights is not None:
        fweights = ensure_arraylike("cov", fweights)
        if aval_of(fweights).ndim > 1:
            raise RuntimeError("cannot handle multidimensional fweights")
        if aval_of(fweights).shape[0] != aval_of(X).shape[1]:
            raise RuntimeError("incompatible numbers of samples and fweights")
        if not dtypes.issubdtype(aval_of(fweights).dtype, np.integer):
            raise TypeError("fweights must be integer.")
        w = abs_(fweights)
    if aweights is not None:
        aweights = ensure_arraylike("cov", aweights)
        if aval_of(aweights).ndim > 1:
            raise RuntimeError("cannot handle multidimensional aweights")
        if aval_of(aweights).shape[0] != aval_of(X).shape[1]:
            raise RuntimeError("incompatible numbers of samples and aweights")
        aweights = abs_(aweights)
        w = asarray(aweights if w is None else w * aweights)
    if dtype is not None:
        X = X.astype(dtype)
        w = w.astype(dtype) if w is not None else w
    avg, w_sum = average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        f = aval_of(X).shape[1] - ddof
    elif ddof == 0:
        f = w_sum
    elif aweights is None:
        f = w_sum - ddof
    else:
        f = w_sum - ddof * sum_(w * aweights) / w_sum
    X = X - avg[:, None]
    if w is None:
        X_T = X.T
    else:
        X_T = (X * lax_shapes.broadcast(w, (1,) * (aval_of(X).ndim - aval_of(w).ndim))).T
    return true_divide(dot(X, X_T.conj()), f).squeeze()


@jit(static_argnames=("rowvar", "dtype"))
def corrcoef(x, y=None, rowvar: bool = True, dtype=None):
    """Pearson correlation coefficients (cov normalised by the standard
    deviations, clipped to [-1, 1])."""
    from pyjax._src.numpy.matrices import diag
    from pyjax._src.numpy.ufuncs import divide, imag, real, sqrt
    from pyjax._src.numpy.ufuncs_extra import clip, iscomplexobj

    check_arraylike("corrcoef", x)
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"corrcoef: dtype must be a subclass of float or complex; got dtype={dtype}")
    c = cov(x, y, rowvar, dtype=dtype)
    if aval_of(c).ndim == 0:
        return divide(c, c)
    d = diag(c)
    stddev = sqrt(real(d)).astype(aval_of(c).dtype)
    c = c / stddev[:, None] / stddev[None, :]
    real_part = clip(real(c), -1, 1)
    if iscomplexobj(c):
        return lax_ew.complex(real_part, clip(imag(c), -1, 1))
    return real_part


@jit(static_argnames=("mode", "op", "precision", "preferred_element_type"))
def _conv(x, y, mode, op, precision, preferred_element_type=None):
    from pyjax._src.lax.convolution import conv_general_dilated
    from pyjax._src.numpy.ufuncs import conj

    if aval_of(x).ndim != 1 or aval_of(y).ndim != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:
        x, y = promote_dtypes_inexact(x, y)
    else:
        x, y = promote_dtypes(op, x, y)
    if aval_of(x).shape[0] == 0 or aval_of(y).shape[0] == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {aval_of(x).shape} and {aval_of(y).shape}.")
    out_order = slice(None)
    if op == "correlate":
        y = conj(y)
        if aval_of(x).shape[0] < aval_of(y).shape[0]:
            x, y = y, x
            out_order = slice(None, None, -1)
    else:
        if aval_of(x).shape[0] < aval_of(y).shape[0]:
            x, y = y, x
        y = flip(y)
    n = aval_of(y).shape[0]
    if mode == "valid":
        padding = [(0, 0)]
    elif mode == "same":
        padding = [(n // 2, n - n // 2 - 1)]
    elif mode == "full":
        padding = [(n - 1, n - 1)]
    else:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    result = conv_general_dilated(x[None, None, :], y[None, None, :], (1,), padding, precision=precision,
                                  preferred_element_type=preferred_element_type)
    return result[0, 0, out_order]


@jit(static_argnames=("mode", "precision", "preferred_element_type"))
def convolve(a, v, mode: str = "full", *, precision=None, preferred_element_type=None):
    """The discrete 1-D convolution of `a` and `v` ('full', 'same' or 'valid')."""
    a, v = ensure_arraylike("convolve", a, v)
    return _conv(a, v, mode=mode, op="convolve", precision=precision, preferred_element_type=preferred_element_type)


@jit(static_argnames=("mode", "precision", "preferred_element_type"))
def correlate(a, v, mode: str = "valid", *, precision=None, preferred_element_type=None):
    """The 1-D cross-correlation of `a` and `v` ('valid' by default)."""
    a, v = ensure_arraylike("correlate", a, v)
    return _conv(a, v, mode=mode, op="correlate", precision=precision, preferred_element_type=preferred_element_type)


def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
    """`func1d` applied to every 1-D slice of `arr` along `axis` (vmapped)."""
    from pyjax._src.api import vmap

    check_arraylike("apply_along_axis", arr)
    ndim = np.ndim(arr) if not hasattr(arr, "aval") else aval_of(arr).ndim
    axis = canonicalize_axis(axis, ndim)

    def func(a):
        return func1d(a, *args, **kwargs)

    for i in range(1, ndim - axis):
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = vmap(func, in_axes=0, out_axes=0)
    return func(arr)


def apply_over_axes(func, a, axes):
    """`func(a, axis)` applied for each axis in turn (results keep a's rank)."""
    a_arr = ensure_arraylike("apply_over_axes", a)
    for axis in axes:
        b = func(a_arr, axis)
        if aval_of(b).ndim == aval_of(a_arr).ndim:
            a_arr = b
        elif aval_of(b).ndim == aval_of(a_arr).ndim - 1:
            a_arr = expand_dims(b, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return a_arr


@jit(static_argnames=("axis", "bitorder"))
def packbits(a, axis: int | None = None, bitorder: str = "big"):
    """Packs the truth values of `a` into the bits of uint8 (8 per byte)."""
    from pyjax._src.numpy.creation import arange

    arr = ensure_arraylike("packbits", a)
    if not (dtypes.issubdtype(aval_of(arr).dtype, np.integer) or aval_of(arr).dtype == np.bool_):
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    arr = lax_ew.ne(arr, constant_like(arr, 0)).astype("uint8")
    bits = arange(8, dtype="uint8")
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr = ravel(arr)
        axis = 0
    arr = swapaxes(arr, axis, -1)
    rest = aval_of(arr).shape[-1] % 8
    if rest:
        arr = lax_slicing.pad(arr, np.uint8(0), (aval_of(arr).ndim - 1) * [(0, 0, 0)] + [(0, 8 - rest, 0)])
    shape = aval_of(arr).shape
    arr = arr.reshape(shape[:-1] + (shape[-1] // 8, 8))
    bits = expand_dims(bits, tuple(range(aval_of(arr).ndim - 1)))
    packed = (arr << bits).sum(-1).astype("uint8")
    return swapaxes(packed, axis, -1)


@jit(static_argnames=("axis", "count", "bitorder"))
def unpackbits(a, axis: int | None = None, count: int | None = None, bitorder: str = "big"):
    """Unpacks the bits of a uint8 array into an array of 0/1 bytes."""
    from pyjax._src.numpy.creation import arange, asarray
    from pyjax._src.numpy.pad import pad

    arr = ensure_arraylike("unpackbits", a)
    if aval_of(arr).dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = asarray(1) << arange(8, dtype="uint8")
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr = ravel(arr)
        axis = 0
    arr = swapaxes(arr, axis, -1)
    unpacked = ((arr[..., None] & expand_dims(bits, tuple(range(aval_of(arr).ndim)))) > 0).astype("uint8")
    unpacked = unpacked.reshape(aval_of(unpacked).shape[:-2] + (-1,))
    if count is not None:
        n = aval_of(unpacked).shape[-1]
        if count > n:
            unpacked = pad(unpacked, [(0, 0)] * (aval_of(unpacked).ndim - 1) + [(0, count - n)])
        else:
            unpacked = unpacked[..., :count]
    return swapaxes(unpacked, axis, -1)


# ---------------------------------------------------------------------------
# Static queries


def _shape_of(a) -> tuple:
    if hasattr(a, "shape") and not isinstance(a, (list, tuple)):
        return tuple(a.shape)
    return np.shape(a)


def shape(a) -> tuple:
    """The shape of `a` (a static tuple). A list or tuple is accepted with
    JAX's DeprecationWarning."""
    if not hasattr(a, "shape"):
        check_arraylike("shape", a, emit_warning=True, stacklevel=4)
    return _shape_of(a)


def ndim(a) -> int:
    """The number of axes of `a`."""
    if not hasattr(a, "ndim"):
        check_arraylike("ndim", a, emit_warning=True, stacklevel=4)
    return len(_shape_of(a))


def size(a, axis=None) -> int:
    """The number of elements of `a` (along `axis` if given)."""
    check_arraylike("size", a, emit_warning=True, stacklevel=4)
    s = _shape_of(a)
    if axis is None:
        return int(np.prod(s, dtype=np.int64))
    axes = ensure_index_tuple(axis)
    return int(np.prod([s[canonicalize_axis(i, len(s))] for i in axes], dtype=np.int64))


def isscalar(element) -> bool:
    """Whether `element` is a scalar: a Python or NumPy scalar, or a 0-d array."""
    if np.isscalar(element):
        return True
    if isinstance(element, (np.ndarray, core.Tracer)) or hasattr(element, "aval"):
        return len(_shape_of(element)) == 0
    if getattr(element, "__jax_array__", None) is not None:
        return aval_of(element.__jax_array__()).ndim == 0
    return False


def iterable(y) -> bool:
    """Whether `y` can be iterated over."""
    try:
        iter(y)
    except TypeError:
        return False
    return True


def array_equal(a1, a2, equal_nan: bool = False):
    """Whether two arrays have the same shape and elements (NaNs equal if
    `equal_nan`)."""
    from pyjax._src.numpy.creation import array, asarray
    from pyjax._src.numpy.reductions import all as all_
    from pyjax._src.numpy.ufuncs import isnan, logical_and, logical_or

    a1, a2 = asarray(a1), asarray(a2)
    if aval_of(a1).shape != aval_of(a2).shape:
        return array(False, dtype=bool)
    eq = asarray(a1 == a2)
    if equal_nan:
        eq = logical_or(eq, logical_and(isnan(a1), isnan(a2)))
    return all_(eq)


def array_equiv(a1, a2):
    """Whether two arrays are equal after broadcasting to a common shape."""
    from pyjax._src.numpy.creation import array, asarray
    from pyjax._src.numpy.reductions import all as all_
    from pyjax._src.numpy.ufuncs import equal

    a1, a2 = asarray(a1), asarray(a2)
    try:
        eq = equal(a1, a2)
    except ValueError:
        return array(False)
    return all_(eq)


@dispatch.fast_path
def astype(x, dtype, /, *, copy: bool = False, device=None):
    """`x` converted to `dtype` (the default float type when None)."""
    import warnings

    from pyjax._src.numpy.util import convert_element_type

    x = ensure_arraylike("astype", x)
    dtype = dtypes.default_float_dtype() if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, "astype")
    if dtypes.issubdtype(aval_of(x).dtype, np.complexfloating):
        if dtypes.isdtype(dtype, ("integral", "real floating")):
            warnings.warn("Casting from complex to real dtypes will soon raise a ValueError. Please first use jnp.real "
                          "or jnp.imag to take the real/imaginary component of your input.", DeprecationWarning,
                          stacklevel=2)
            return lax_ew._convert_element_type(x, dtype, False, warn_on_complex_to_real_cast=False)
        if np.dtype(dtype) == bool:
            # convert_element_type(complex, bool) would look at the real part only.
            x = x != constant_like(x, 0)
    result = convert_element_type(x, dtype, False)
    return lax_ew.copy_p.bind(result) if copy else result


def load(file, *args, **kwargs):
    """numpy.load, returning an Array (bfloat16 data restored from its void
    representation)."""
    from pyjax._src.numpy.creation import asarray

    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == "V2":
            out = out.view(dtypes.bfloat16)
        try:
            out = asarray(out)
        except (TypeError, AssertionError):
            pass
    return out


def get_printoptions():
    """NumPy's print options (Arrays print through NumPy)."""
    return np.get_printoptions()


def printoptions(*args, **kwargs):
    """A context manager setting NumPy's print options."""
    return np.printoptions(*args, **kwargs)


def set_printoptions(*args, **kwargs):
    """Sets NumPy's print options."""
    return np.set_printoptions(*args, **kwargs)
