"""Window functions for signal processing: bartlett, blackman, hamming,
hanning and kaiser (default float dtype; the length must be static)."""

from __future__ import annotations

import operator

import numpy as np

from pyjax._src import core, dtypes, errors
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.util import full


def _length(M, name: str) -> int:
    if isinstance(M, core.Tracer):
        raise errors.ConcretizationTypeError(M, f"M argument of jnp.{name}")
    return operator.index(int(M))


def _window(M, name: str, formula):
    M = _length(M, name)
    dtype = dtypes.default_float_dtype()
    if M <= 1:
        return full((M,), 1, dtype)
    return formula(lax_shapes.iota(dtype, M), M)


def blackman(M: int):
    """The Blackman window of M points."""
    from pyjax._src.numpy.ufuncs import cos

    return _window(M, "blackman", lambda n, M: 0.42 - 0.5 * cos(2 * np.pi * n / (M - 1))
                   + 0.08 * cos(4 * np.pi * n / (M - 1)))


def bartlett(M: int):
    """The Bartlett (triangular) window of M points."""
    from pyjax._src.numpy.ufuncs import abs as abs_

    return _window(M, "bartlett", lambda n, M: 1 - abs_(2 * n + 1 - M) / (M - 1))


def hamming(M: int):
    """The Hamming window of M points."""
    from pyjax._src.numpy.ufuncs import cos

    return _window(M, "hamming", lambda n, M: 0.54 - 0.46 * cos(2 * np.pi * n / (M - 1)))


def hanning(M: int):
    """The Hann window of M points."""
    from pyjax._src.numpy.ufuncs import cos

    return _window(M, "hanning", lambda n, M: 0.5 * (1 - cos(2 * np.pi * n / (M - 1))))


def kaiser(M: int, beta):
    """The Kaiser window of M points with shape parameter `beta`."""
    from pyjax._src.numpy.ufuncs import sqrt
    from pyjax._src.numpy.ufuncs_extra import i0

    def formula(n, M):
        alpha = 0.5 * (M - 1)
        return i0(beta * sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(beta)

    return _window(M, "kaiser", formula)
