"""pyjax.numpy: the NumPy API on pyjax arrays (JAX's jax.numpy)."""

import numpy as _np

from pyjax._src.array import Array as ndarray
from pyjax._src.dtypes import finfo, iinfo, issubdtype, promote_types, result_type
from pyjax._src.numpy.contractions import dot, inner, matmul, outer, vdot
from pyjax._src.numpy.creation import (
    arange, array, asarray, empty, empty_like, eye, full, full_like, identity, ones, ones_like,
    zeros, zeros_like,
)
from pyjax._src.numpy.reductions import all, amax, amin, any, argmax, argmin, max, mean, min, prod, sum
from pyjax._src.numpy.scalar_types import (
    bfloat16, bool_, complex64, complex128, complex_, float16, float32, float64, float_, int8,
    int16, int32, int64, int_, uint, uint8, uint16, uint32, uint64,
)
from pyjax._src.numpy.shape_ops import (
    broadcast_arrays, broadcast_shapes, broadcast_to, concatenate, expand_dims, flip, matrix_transpose,
    moveaxis, permute_dims, ravel, reshape, squeeze, stack, swapaxes, transpose,
)
from pyjax._src.numpy.ufuncs import (
    abs, absolute, add, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, bitwise_and,
    bitwise_not, bitwise_or, bitwise_xor, ceil, cos, cosh, divide, equal, exp, exp2, expm1, floor,
    floor_divide, greater, greater_equal, invert, isfinite, isnan, less, less_equal, log, log1p,
    logaddexp, logical_not, maximum, minimum, mod, multiply, negative, not_equal, positive, power,
    remainder, sign, sin, sinh, sqrt, square, subtract, tan, tanh, true_divide,
)
from pyjax._src.numpy.where import where

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
