"""``out_sharding=`` on jax.random's samplers, staged as JAX 0.11 stages it.

JAX wraps a sampler's private function in ``auto_axes`` when it is given an
``out_sharding``: the key and the sampler's array parameters are resharded
onto the mesh with its Explicit axes made Auto (so a key split over ``x``
is gathered: ``b:key<fry>[8] = reshard a``), the sample is drawn there and
the result resharded to ``out_sharding``. A scalar sample (``shape`` empty
or None) under a mesh whose axes are all Explicit gets ``P()`` by default,
so a vmapped ``normal(k)`` over split keys stages those reshards too.

`_TRACED` names, for the samplers that JAX routes so, the parameters it
passes through ``auto_axes`` (the rest are static: shape, dtype, mode...);
other samplers draw first and reshard the sample (the key made replicated
first), as before.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from pyjax._src import core, dispatch
from pyjax._src.avals import ShapedArray
from pyjax._src.sharding.mesh import AxisType, get_abstract_mesh

# sampler -> (the parameters passed through auto_axes, whether an empty shape implies P())
_TRACED: dict[str, tuple[tuple[str, ...], bool]] = {
    "bits": (("key",), True),
    "uniform": (("key", "minval", "maxval"), True),
    "normal": (("key",), True),
    "cauchy": (("key",), True),
    "exponential": (("key",), True),
    "laplace": (("key",), True),
    "logistic": (("key",), True),
    "gumbel": (("key",), True),
    "gamma": (("key", "a"), True),
    "beta": (("key", "a", "b"), True),
    "dirichlet": (("key", "alpha"), True),
    "poisson": (("key", "lam"), True),
    "pareto": (("key", "b"), True),
    "t": (("key", "df"), True),
    "rayleigh": (("key", "scale"), True),
    "generalized_normal": (("key", "p"), True),
    "triangular": (("key", "left", "mode", "right"), True),
}


def _on_values() -> bool:
    # Eager, or vmap over concrete values (no jaxpr is being staged): the
    # implied P() then only decides the result's type, which the draw gives
    # already, so the reshards are skipped there.
    from pyjax._src.interpreters.batching import BatchTrace

    trace = core.current_trace()
    while isinstance(trace, BatchTrace):
        trace = trace.parent
    return isinstance(trace, dispatch.EvalTrace)


def _empty_shape(shape) -> bool:
    # JAX's `not shape` on the canonical shape (a bad one is left to the sampler's own error).
    try:
        return shape is None or len(tuple(shape)) == 0
    except TypeError:
        return False


def _all_explicit(mesh) -> bool:
    return not mesh.empty and all(t is AxisType.Explicit for t in mesh.axis_types)


def _traced(name: str, bound: inspect.BoundArguments, out_sharding: Any, fn: Callable):
    # The sampler run as JAX's maybe_auto_axes runs it (bound: its arguments, the key typed).
    from pyjax._src.sharding.api import auto_axes
    from pyjax._src.sharding.named import NamedSharding
    from pyjax._src.sharding.partition_spec import PartitionSpec

    names = _TRACED[name][0]
    mesh = get_abstract_mesh()
    if isinstance(out_sharding, PartitionSpec):
        out_sharding = NamedSharding(mesh, out_sharding)
    axes = tuple(n for n, t in zip(out_sharding.mesh.axis_names, out_sharding.mesh.axis_types)
                 if t is AxisType.Explicit)

    def inner(*values):
        arguments = dict(bound.arguments)
        arguments.update(zip(names, values))
        return fn(**arguments)

    values = [bound.arguments[n] for n in names]
    return auto_axes(inner, out_sharding=out_sharding, axes=axes)(*values)


def sampler_with_out_sharding(fn: Callable) -> Callable:
    """`fn` (a jax.random sampler taking ``out_sharding=``) placing its
    result as JAX does (the module docstring)."""
    from pyjax._src.random.keys import check_prng_key
    from pyjax._src.sharding.named import abstract_sharding

    signature = inspect.signature(fn)
    name = fn.__name__
    implied = _TRACED.get(name, ((), False))[1]

    @functools.wraps(fn)
    def sampler(*args, **kwargs):
        out_sharding = kwargs.pop("out_sharding", None)
        if out_sharding is None and (not implied or _on_values()):
            return fn(*args, **kwargs)
        eager = isinstance(core.current_trace(), dispatch.EvalTrace)
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        if out_sharding is None:
            from pyjax._src.sharding.partition_spec import PartitionSpec

            if not (_empty_shape(bound.arguments.get("shape")) and _all_explicit(get_abstract_mesh())):
                return fn(*args, **kwargs)
            out_sharding = PartitionSpec()
        from pyjax._src.sharding.api import reshard, reshard_p  # (loaded by the first placed sample)

        key = bound.arguments.get("key")
        if name in _TRACED and not eager:
            bound.arguments["key"] = check_prng_key(name, key)[0]  # (typed before resharding, as JAX's)
            return _traced(name, bound, out_sharding, fn)
        if key is not None and isinstance(core.get_aval(key), ShapedArray) and not eager:
            mesh = get_abstract_mesh()
            if not mesh.empty:
                bound.arguments["key"] = reshard_p.bind(key, dst_sharding=abstract_sharding(mesh, (None,) * key.ndim))
        return reshard(fn(*bound.args, **bound.kwargs), out_sharding)

    return sampler
