"""NumPy impls of the collectives. Named axes never reach the backend
(vmap rewrites a collective over its own name into array ops); what is left
is psum/pmax/pmin over positional axes, and JAX's errors for the rest."""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import parallel, parallel_comm


def _positional_reduction(fn):
    def impl(x, *, axes, axis_index_groups):
        for axis in axes:
            if not parallel.is_positional(axis):
                raise NameError(f"unbound axis name: {axis}")
        x = np.asarray(x)
        return fn(x, axis=tuple(int(a) for a in axes)).astype(x.dtype) if axes else x

    return impl


def _no_evaluation_rule(name: str):
    def impl(*args, **params):
        raise NotImplementedError(f"Evaluation rule for '{name}' not implemented")

    return impl


def _all_gather(x, **params):
    raise AssertionError("Unexpected call to _all_gather_impl")


def _all_to_all(x, **params):
    raise RuntimeError("all_to_all must be used within a mapped context like vmap or shard_map.")


def _axis_index(*, axis_name):
    raise NameError(f"Found an unbound axis name: {axis_name}. To fix this, please call axis_index under `jax.shard_map`.")


IMPLS = {
    parallel.psum_p: _positional_reduction(np.sum),
    parallel.pmax_p: _positional_reduction(np.max),
    parallel.pmin_p: _positional_reduction(np.min),
    parallel.axis_index_p: _axis_index,
    parallel_comm.ppermute_p: _no_evaluation_rule("ppermute"),
    parallel_comm.pbroadcast_p: _no_evaluation_rule("pbroadcast"),
    parallel_comm.reduce_scatter_p: _no_evaluation_rule("reduce_scatter"),
    parallel_comm.all_gather_p: _all_gather,
    parallel_comm.all_to_all_p: _all_to_all,
}
