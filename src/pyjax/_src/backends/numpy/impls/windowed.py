"""NumPy impls of the windowed, cumulative and general reductions.

reduce_window_{sum,max,min}: dilate and pad the operand with the monoid's
identity, view every window (a strided view, nothing copied) and combine the
taps with one vectorised ufunc call each (or reduce the view's window axes
in one call when a window has very many taps).

The general `reduce_window` and `reduce` evaluate their computation jaxpr
over whole arrays at once: a reduction computation acts on scalars, so when
every equation that touches its inputs is elementwise (or a call whose body
is), running it on arrays computes all windows / all output positions in
one pass per window tap. The fold order is the one XLA's CPU backend uses:
the accumulator (starting at the initial value) is the first argument, taps
come in row-major order, and padding and base-dilation holes are skipped,
not folded in as initial values (observable with a non-identity initial
value). Computations that are not elementwise in their inputs fall back to a
slow path that runs the jaxpr once per scalar.

Cumulative reductions are NumPy accumulations (flipped for `reverse`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from pyjax._src import dtypes
from pyjax._src.backends.numpy.impls import standard as impls
from pyjax._src.backends.numpy.impls.convolution import dilate_and_pad, window_view
from pyjax._src.backends.numpy.impls.interpreter import run_jaxpr
from pyjax._src.jaxpr import Jaxpr, Literal
from pyjax._src.lax import reduce as reduce_lax
from pyjax._src.lax.elementwise import ge_p as lax_ge_p
from pyjax._src.lax import select_and_scatter as sas_lax
from pyjax._src.lax import windowed as win

IMPLS: dict = {}

# Which primitives act elementwise (their impls broadcast scalars against
# arrays) and which are calls evaluating a body jaxpr in place (the param
# holding it) is declared on each: `primitive.elementwise`,
# `primitive.call_body`. (A bitcast_convert_type that changes widths changes
# the shape: never vectorised here.)


def _impls() -> dict:
    # The merged table (impls.py imports this module, so look it up lazily).
    from pyjax._src.backends.numpy.impls import IMPLS as table

    return table


# ---------------------------------------------------------------------------
# Evaluating a scalar computation over arrays


def _vectorisable(jaxpr: Jaxpr) -> bool:
    """Whether every equation reading (transitively) an input of `jaxpr` is
    elementwise on scalars, so that the jaxpr can run on arrays. Equations
    on constants alone (slicing a closed-over array, say) may be anything."""
    dependent = set(jaxpr.invars)
    for eqn in jaxpr.eqns:
        if not any(type(v) is not Literal and v in dependent for v in eqn.invars):
            continue
        body_param = eqn.primitive.call_body
        if body_param is not None and body_param in eqn.params:
            body = eqn.params[body_param]
            # Every input of the body counts as dependent: conservative.
            if not _vectorisable(body):
                return False
        elif (not eqn.primitive.elementwise or eqn.primitive.name == "bitcast_convert_type"
              or any(v.aval.shape != () for v in (*eqn.invars, *eqn.outvars))):
            return False
        dependent.update(eqn.outvars)
    return True


def _run(jaxpr: Jaxpr, consts: Sequence, args: Sequence) -> list:
    """Runs `jaxpr` (with these consts) on NumPy values: the backend's interpreter."""
    return run_jaxpr(jaxpr.replace(consts=list(consts)), _impls(), args)


def combiner(jaxpr: Jaxpr, consts: Sequence, out_dtypes: Sequence[np.dtype]) -> Callable:
    """A function (*accumulators, *elements) -> accumulators that applies
    the computation elementwise to arrays of one shape."""
    if _vectorisable(jaxpr):
        def combine(*args):
            shape = np.shape(args[0])
            outs = _run(jaxpr, consts, args)
            return [np.broadcast_to(np.asarray(o).astype(d, copy=False), shape) for o, d in
                    zip(outs, out_dtypes, strict=True)]
        return combine

    def combine_slowly(*args):
        # Not elementwise in its inputs: one run of the jaxpr per position.
        arrays = [np.asarray(a) for a in args]
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        arrays = [np.broadcast_to(a, shape) for a in arrays]
        outs = [np.empty(shape, d) for d in out_dtypes]
        for index in np.ndindex(*shape):
            values = _run(jaxpr, consts, [a[index] for a in arrays])
            for out, value in zip(outs, values, strict=True):
                out[index] = value
        return outs
    return combine_slowly


