"""pyjax.numpy: the NumPy API on pyjax arrays (JAX's jax.numpy)."""

import numpy as _np

from pyjax._src.array import Array as ndarray
from pyjax._src.numpy.at import _IndexUpdateHelper as _IndexUpdateHelper  # noqa: F401
from pyjax._src.numpy.contractions import (
    cross, dot, inner, kron, matmul, matvec, outer, tensordot, vdot, vecdot, vecmat,
)
from pyjax._src.numpy.creation import (
    arange, array, asarray, copy, empty, empty_like, eye, from_dlpack, frombuffer, fromfile, fromfunction, fromiter,
    fromstring, full, full_like, geomspace, identity, indices, ix_, linspace, logspace, meshgrid, ones, ones_like,
    tri, tril, triu, zeros, zeros_like,
)
from pyjax._src.numpy.cumulative import (
    cumprod, cumsum, cumulative_prod, cumulative_sum, nancumprod, nancumsum,
)
from pyjax._src.numpy.einsum import einsum, einsum_path
from pyjax._src.numpy.histogram import bincount, histogram, histogram2d, histogram_bin_edges, histogramdd
from pyjax._src.numpy.joining import (
    append, array_split, block, column_stack, concat, concatenate, delete, dsplit, dstack, hsplit, hstack, insert,
    repeat, resize, split, stack, tile, trim_zeros, unstack, vsplit, vstack,
)
from pyjax._src.numpy.matrices import (
    diag, diag_indices, diag_indices_from, diagflat, diagonal, fill_diagonal, mask_indices, trace, tril_indices,
    tril_indices_from, triu_indices, triu_indices_from, vander,
)
from pyjax._src.numpy.index_tricks import c_, index_exp, mgrid, ogrid, r_, s_
from pyjax._src.numpy.misc import (
    apply_along_axis, apply_over_axes, array_equal, array_equiv, astype, choose, convolve, corrcoef, correlate, cov,
    diff, ediff1d, get_printoptions, gradient, interp, isscalar, iterable, load, ndim, packbits, piecewise,
    printoptions, select, set_printoptions, shape, size, trapezoid, unpackbits, unwrap,
)
from pyjax._src.numpy.nonzero import argwhere, compress, extract, flatnonzero, nonzero
from pyjax._src.numpy.pad import pad
from pyjax._src.numpy.polynomial import (
    poly, polyadd, polyder, polydiv, polyfit, polyint, polymul, polysub, polyval, roots,
)
from pyjax._src.numpy.reductions import (
    all, amax, amin, any, argmax, argmin, average, count_nonzero, max, mean, min, nanargmax, nanargmin, nanmax,
    nanmean, nanmin, nanprod, nanstd, nansum, nanvar, prod, ptp, std, sum, var,
)
from pyjax._src.numpy.setops import (
    intersect1d, isin, setdiff1d, setxor1d, union1d, unique, unique_all, unique_counts, unique_inverse,
    unique_values,
)
from pyjax._src.numpy.shape_ops import (
    atleast_1d, atleast_2d, atleast_3d, broadcast_arrays, broadcast_shapes, broadcast_to, expand_dims, flip,
    fliplr, flipud, matrix_transpose, moveaxis, permute_dims, ravel, reshape, roll, rollaxis, rot90, squeeze,
    swapaxes, transpose,
)
from pyjax._src.numpy.sorting import (
    argpartition, argsort, digitize, lexsort, partition, searchsorted, sort, sort_complex,
)
from pyjax._src.numpy.statistics import median, nanmedian, nanpercentile, nanquantile, percentile, quantile
from pyjax._src.numpy.take import (
    place, put, put_along_axis, ravel_multi_index, take, take_along_axis, unravel_index,
)
from pyjax._src.numpy.ufuncs import (
    abs, absolute, acos, add, arccos, arcsin, arcsinh, arctan, arctan2, arctanh, asin, asinh, atan, atan2, atanh,
    bitwise_and, bitwise_invert, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor,
    cbrt, ceil, conj, conjugate, cos, cosh, deg2rad, degrees, divide, equal, exp, exp2, expm1, fabs, float_power,
    floor, greater, greater_equal, imag, invert, isfinite, isnan, left_shift, less, less_equal, log, log1p, log2,
    log10, logical_and, logical_not, logical_or, logical_xor, maximum, minimum, multiply, negative, nextafter,
    not_equal, positive, rad2deg, radians, real, reciprocal, right_shift, sign, sin, sinh, sqrt, square, subtract,
    tan, tanh, true_divide,
)
from pyjax._src.numpy.ufuncs_extra import (
    acosh, allclose, angle, arccosh, around, bitwise_count, clip, copysign, divmod, fmax, fmin, fmod, frexp, gcd,
    heaviside, hypot, i0, iscomplex, iscomplexobj, isclose, isinf, isneginf, isposinf, isreal, isrealobj, lcm,
    ldexp, logaddexp, logaddexp2, mod, modf, nan_to_num, pow, power, remainder, rint, round, signbit, sinc,
    spacing, trunc,
)
from pyjax._src.numpy.vectorize import vectorize
from pyjax._src.numpy.where import where
from pyjax._src.numpy.scalar_types import (
    bfloat16, bool_, cdouble, complex64, complex128, complex_, csingle, double, float4_e2m1fn, float6_e2m3fn,
    float6_e3m2fn, float8_e3m4, float8_e4m3, float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2,
    float8_e5m2fnuz, float8_e8m0fnu, float16, float32, float64, float_, int1, int2, int4, int8, int16, int32, int64,
    int_, single, uint, uint1, uint2, uint4, uint8, uint16, uint32, uint64,
)
from pyjax._src.numpy.ufunc_api import frompyfunc, make_builtin_ufuncs as _make_builtin_ufuncs, ufunc
from pyjax._src.numpy.window_functions import bartlett, blackman, hamming, hanning, kaiser
from pyjax._src.dtypes import finfo, iinfo, isdtype, issubdtype, promote_types, result_type
from numpy import array_repr, array_str, can_cast, character, flexible, object_, save, savez
from numpy.exceptions import ComplexWarning

from pyjax._src.numpy.ufuncs_extra import floor_divide  # noqa: E402

# jnp.add, jnp.multiply, ... are ufunc objects in JAX (with reduce, accumulate, ...).
globals().update(_make_builtin_ufuncs())

bool = bool_
dtype = _np.dtype
pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
euler_gamma = _np.euler_gamma
newaxis = None
generic = _np.generic
number = _np.number
inexact = _np.inexact
floating = _np.floating
complexfloating = _np.complexfloating
integer = _np.integer
signedinteger = _np.signedinteger
unsignedinteger = _np.unsignedinteger

from pyjax.numpy import fft, linalg  # noqa: E402,F401
