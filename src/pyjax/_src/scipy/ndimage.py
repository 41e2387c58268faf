"""jax.scipy.ndimage: interpolation of N-dimensional arrays at arbitrary
coordinates (map_coordinates), by nearest neighbour or multilinearly."""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Sequence

import numpy as np

from pyjax._src import dtypes
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_elementwise
from pyjax._src.scipy import jnp_pending as jnp

__all__ = ["map_coordinates"]


def _mirror(index, size: int):
    # A triangular wave of period 2 (size - 1): reflection about the edge samples.
    half = size - 1
    return jnp.abs((index + half) % (2 * half) - half)


def _reflect(index, size: int):
    # Reflection about the edges between samples: the mirror of a grid twice as fine.
    return jnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


_INDEX_FIXERS: dict[str, Callable] = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: jnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round_half_away(a):
    return a if dtypes.issubdtype(a.dtype, np.integer) else lax_elementwise.round(a)


def _nearest(coordinate):
    return [(_round_half_away(coordinate).astype(np.int32), coordinate.dtype.type(1))]


def _linear(coordinate):
    lower = jnp.floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


@functools.partial(jit, static_argnums=(2, 3, 4))
def _map_coordinates(input, coordinates, order: int, mode: str, cval):
    data = jnp.asarray(input)
    coords = [jnp.asarray(c) for c in coordinates]
    cval = jnp.asarray(cval, data.dtype)
    if len(coordinates) != data.ndim:
        raise ValueError("coordinates must be a sequence of length input.ndim, but "
                         f"{len(coordinates)} != {data.ndim}")
    fixer = _INDEX_FIXERS.get(mode)
    if fixer is None:
        raise NotImplementedError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. "
            f"Currently supported modes are {set(_INDEX_FIXERS)}.")
    if order == 0:
        nodes_of = _nearest
    elif order == 1:
        nodes_of = _linear
    else:
        raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires order<=1")
    # Per axis, the (index, in-bounds, weight) of each interpolation node.
    per_axis = []
    for coordinate, size in zip(coords, data.shape):
        nodes = []
        for index, weight in nodes_of(coordinate):
            valid = ((0 <= index) & (index < size)) if mode == "constant" else True
            nodes.append((fixer(index, size), valid, weight))
        per_axis.append(nodes)
    terms = []
    for corner in itertools.product(*per_axis):
        indices = tuple(node[0] for node in corner)
        valids = [node[1] for node in corner]
        weights = [node[2] for node in corner]
        if all(v is True for v in valids):
            contribution = data[indices]
        else:
            contribution = jnp.where(functools.reduce(operator.and_, valids), data[indices], cval)
        terms.append(functools.reduce(operator.mul, weights) * contribution)
    result = sum(terms[1:], terms[0])
    if dtypes.issubdtype(data.dtype, np.integer):
        result = _round_half_away(result)
    return result.astype(data.dtype)


def map_coordinates(input, coordinates: Sequence, order: int, mode: str = "constant", cval=0.0):
    """Map the input array to new coordinates using interpolation.

    JAX implementation of :func:`scipy.ndimage.map_coordinates`: the value of
    ``input`` at each point given by ``coordinates``.

    Args:
      input: N-dimensional input array.
      coordinates: length-N sequence of arrays, the coordinates (one array per
        axis of ``input``) at which to interpolate.
      order: 0 (nearest neighbour) or 1 (linear).
      mode: how points outside the input are handled: ``'constant'``
        (default; SciPy's ``'grid-constant'``), ``'nearest'``, ``'mirror'``,
        ``'wrap'`` (SciPy's ``'grid-wrap'``) or ``'reflect'``.
      cval: the value outside the input when ``mode='constant'`` (default 0.0).

    Returns:
      The interpolated values, of ``input``'s dtype and ``coordinates``' shape.
    """
    return _map_coordinates(input, coordinates, order, mode, cval)
