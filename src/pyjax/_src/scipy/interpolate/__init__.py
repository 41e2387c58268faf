"""jax.scipy.interpolate: interpolation on a regular grid."""

from __future__ import annotations

from itertools import product

import numpy as np

from pyjax._src.numpy.util import check_arraylike, promote_dtypes_inexact
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.tree_util import register_pytree_node

__all__ = ["RegularGridInterpolator"]


def _points_array(points, ndim: int | None = None):
    """A tuple of coordinate arrays, or one array, as a (..., ndim) array."""
    if isinstance(points, tuple) and len(points) == 1:
        points = points[0]
    if isinstance(points, tuple):
        parts = jnp.broadcast_arrays(*points)
        for other in parts[1:]:
            if other.shape != parts[0].shape:
                raise ValueError("coordinate arrays do not have the same shape")
        # Stacked into a default-float array, as SciPy's float array.
        return jnp.stack([jnp.asarray(p, dtype=float) for p in parts], axis=-1)
    check_arraylike("_ndim_coords_from_arrays", points)
    points = jnp.asarray(points)
    if points.ndim == 1:
        points = points.reshape(-1, 1) if ndim is None else points.reshape(-1, ndim)
    return points


class RegularGridInterpolator:
    """Interpolate points on a regular rectangular grid.

    JAX implementation of :func:`scipy.interpolate.RegularGridInterpolator`.

    Args:
      points: length-N sequence of 1-D arrays, the (strictly increasing) grid
        coordinates of each axis.
      values: array whose first N axes follow the grid.
      method: ``"linear"`` (default) or ``"nearest"``.
      bounds_error: not supported (an error cannot be raised under jit).
      fill_value: the value outside the grid (default NaN); ``None``
        extrapolates.

    Calling the interpolator with points ``xi`` of shape ``(..., N)`` (or a
    tuple of N coordinate arrays) returns the interpolated values, of shape
    ``xi.shape[:-1] + values.shape[N:]``. The interpolator is a pytree.
    """

    def __init__(self, points, values, method: str = "linear", bounds_error: bool = False, fill_value=np.nan):
        if method not in ("linear", "nearest"):
            raise ValueError(f"method {method!r} is not defined")
        self.method = method
        self.bounds_error = bounds_error
        if self.bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        check_arraylike("RegularGridInterpolator", values)
        if len(points) > values.ndim:
            raise ValueError(f"there are {len(points)} point arrays, but values has {values.ndim} dimensions")
        (values,) = promote_dtypes_inexact(values)
        if fill_value is not None:
            check_arraylike("RegularGridInterpolator", fill_value)
            fill_value = jnp.asarray(fill_value)
            if not np.can_cast(np.dtype(fill_value.dtype), np.dtype(values.dtype), casting="same_kind"):
                raise ValueError("fill_value must be either 'None' or of a type compatible with values")
        self.fill_value = fill_value
        check_arraylike("RegularGridInterpolator", *points)
        self.grid = tuple(jnp.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi, method: str | None = None):
        method = self.method if method is None else method
        if method not in ("linear", "nearest"):
            raise ValueError(f"method {method!r} is not defined")
        ndim = len(self.grid)
        xi = _points_array(xi, ndim=ndim)
        if xi.shape[-1] != ndim:
            raise ValueError(f"the requested sample points xi have dimension {xi.shape[1]}, but this "
                             f"RegularGridInterpolator has dimension {ndim}")
        xi_shape = xi.shape
        xi = xi.reshape(-1, xi_shape[-1])
        indices, distances, out_of_bounds = self._find_indices(xi.T)
        if method == "linear":
            result = self._evaluate_linear(indices, distances)
        else:
            result = self._evaluate_nearest(indices, distances)
        if self.fill_value is not None:
            mask = out_of_bounds.reshape(result.shape[:1] + (1,) * (result.ndim - 1))
            result = jnp.where(mask, self.fill_value, result)
        return result.reshape(xi_shape[:-1] + self.values.shape[ndim:])

    def _evaluate_linear(self, indices, distances):
        # Trailing value axes broadcast against the per-point weights.
        trailing = (slice(None),) + (None,) * (self.values.ndim - len(indices))
        total = jnp.asarray(0.0)
        for corner in product(*[[i, i + 1] for i in indices]):
            weight = jnp.asarray(1.0)
            for ci, i, t in zip(corner, indices, distances):
                weight = weight * jnp.where(ci == i, 1 - t, t)
            total = total + self.values[corner] * weight[trailing]
        return total

    def _evaluate_nearest(self, indices, distances):
        return self.values[tuple(jnp.where(t <= 0.5, i, i + 1) for i, t in zip(indices, distances))]

    def _find_indices(self, xi):
        indices, distances = [], []
        out_of_bounds = jnp.zeros((xi.shape[1],), dtype=bool)
        for x, g in zip(xi, self.grid):
            # The cell [g[i], g[i+1]] holding x, clamped to the grid's cells.
            i = jnp.clip(jnp.searchsorted(g, x) - 1, 0, g.size - 2)
            indices.append(i)
            distances.append((x - g[i]) / (g[i + 1] - g[i]))
            out_of_bounds = out_of_bounds | (x < g[0]) | (x > g[-1])
        return indices, distances, out_of_bounds


register_pytree_node(
    RegularGridInterpolator,
    lambda obj: ((obj.grid, obj.values, obj.fill_value), (obj.method, obj.bounds_error)),
    lambda aux, children: RegularGridInterpolator(*children[:2], *aux, *children[2:]),
)
