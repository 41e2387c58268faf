"""Counting into bins: bincount, histogram, histogram_bin_edges,
histogram2d and histogramdd.

The number of bins fixes the output shape, so it must be static: under jit
`bincount` needs `length=` and histograms need an integer or an explicit
array of edges. Counts are scatter-adds into a zero array.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from pyjax._src import core, dtypes, errors
from pyjax._src.numpy.util import (
    aval_of,
    ensure_arraylike,
    lax_convert,
    promote_dtypes_inexact,
)


def bincount(x, weights=None, minlength: int = 0, *, length: int | None = None, out_sharding=None):
    """The number of occurrences of each value 0..length-1 in the
    non-negative integer array `x` (or the sum of `weights` per value).

    Negative values count as 0; values >= length are dropped. Under jit,
    `length` is required.

    Example:
      >>> jnp.bincount(jnp.array([0, 1, 1, 3]))
      Array([1, 2, 0, 1], dtype=int32)
    """
    from pyjax._src.numpy.creation import zeros
    from pyjax._src.numpy.indexing import concrete_value
    from pyjax._src.numpy.ufuncs_extra import clip

    x = ensure_arraylike("bincount", x)
    if aval_of(x).dtype == np.bool_:
        x = lax_convert(x, "int32")
    if not dtypes.issubdtype(aval_of(x).dtype, np.integer):
        raise TypeError(f"x argument to bincount must have an integer type; got {aval_of(x).dtype}")
    if aval_of(x).ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = operator.index(minlength)
    if length is None:
        value = concrete_value(x)
        if value is None:
            raise errors.ConcretizationTypeError(
                x, "The error occurred because of argument 'x' of jnp.bincount. To avoid this error, pass a "
                   "static `length` argument.")
        length = builtins.max(minlength, value.size and int(builtins.max(0, value.max())) + 1)
    else:
        if isinstance(length, core.Tracer):
            raise errors.ConcretizationTypeError(
                length, "The error occurred because of argument 'length' of jnp.bincount.")
        length = operator.index(length)
    if weights is None:
        weights = np.array(1, dtype=dtypes.canonicalize_dtype(np.int64))
    elif np.shape(x) != (aval_of(weights).shape if hasattr(weights, "aval") else np.shape(weights)):
        raise ValueError(f"type of weights must match type of x. Got typeof(x)={aval_of(x).str_short()} and "
                         f"typeof(weights)={aval_of(weights).str_short()}")
    return zeros(length, dtypes.dtype(weights, canonicalize=True)).at[clip(x, 0)].add(weights, mode="drop")


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The bin edges `histogram` would use: `bins` evenly spaced intervals
    over `range` (by default a's min and max), or `bins` itself if it is an
    array."""
    from pyjax._src.numpy.creation import asarray, linspace
    from pyjax._src.numpy.reductions import ptp
    from pyjax._src.numpy.util import check_arraylike
    from pyjax._src.numpy.where import where

    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    check_arraylike("histogram_bin_edges", a, bins)
    arr = asarray(a)
    dtype = dtypes.to_inexact_dtype(aval_of(arr).dtype)
    if np.ndim(bins) == 1 if not hasattr(bins, "aval") else aval_of(bins).ndim == 1:
        return asarray(bins, dtype=dtype)
    if isinstance(bins, core.Tracer):
        raise errors.ConcretizationTypeError(bins, "bins argument of histogram_bin_edges")
    bins_int = operator.index(bins)
    if range is None:
        range = [arr.min(), arr.max()]
    range = asarray(range, dtype=dtype)
    if aval_of(range).shape != (2,):
        raise ValueError(f"`range` must be either None or a sequence of scalars, got {range}")
    # The degenerate-range test is evaluated once per end, as JAX stages it.
    low = where(ptp(range) == 0, range[0] - 0.5, range[0])
    high = where(ptp(range) == 0, range[1] + 0.5, range[1])
    return linspace(low, high, bins_int + 1, dtype=dtype)


