"""jax.scipy.cluster.vq: vector quantisation (nearest code-book entries)."""

from __future__ import annotations

from pyjax._src.api import vmap
from pyjax._src.numpy.util import check_arraylike, promote_dtypes_inexact
from pyjax._src.scipy import jnp_pending as jnp

__all__ = ["vq"]


def vq(obs, code_book, check_finite: bool = True):
    """Assign codes from a code book to a set of observations.

    JAX implementation of :func:`scipy.cluster.vq.vq`: each observation is
    given the index of its nearest code (Euclidean distance).

    Args:
      obs: observations, shape ``(M,)`` or ``(M, N)``.
      code_book: codes, shape ``(K,)`` or ``(K, N)`` (the same rank as ``obs``).
      check_finite: unused (JAX does not check).

    Returns:
      ``(code, dist)``: the index of each observation's nearest code, and the
      distance to it.
    """
    del check_finite
    check_arraylike("scipy.cluster.vq.vq", obs, code_book)
    obs_arr, cb_arr = promote_dtypes_inexact(obs, code_book)
    if obs_arr.ndim != cb_arr.ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if obs_arr.ndim == 1:
        obs_arr, cb_arr = obs_arr[..., None], cb_arr[..., None]
    if obs_arr.ndim != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    dist = vmap(lambda ob: jnp.linalg.norm(ob[None] - cb_arr, axis=-1))(obs_arr)
    code = jnp.argmin(dist, axis=-1)
    return code, vmap(lambda d, c: d[c])(dist, code)
