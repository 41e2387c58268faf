"""jax.scipy.integrate: numerical integration of sampled data."""

from __future__ import annotations

from pyjax._src.scipy import jnp_pending as jnp

__all__ = ["trapezoid"]


def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    r"""Integrate along the given axis using the composite trapezoidal rule.

    JAX implementation of :func:`scipy.integrate.trapezoid`: the sum of the
    trapezoids' areas, :math:`\sum_i (x_{i+1} - x_i) (y_i + y_{i+1}) / 2`.

    Args:
      y: the samples to integrate.
      x: optional sample points of ``y``; when ``None`` the points are spaced
        ``dx`` apart.
      dx: the spacing of the samples when ``x`` is ``None`` (default 1.0).
      axis: the axis along which to integrate (default -1).

    Returns:
      The approximate integral.
    """
    # The same rule as jax.numpy.trapezoid, as in JAX.
    return jnp.trapezoid(y, x, dx, axis)