def histogram(a, bins=10, range=None, weights=None, density: bool | None = None):
    """(counts, bin_edges) of the values of `a` in `bins` (see
    histogram_bin_edges); the last bin includes its right edge. With
    `density`, counts are normalised to integrate to 1."""
    from pyjax._src.numpy.creation import ones_like, zeros
    from pyjax._src.numpy.misc import diff
    from pyjax._src.numpy.sorting import searchsorted
    from pyjax._src.numpy.where import where

    if weights is None:
        a, _ = ensure_arraylike("histogram", a, bins)
        (a,) = promote_dtypes_inexact(a)
        weights = ones_like(a)
    else:
        a, _, weights = ensure_arraylike("histogram", a, bins, weights)
        if aval_of(a).shape != aval_of(weights).shape:
            raise ValueError("weights should have the same shape as a.")
        a, weights = promote_dtypes_inexact(a, weights)
    bin_edges = histogram_bin_edges(a, bins, range, weights)
    n = aval_of(bin_edges).shape[0]
    bin_idx = searchsorted(bin_edges, a, side="right")
    bin_idx = where(a == bin_edges[-1], n - 1, bin_idx)
    counts = zeros(n, aval_of(weights).dtype).at[bin_idx].add(weights)[1:]
    if density:
        counts = counts / diff(bin_edges) / counts.sum()
    return counts, bin_edges


def histogram2d(x, y, bins=10, range=None, weights=None, density: bool | None = None):
    """A 2-D histogram of the points (x, y): (counts, x_edges, y_edges)."""
    from pyjax._src.numpy.creation import asarray
    from pyjax._src.numpy.shape_ops import transpose

    x, y = ensure_arraylike("histogram2d", x, y)
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n != 1 and n != 2:
        edges = asarray(bins)
        bins = [edges, edges]
    sample = transpose(asarray([x, y]))
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]


def histogramdd(sample, bins=10, range=None, weights=None, density: bool | None = None):
    """A D-dimensional histogram of the (N, D) `sample`: (counts, [edges per
    dimension])."""
    from pyjax._src.numpy.creation import ix_
    from pyjax._src.numpy.misc import diff
    from pyjax._src.numpy.shape_ops import reshape
    from pyjax._src.numpy.sorting import searchsorted
    from pyjax._src.numpy.take import ravel_multi_index
    from pyjax._src.numpy.where import where

    if weights is None:
        sample = ensure_arraylike("histogramdd", sample)
        (sample,) = promote_dtypes_inexact(sample)
    else:
        sample, weights = ensure_arraylike("histogramdd", sample, weights)
        if aval_of(weights).shape != aval_of(sample).shape[:1]:
            raise ValueError("should have one weight for each sample.")
        sample, weights = promote_dtypes_inexact(sample, weights)
    n, d = aval_of(sample).shape
    if range is not None and (len(range) != d or any(r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(f"For sample.shape={(n, d)}, range must be a sequence of {d} pairs or Nones; "
                         f"got range={range}")
    try:
        bins_per_dimension = list(bins)
    except TypeError:
        bins_per_dimension = d * [bins]
    else:
        if len(bins_per_dimension) != d:
            raise ValueError("should be a bin for each dimension.")
    indices, edges = [], []
    for i in builtins.range(d):
        column = sample[:, i]
        bin_edges = histogram_bin_edges(column, bins_per_dimension[i], None if range is None else range[i], weights)
        bin_idx = searchsorted(bin_edges, column, side="right")
        indices.append(where(column == bin_edges[-1], bin_idx - 1, bin_idx))
        edges.append(bin_edges)
    nbins = tuple(aval_of(e).shape[0] + 1 for e in edges)
    xy = ravel_multi_index(tuple(indices), nbins, mode="clip")
    hist = reshape(bincount(xy, weights, length=math.prod(nbins)), nbins)
    hist = hist[d * (slice(1, -1),)]
    if density:
        hist = hist.astype(aval_of(sample).dtype)
        hist /= hist.sum()
        for norm in ix_(*[diff(e) for e in edges]):
            hist /= norm
    return hist, edges
