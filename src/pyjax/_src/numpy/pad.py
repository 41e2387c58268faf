"""jnp.pad with all of NumPy's modes: constant, edge, wrap, reflect,
symmetric, linear_ramp, maximum/minimum/mean/median (over `stat_length`),
empty, and a callable.

The work is done by a jitted `_pad` (pad widths static), one axis at a time,
with the `pad` primitive for constants and slices/concatenations otherwise.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core, errors
from pyjax._src.jit import jit
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.numpy.util import aval_of, convert_element_type, ensure_arraylike


def _static(value, name: str):
    if isinstance(value, core.Tracer):
        raise errors.ConcretizationTypeError(value, f"{name} argument of jnp.pad")
    if hasattr(value, "aval"):
        return np.asarray(value)
    return value


def _tree_static(obj, name):
    if isinstance(obj, (list, tuple)):
        return [_tree_static(o, name) for o in obj]
    return _static(obj, name)


def broadcast_to_pairs(nvals, nd: int, name: str) -> tuple:
    """`nvals` (an int, a pair, or one pair per axis) as ((before, after),) * nd."""
    try:
        values = np.asarray(_tree_static(nvals, name))
    except ValueError as e:
        if "inhomogeneous shape" in str(e):
            raise TypeError(f"`{name}` entries must be the same shape: {nvals}") from e
        raise
    if values.dtype == object:
        raise TypeError(f"`{name}` entries must be the same shape: {nvals}")

    def scalar(v):
        # NumPy integers stay NumPy integers: JAX's pad configs print them so.
        return v

    if values.shape == (nd, 2):
        return tuple((scalar(v[0]), scalar(v[1])) for v in values)
    if values.shape == (1, 2):
        return tuple((scalar(values[0, 0]), scalar(values[0, 1])) for _ in range(nd))
    if values.shape == (2,):
        return tuple((scalar(values[0]), scalar(values[1])) for _ in range(nd))
    if values.shape == (1,):
        return tuple((scalar(values[0]), scalar(values[0])) for _ in range(nd))
    if values.shape == ():
        return tuple((scalar(values.flat[0]), scalar(values.flat[0])) for _ in range(nd))
    raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {values.shape}. "
                     f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")


def _lax_pad(array, value, config):
    # lax.pad keeps the configuration's integers as given (NumPy integers from
    # pad_width print as np.int64(...) in JAX's jaxprs).
    return lax_slicing.pad_p.bind(array, value, padding_config=tuple(tuple(t) for t in config))


def _check_no_padding(axis_padding, mode: str):
    if axis_padding[0] > 0 or axis_padding[1] > 0:
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _pad_constant(array, pad_width, constant_values):
    from pyjax._src.numpy.shape_ops import broadcast_to, squeeze

    nd = aval_of(array).ndim
    constant_values = convert_element_type(constant_values, aval_of(array).dtype,
                                                   aval_of(array).weak_type)
    cv_nd = aval_of(constant_values).ndim
    if cv_nd == 0:
        return _lax_pad(array, constant_values, [(lo, hi, 0) for lo, hi in pad_width])
    if cv_nd == 1:
        if aval_of(constant_values).shape[-1] == 1:
            return _lax_pad(array, squeeze(constant_values), [(lo, hi, 0) for lo, hi in pad_width])
        if aval_of(constant_values).shape[-1] != 2:
            raise ValueError("jnp.pad: constant_values has unsupported shape "
                             f"{aval_of(constant_values).shape}. If the shape is 1D or 2D, the last dimension must "
                             "be of size 1 or 2.")
    constant_values = broadcast_to(constant_values, (nd, 2))
    for i in range(nd):
        widths = [(0, 0, 0)] * nd
        if pad_width[i][0] != 0:
            widths[i] = (pad_width[i][0], 0, 0)
            array = _lax_pad(array, constant_values[i, 0], widths)
        if pad_width[i][1] != 0:
            widths[i] = (0, pad_width[i][1], 0)
            array = _lax_pad(array, constant_values[i, 1], widths)
    return array


def _pad_wrap(array, pad_width):
    for i in range(aval_of(array).ndim):
        size = aval_of(array).shape[i]
        if size == 0:
            _check_no_padding(pad_width[i], "wrap")
            continue
        left_repeats, left_rest = divmod(pad_width[i][0], size)
        right_repeats, right_rest = divmod(pad_width[i][1], size)
        parts = []
        if left_rest > 0:
            parts.append(lax_slicing.slice_in_dim(array, size - left_rest, size, axis=i))
        parts += (left_repeats + right_repeats + 1) * [array]
        if right_rest > 0:
            parts.append(lax_slicing.slice_in_dim(array, 0, right_rest, axis=i))
        array = lax_shapes.concatenate(parts, i)
    return array


def _pad_symmetric_or_reflect(array, pad_width, mode: str, reflect_type: str):
    from pyjax._src.numpy.shape_ops import flip

    for i in range(aval_of(array).ndim):
        axis_size = aval_of(array).shape[i]
        if axis_size == 0:
            _check_no_padding(pad_width[i], mode)
            continue
        if pad_width[i][0] == 0 and pad_width[i][1] == 0:
            continue

        def build(array, padding, before, i=i, axis_size=axis_size):  # bound now: called in this iteration
            edge = lax_slicing.slice_in_dim(array, 0, 1, axis=i) if before else \
                lax_slicing.slice_in_dim(array, -1, None, axis=i)
            # 'reflect' skips the edge element; a long pad reflects repeatedly.
            offset = 1 if (mode == "reflect" and axis_size > 1) else 0
            while padding > 0:
                step = min(padding, axis_size - offset)
                padding -= step
                if before:
                    start, stop = offset, offset + step
                else:
                    start = -(step + offset)
                    stop = None if (mode == "symmetric" or axis_size == 1) else -1
                x = flip(lax_slicing.slice_in_dim(array, start, stop, axis=i), axis=i)
                if reflect_type == "odd":
                    x = 2 * edge - x
                    if axis_size > 1:
                        edge = lax_slicing.slice_in_dim(x, 0, 1, axis=i) if before else \
                            lax_slicing.slice_in_dim(x, -1, None, axis=i)
                array = lax_shapes.concatenate([x, array] if before else [array, x], i)
            return array

        array = build(array, pad_width[i][0], True)
        array = build(array, pad_width[i][1], False)
    return array


def _pad_edge(array, pad_width):
    from pyjax._src.numpy.joining import repeat

    for i in range(aval_of(array).ndim):
        n = aval_of(array).shape[i]
        if n == 0:
            _check_no_padding(pad_width[i], "edge")
            continue
        before, after = pad_width[i]
        pad_before = repeat(lax_slicing.slice_in_dim(array, 0, 1, axis=i), before, axis=i)
        pad_after = repeat(lax_slicing.slice_in_dim(array, n - 1, n, axis=i), after, axis=i)
        array = lax_shapes.concatenate([pad_before, array, pad_after], i)
    return array


def _pad_linear_ramp(array, pad_width, end_values):
    from pyjax._src.numpy.creation import linspace
    from pyjax._src.numpy.shape_ops import flip

    for axis in range(aval_of(array).ndim):
        edge_before = lax_slicing.slice_in_dim(array, 0, 1, axis=axis)
        edge_after = lax_slicing.slice_in_dim(array, -1, None, axis=axis)
        weak = aval_of(array).weak_type
        dtype = aval_of(array).dtype
        ramp_before = linspace(start=end_values[axis][0], stop=edge_before.squeeze(axis), num=pad_width[axis][0],
                               endpoint=False, dtype=dtype, axis=axis)
        ramp_before = convert_element_type(ramp_before, aval_of(ramp_before).dtype, weak)
        ramp_after = linspace(start=end_values[axis][1], stop=edge_after.squeeze(axis), num=pad_width[axis][1],
                              endpoint=False, dtype=dtype, axis=axis)
        ramp_after = convert_element_type(ramp_after, aval_of(ramp_after).dtype, weak)
        ramp_after = flip(ramp_after, axis)
        array = lax_shapes.concatenate([ramp_before, array, ramp_after], axis)
    return array


def _pad_stats(array, pad_width, stat_length, stat_func):
    from pyjax._src.numpy.joining import repeat
    from pyjax._src.numpy.ufuncs_extra import round as round_

    for i in range(aval_of(array).ndim):
        if stat_length is None:
            stat_before = stat_after = stat_func(array, axis=i, keepdims=True)
        else:
            n = aval_of(array).shape[i]
            length_before, length_after = stat_length[i]
            if length_before == 0 or length_after == 0:
                raise ValueError("stat_length of 0 yields no value for padding")
            length_before, length_after = min(length_before, n), min(length_after, n)
            slice_before = lax_slicing.slice_in_dim(array, 0, length_before, axis=i)
            slice_after = lax_slicing.slice_in_dim(array, -length_after, None, axis=i)
            stat_before = stat_func(slice_before, axis=i, keepdims=True)
            stat_after = stat_func(slice_after, axis=i, keepdims=True)
        if np.issubdtype(aval_of(array).dtype, np.integer):
            stat_before, stat_after = round_(stat_before), round_(stat_after)
        dtype, weak = aval_of(array).dtype, aval_of(array).weak_type
        stat_before = convert_element_type(stat_before, dtype, weak)
        stat_after = convert_element_type(stat_after, dtype, weak)
        before, after = pad_width[i]
        array = lax_shapes.concatenate([repeat(stat_before, before, axis=i), array,
                                        repeat(stat_after, after, axis=i)], i)
    return array


def _pad_empty(array, pad_width):
    from pyjax._src.numpy.creation import empty_like

    for i in range(aval_of(array).ndim):
        shape = aval_of(array).shape
        before = empty_like(array, shape=shape[:i] + (pad_width[i][0],) + shape[i + 1:])
        after = empty_like(array, shape=shape[:i] + (pad_width[i][1],) + shape[i + 1:])
        array = lax_shapes.concatenate([before, array, after], i)
    return array


def _pad_func(array, pad_width, func, **kwargs):
    from pyjax._src.numpy.creation import asarray
    from pyjax._src.numpy.misc import apply_along_axis

    pad_width = broadcast_to_pairs(pad_width, aval_of(array).ndim, "pad_width")
    padded = _pad_constant(array, pad_width, asarray(0))
    for axis in range(aval_of(padded).ndim):
        padded = apply_along_axis(func, axis, padded, pad_width[axis], axis, kwargs)
    return padded


@jit(static_argnums=(1, 2, 4, 5, 6))
def _pad(array, pad_width, mode, constant_values, stat_length, end_values, reflect_type):
    from pyjax._src.numpy.creation import asarray
    from pyjax._src.numpy.reductions import amax, amin, mean
    from pyjax._src.numpy.statistics import median

    array = asarray(array)
    nd = aval_of(array).ndim
    if nd == 0:
        return array
    stat_funcs = {"maximum": amax, "minimum": amin, "mean": mean, "median": median}
    pad_width = broadcast_to_pairs(pad_width, nd, "pad_width")
    widths = np.array(pad_width)
    if widths.shape != (nd, 2):
        raise ValueError(f"Expected pad_width to have shape {(nd, 2)}; got {widths.shape}.")
    if np.any(widths < 0):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(array, pad_width, asarray(constant_values))
    if mode == "wrap":
        return _pad_wrap(array, pad_width)
    if mode in ("symmetric", "reflect"):
        return _pad_symmetric_or_reflect(array, pad_width, str(mode), reflect_type)
    if mode == "edge":
        return _pad_edge(array, pad_width)
    if mode == "linear_ramp":
        return _pad_linear_ramp(array, pad_width, broadcast_to_pairs(end_values, nd, "end_values"))
    if mode in stat_funcs:
        if stat_length is not None:
            stat_length = broadcast_to_pairs(stat_length, nd, "stat_length")
        return _pad_stats(array, pad_width, stat_length, stat_funcs[str(mode)])
    return _pad_empty(array, pad_width)


_ALLOWED_KWARGS = {
    "empty": [], "edge": [], "wrap": [], "constant": ["constant_values"], "linear_ramp": ["end_values"],
    "maximum": ["stat_length"], "mean": ["stat_length"], "median": ["stat_length"], "minimum": ["stat_length"],
    "reflect": ["reflect_type"], "symmetric": ["reflect_type"],
}


def _hashable(pairs):
    return tuple(tuple(p) for p in pairs) if pairs is not None else None


def pad(array, pad_width, mode="constant", **kwargs):
    """Pads an array.

    Args:
      array: the array.
      pad_width: per axis (before, after) counts; a single pair or int applies
        to every axis.
      mode: 'constant' (with `constant_values`, 0 by default), 'edge',
        'wrap', 'reflect' / 'symmetric' (with `reflect_type` 'even' or
        'odd'), 'linear_ramp' (with `end_values`), 'maximum', 'minimum',
        'mean', 'median' (with `stat_length`), 'empty', or a callable
        `f(vector, pad_width, axis, kwargs)` applied along each axis.

    Example:
      >>> jnp.pad(jnp.array([1, 2, 3]), (2, 1), mode='reflect')
      Array([3, 2, 1, 2, 3, 2], dtype=int32)
    """
    array = ensure_arraylike("pad", array)
    pad_width = broadcast_to_pairs(pad_width, aval_of(array).ndim, "pad_width")
    if pad_width and not all(isinstance(p[0], (int, np.integer)) and isinstance(p[1], (int, np.integer))
                             for p in pad_width):
        raise TypeError("`pad_width` must be of integral type.")
    if callable(mode):
        return _pad_func(array, pad_width, mode, **kwargs)
    try:
        unsupported = set(kwargs) - set(_ALLOWED_KWARGS[mode])
    except KeyError:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.") from None
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    stat_length = kwargs.get("stat_length", None)
    end_values = kwargs.get("end_values", 0)
    if stat_length is not None:
        stat_length = _hashable(broadcast_to_pairs(stat_length, aval_of(array).ndim, "stat_length"))
    end_values = _hashable(broadcast_to_pairs(end_values, aval_of(array).ndim, "end_values"))
    return _pad(array, pad_width, mode, kwargs.get("constant_values", 0), stat_length, end_values,
                kwargs.get("reflect_type", "even"))