# ---------------------------------------------------------------------------
# reduce_window_{sum,max,min}


# Windows with at most this many taps are reduced tap by tap.
WINDOW_TAP_LOOP_MAX = 256


# native/pooling.py's kernels, once install() sets them (NumPy's loops until then).
_pool_kernel: list = [None]


def set_pool_kernel(kernel) -> None:
    kernel.reference[:] = [_numpy_max_pool, _numpy_max_pool_grad, _numpy_window_sum]
    _pool_kernel[0] = kernel


def _numpy_max_pool(x: np.ndarray, window: tuple) -> np.ndarray:
    params = _pool_params(window)
    return _NUMPY_WINDOW["max"](x, base_dilation=(1,) * 4, window_dilation=(1,) * 4, **params)


def _numpy_max_pool_grad(x: np.ndarray, s: np.ndarray, window: tuple) -> np.ndarray:
    return _numpy_select_and_scatter_add(s, x, select_prim=lax_ge_p, **_pool_params(window))


def _numpy_window_sum(x: np.ndarray, window: tuple, strides: tuple) -> np.ndarray:
    return _NUMPY_WINDOW["sum"](x, window_dimensions=(1, *window, 1), window_strides=(1, *strides, 1),
                                padding=((0, 0),) * 4, base_dilation=(1,) * 4, window_dilation=(1,) * 4)


def _pool_params(window: tuple) -> dict:
    return {"window_dimensions": (1, *window, 1), "window_strides": (1, *window, 1), "padding": ((0, 0),) * 4}


def _native_pool(x, window_dimensions, window_strides, padding, *dilations, kind: str = "max"):
    """The native kernels when they take this pooling (native/pooling.py), else None."""
    kernel = _pool_kernel[0]
    if kernel is not None and (kernel.takes if kind == "max" else kernel.takes_sum)(
            x, window_dimensions, window_strides, padding, *dilations):
        return kernel if kernel.ready() else None
    return None


_NUMPY_WINDOW: dict = {}


def _monoid_window(kind: str):
    def impl(operand, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
        if kind != "min":
            x = np.asarray(operand)
            kernel = _native_pool(x, window_dimensions, window_strides, padding, base_dilation, window_dilation,
                                  kind=kind)
            window = tuple(window_dimensions[1:3])
            out = None if kernel is None else kernel.max_pool(x, window) if kind == "max" else kernel.window_sum(
                x, window, tuple(window_strides[1:3]))
            if out is not None:
                return out
        return numpy_impl(operand, window_dimensions=window_dimensions, window_strides=window_strides,
                          padding=padding, base_dilation=base_dilation, window_dilation=window_dilation)

    def numpy_impl(operand, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
        x = np.asarray(operand)
        out_shape = win.reduce_window_shape_tuple(x.shape, window_dimensions, window_strides, padding,
                                                  base_dilation, window_dilation)
        if kind == "sum":
            identity, accumulate = 0, _sum_dtype(x.dtype)
        elif kind == "max":
            identity, accumulate = reduce_lax.max_identity(x.dtype), x.dtype
        else:
            identity, accumulate = reduce_lax.min_identity(x.dtype), x.dtype
        padded = dilate_and_pad(x.astype(accumulate, copy=False), base_dilation, padding, identity)
        axes = tuple(range(x.ndim))
        windows = window_view(padded, axes, window_dimensions, window_strides, window_dilation)
        if windows is None or math.prod(out_shape) == 0:
            return np.full(out_shape, identity, x.dtype)
        ufunc = {"sum": np.add, "max": np.maximum, "min": np.minimum}[kind]  # max/min propagate NaN
        taps = math.prod(window_dimensions)
        if taps <= WINDOW_TAP_LOOP_MAX:
            # One vectorised ufunc call per tap, in row-major order: much
            # faster than reducing the 2n-dimensional strided view.
            out = None
            for tap in np.ndindex(*window_dimensions):
                slab = windows[(Ellipsis, *tap)]
                out = slab.copy() if out is None else ufunc(out, slab, out=out)
            if kind != "sum" and impls.float_zeros(out):
                # XLA orders -0.0 below +0.0; NumPy kept the first zero it met.
                won = None
                for tap in np.ndindex(*window_dimensions):
                    w = impls.zero_winners(windows[(Ellipsis, *tap)], kind == "max")
                    won = w if won is None else won | w
                out = impls.ordered_zeros(out, won, kind == "max")
        else:
            out = ufunc.reduce(windows.reshape(*out_shape, taps), axis=-1)
            if kind != "sum" and impls.float_zeros(out):
                won = np.logical_or.reduce(impls.zero_winners(windows.reshape(*out_shape, taps), kind == "max"), axis=-1)
                out = impls.ordered_zeros(out, won, kind == "max")
        return np.asarray(out).astype(x.dtype, copy=False)

    _NUMPY_WINDOW[kind] = numpy_impl
    return impl


def _sum_dtype(dtype: np.dtype) -> np.dtype:
    # Half floats are summed in float32 (as XLA's CPU backend does), then rounded once.
    if dtypes.issubdtype(dtype, np.floating) and np.dtype(dtype).itemsize < 4:
        return np.dtype(np.float32)
    return np.dtype(dtype)


IMPLS[win.reduce_window_sum_p] = _monoid_window("sum")
IMPLS[win.reduce_window_max_p] = _monoid_window("max")
IMPLS[win.reduce_window_min_p] = _monoid_window("min")


# ---------------------------------------------------------------------------
# The general reduce_window


def _reduce_window(*args, jaxpr, consts, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation):
    half = len(args) // 2
    operands = [np.asarray(a) for a in args[:half]]
    inits = [np.asarray(a, dtype=o.dtype) for a, o in zip(args[half:], operands, strict=True)]
    out_dtypes = [o.dtype for o in operands]
    shape = operands[0].shape
    out_shape = win.reduce_window_shape_tuple(shape, window_dimensions, window_strides, padding,
                                              base_dilation, window_dilation)
    accumulators = [np.full(out_shape, init, init.dtype) for init in inits]
    axes = tuple(range(len(shape)))
    views = [window_view(dilate_and_pad(o, base_dilation, padding, init), axes, window_dimensions,
                         window_strides, window_dilation) for o, init in zip(operands, inits, strict=True)]
    if views[0] is None or math.prod(out_shape) == 0:
        return accumulators
    # Positions that hold an operand element (not padding, not a dilation hole).
    holes = any(r != 1 for r in base_dilation) or any(p != (0, 0) for p in padding)
    mask = window_view(dilate_and_pad(np.ones(shape, bool), base_dilation, padding, False), axes,
                       window_dimensions, window_strides, window_dilation) if holes else None
    body_consts = jaxpr.consts if len(jaxpr.consts) == len(jaxpr.constvars) else consts
    combine = combiner(jaxpr, body_consts, out_dtypes)
    for tap in np.ndindex(*window_dimensions):
        index = (Ellipsis, *tap)
        combined = combine(*accumulators, *(v[index] for v in views))
        if mask is None:
            accumulators = [np.array(c) for c in combined]
        else:
            valid = mask[index]
            accumulators = [np.where(valid, c, a) for c, a in zip(combined, accumulators, strict=True)]
    return accumulators


IMPLS[win.reduce_window_p] = _reduce_window


# ---------------------------------------------------------------------------
# The general reduce

# Up to this many elements per output, fold in order (what XLA's CPU backend
# does for short reductions); longer ones combine pairwise, log2(n) passes.
SEQUENTIAL_FOLD_MAX = 64


def _reduce(*args, computation, jaxpr, dimensions):
    half = len(args) // 2
    operands = [np.asarray(a) for a in args[:half]]
    inits = [np.asarray(a, dtype=o.dtype) for a, o in zip(args[half:], operands, strict=True)]
    out_dtypes = [o.dtype for o in operands]
    if not dimensions:
        # XLA reduces over no dimensions to the operands themselves: the
        # initial value is not folded in.
        return [o.copy() for o in operands]
    shape = operands[0].shape
    kept = [d for d in range(len(shape)) if d not in dimensions]
    out_shape = tuple(shape[d] for d in kept)
    count = math.prod(shape[d] for d in dimensions)
    # (out..., count): the reduced dimensions last, flattened in row-major order.
    flat = [np.transpose(o, (*kept, *dimensions)).reshape(*out_shape, count) for o in operands]
    accumulators = [np.full(out_shape, init, init.dtype) for init in inits]
    if count == 0:
        return accumulators
    combine = combiner(jaxpr, jaxpr.consts, out_dtypes)
    if count <= SEQUENTIAL_FOLD_MAX:
        for k in range(count):
            accumulators = [np.array(c) for c in combine(*accumulators, *(f[..., k] for f in flat))]
        return accumulators
    while flat[0].shape[-1] > 1:
        n = flat[0].shape[-1]
        pairs = combine(*(f[..., : n // 2] for f in flat), *(f[..., n // 2: 2 * (n // 2)] for f in flat))
        flat = [np.concatenate([p, f[..., 2 * (n // 2):]], axis=-1) for p, f in zip(pairs, flat, strict=True)]
    return [np.array(c) for c in combine(*accumulators, *(f[..., 0] for f in flat))]


IMPLS[reduce_lax.reduce_p] = _reduce


# ---------------------------------------------------------------------------
# Cumulative reductions


def _half_to_float32(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float32) if dtypes.issubdtype(dtype, np.floating) and np.dtype(dtype).itemsize < 4 else dtype


def _logaddexp_accumulate(x: np.ndarray, axis: int) -> np.ndarray:
    if np.issubdtype(x.dtype, np.complexfloating):
        # NumPy has no complex logaddexp: shift by the largest real part.
        shift = np.max(x.real, axis=axis, keepdims=True)
        shift = np.where(np.isfinite(shift), shift, 0)
        return shift + np.log(np.cumsum(np.exp(x - shift), axis=axis))
    if not dtypes.issubdtype(x.dtype, np.inexact):
        # JAX fails the same way: the scan's initial value, -inf, is no integer.
        raise OverflowError("cannot convert float infinity to integer")
    return np.logaddexp.accumulate(x, axis=axis)


def _ordered_accumulate(ufunc, x, axis):
    out = ufunc.accumulate(x, axis=axis)
    if impls.float_zeros(out):
        # XLA orders -0.0 below +0.0; NumPy kept the first zero it met.
        is_max = ufunc is np.maximum
        out = impls.ordered_zeros(out, np.logical_or.accumulate(impls.zero_winners(x, is_max), axis=axis), is_max)
    return out


_ACCUMULATORS = {
    # (np.cumsum is add.accumulate behind two Python wrappers.)
    "cumsum": lambda x, axis: np.add.accumulate(x, axis=axis, dtype=x.dtype),
    "cumprod": lambda x, axis: np.multiply.accumulate(x, axis=axis, dtype=x.dtype),
    "cummax": lambda x, axis: _ordered_accumulate(np.maximum, x, axis),  # NaN-propagating
    "cummin": lambda x, axis: _ordered_accumulate(np.minimum, x, axis),
    "cumlogsumexp": _logaddexp_accumulate,
}


def _cumulative(name: str):
    accumulate = _ACCUMULATORS[name]

    def impl(operand, *, axis: int, reverse: bool):
        x = np.asarray(operand)
        if x.shape[axis] == 0:
            return x.copy()
        if not reverse and x.dtype.kind in "biuf" and x.dtype.itemsize >= 4:
            return np.ascontiguousarray(accumulate(x, axis))  # (no widening, no flips)
        work = x.astype(_half_to_float32(x.dtype), copy=False)
        if reverse:
            work = np.flip(work, axis)
        out = accumulate(work, axis)
        if reverse:
            out = np.flip(out, axis)
        return np.ascontiguousarray(out).astype(x.dtype, copy=False)

    return impl


for _primitive in (win.cumsum_p, win.cumprod_p, win.cummax_p, win.cummin_p, win.cumlogsumexp_p):
    IMPLS[_primitive] = _cumulative(_primitive.name)


# ---------------------------------------------------------------------------
# select_and_gather_add / select_and_scatter_add (the windowed max/min's
# derivatives)


def _selects(select_prim) -> Callable:
    # select(a, b): keep a (the element chosen so far) over b. ge keeps the
    # first of equal maxima, le the first of equal minima; a NaN on either
    # side moves the choice on, as XLA's comparisons do.
    return {"ge": np.greater_equal, "le": np.less_equal}[select_prim.name]


def _select_identity(select_prim, dtype):
    return reduce_lax.max_identity(dtype) if select_prim.name == "ge" else reduce_lax.min_identity(dtype)


def _select_and_gather_add(tangents, operand, *, select_prim, window_dimensions, window_strides, padding,
                           base_dilation, window_dilation):
    # A variadic reduce_window over (operand, tangents) pairs, as JAX lowers
    # it on the CPU: padding and dilation holes are (identity, 0) pairs; the
    # pair whose operand the select keeps wins, taps in row-major order.
    x, t = np.asarray(operand), np.asarray(tangents)
    keep = _selects(select_prim)
    out_shape = win.reduce_window_shape_tuple(x.shape, window_dimensions, window_strides, padding,
                                              base_dilation, window_dilation)
    identity = _select_identity(select_prim, x.dtype)
    best_x = np.full(out_shape, identity, x.dtype)
    best_t = np.zeros(out_shape, t.dtype)
    axes = tuple(range(x.ndim))
    views = [window_view(dilate_and_pad(a, base_dilation, padding, fill), axes, window_dimensions, window_strides,
                         window_dilation) for a, fill in ((x, identity), (t, np.zeros((), t.dtype)))]
    if views[0] is None or math.prod(out_shape) == 0:
        return best_t
    for tap in np.ndindex(*window_dimensions):
        index = (Ellipsis, *tap)
        tap_x, tap_t = views[0][index], views[1][index]
        kept = keep(best_x, tap_x)
        best_x = np.where(kept, best_x, tap_x)
        best_t = np.where(kept, best_t, tap_t)
    return best_t


def _select_and_scatter_add(source, operand, *, select_prim, window_dimensions, window_strides, padding):
    if select_prim.name == "ge":
        x, s = np.asarray(operand), np.asarray(source)
        kernel = _native_pool(x, window_dimensions, window_strides, padding) if s.dtype == np.float32 else None
        out = kernel.max_pool_grad(x, s, tuple(window_dimensions[1:3])) if kernel is not None else None
        if out is not None:
            return out
    return _numpy_select_and_scatter_add(source, operand, select_prim=select_prim, window_dimensions=window_dimensions,
                                         window_strides=window_strides, padding=padding)


def _numpy_select_and_scatter_add(source, operand, *, select_prim, window_dimensions, window_strides, padding):
    # XLA's SelectAndScatter with an add scatter: every window picks one
    # element of the operand (padded with the select's identity, as JAX's
    # CPU lowering pads it) and adds its source value there.
    x, s = np.asarray(operand), np.asarray(source)
    keep = _selects(select_prim)
    ones = (1,) * x.ndim
    identity = _select_identity(select_prim, x.dtype)
    padded = dilate_and_pad(x, ones, padding, identity)
    out = np.zeros(padded.shape, s.dtype)
    axes = tuple(range(x.ndim))
    windows = window_view(padded, axes, window_dimensions, window_strides, ones)
    if windows is not None and s.size:
        taps = list(np.ndindex(*window_dimensions))
        chosen = _chosen_taps(windows, taps, s.shape, select_prim.name == "ge", keep)
        # A finite source times a 0/1 mask is the source or a signed zero, and
        # adding a zero of either sign leaves `out` as it is (it starts at +0.0
        # and never holds -0.0): the same bits as adding where(mask, s, 0).
        # (A finite sum means finite elements; an overflowing one only sends
        # the call the slower way.)
        finite = np.issubdtype(s.dtype, np.floating) and bool(np.isfinite(np.add.reduce(s, axis=None)))
        zero = np.zeros((), s.dtype)
        for k, tap in enumerate(taps):
            # The elements tap k reads, one per window: distinct positions.
            target = tuple(slice(t, t + st * (n - 1) + 1, st)
                           for t, st, n in zip(tap, window_strides, s.shape, strict=True))
            mask = chosen == k
            out[target] += s * mask if finite else np.where(mask, s, zero)
    if all(lo == 0 and hi == 0 for lo, hi in padding):
        return out
    # Back to the operand's positions (negative padding had cut some off:
    # they received nothing).
    result = np.zeros(x.shape, s.dtype)
    source, target = [], []
    for (lo, _), d, length in zip(padding, x.shape, out.shape, strict=True):
        start, stop = max(lo, 0), min(lo + d, length)
        if stop <= start:
            return result
        source.append(slice(start, stop))
        target.append(slice(start - lo, stop - lo))
    result[tuple(target)] = out[tuple(source)]
    return result


def _chosen_taps(windows, taps, shape, is_max: bool, keep) -> np.ndarray:
    """The tap each window's select chooses (first of equal extrema; a NaN
    on either side moves the choice on). Without NaNs that is "moves where
    strictly beyond the extremum so far", tracked by np.maximum (minimum);
    they propagate NaNs, so a NaN in the extrema sends the call to the
    select's own comparisons. Taps come in increasing order: "chosen becomes
    k where moved" is a maximum with k * moved (np.where is the slow step)."""
    index = np.uint8 if len(taps) < 256 else np.intp
    chosen = np.zeros(shape, index)
    first = windows[(Ellipsis, *taps[0])]
    if np.issubdtype(first.dtype, np.floating):
        beyond, extremum = (np.greater, np.maximum) if is_max else (np.less, np.minimum)
        best = first.copy()
        for k, tap in enumerate(taps[1:], start=1):
            value = windows[(Ellipsis, *tap)]
            moved = beyond(value, best)
            extremum(best, value, out=best)
            np.maximum(chosen, np.multiply(moved, k, dtype=index), out=chosen)
        # (a NaN anywhere in the sum: the extrema held one, or infinities cancelled)
        if not np.isnan(np.add.reduce(best, axis=None)):
            return chosen
        chosen[...] = 0
    return _chosen_by_select(windows, taps, chosen, keep)


def _chosen_by_select(windows, taps, chosen, keep) -> np.ndarray:
    # The select's own comparisons, tap by tap, into `chosen` (zeros).
    best = windows[(Ellipsis, *taps[0])]
    for k, tap in enumerate(taps[1:], start=1):
        value = windows[(Ellipsis, *tap)]
        moved = ~keep(best, value)
        best = np.where(moved, value, best)
        np.maximum(chosen, np.multiply(moved, k, dtype=chosen.dtype), out=chosen)
    return chosen


IMPLS[win.select_and_gather_add_p] = _select_and_gather_add
IMPLS[win.select_and_scatter_add_p] = _select_and_scatter_add


# ---------------------------------------------------------------------------
# select_and_scatter with user computations


def _select_and_scatter(operand, source, init_value, *, select_jaxpr, select_consts, scatter_jaxpr,
                        scatter_consts, window_dimensions, window_strides, padding):
    # XLA's SelectAndScatter: padding positions are never selected; each
    # window's first valid element is the initial choice, and a later one
    # replaces it where select(chosen, candidate) is false.
    x, s = np.asarray(operand), np.asarray(source)
    dtype = x.dtype
    select = combiner(select_jaxpr, select_consts, [np.dtype(bool)])
    scatter = combiner(scatter_jaxpr, scatter_consts, [dtype])
    ones = (1,) * x.ndim
    out = np.full(x.shape, np.asarray(init_value, dtype), dtype)
    if x.size == 0 or s.size == 0:
        return out
    axes = tuple(range(x.ndim))
    positions = np.arange(x.size, dtype=np.int64).reshape(x.shape)
    windows = window_view(dilate_and_pad(x, ones, padding, np.zeros((), dtype)), axes, window_dimensions,
                          window_strides, ones)
    where = window_view(dilate_and_pad(positions, ones, padding, np.int64(-1)), axes, window_dimensions,
                        window_strides, ones)
    if windows is None:
        return out
    best = np.zeros(s.shape, dtype)
    chosen = np.full(s.shape, -1, np.int64)
    for tap in np.ndindex(*window_dimensions):
        value, pos = windows[(Ellipsis, *tap)], where[(Ellipsis, *tap)]
        valid = pos >= 0
        keep = select(best, value)[0]
        take = valid & ((chosen < 0) | ~keep)
        best = np.where(take, value, best)
        chosen = np.where(take, pos, chosen)
    _scatter_in_source_order(out, chosen.ravel(), s.ravel(), scatter)
    return out


def _scatter_in_source_order(out: np.ndarray, targets: np.ndarray, values: np.ndarray, scatter) -> None:
    """out.flat[t] = scatter(out.flat[t], v) for each (t, v) in order, in rounds:
    round j combines every target's j-th value at once (targets distinct)."""
    keep = targets >= 0
    targets, values = targets[keep], values[keep]
    order = np.argsort(targets, kind="stable")
    targets, values = targets[order], values[order]
    starts = np.r_[0, np.flatnonzero(np.diff(targets)) + 1] if targets.size else np.zeros(0, np.int64)
    rank = np.arange(targets.size) - np.repeat(starts, np.diff(np.r_[starts, targets.size]))
    flat = out.reshape(-1)
    for j in range(int(rank.max()) + 1 if rank.size else 0):
        here = rank == j
        t = targets[here]
        flat[t] = scatter(flat[t], values[here])[0]


IMPLS[sas_lax.select_and_scatter_p] = _select_and_scatter
