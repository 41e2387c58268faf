"""`jax.experimental.io_callback` as a stand-in until effects land (issue 24).

Eagerly it calls the callback at once, as JAX does. Under a transformation
it stages a `pure_callback` (vmapped sequentially): the callback runs with
the program, but without JAX's effect it is not ordered against other
callbacks, and a call whose results are unused may be removed. Libraries
use it for progress bars (numpyro, equinox), where either is harmless.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyjax._src.lax.callbacks import pure_callback


def io_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any, sharding: Any = None,
                ordered: bool = False, **kwargs: Any) -> Any:
    """Calls an impure Python callback (see the module docstring for what
    pyjax does not yet guarantee under jit)."""
    if result_shape_dtypes is None:
        def returning_nothing(*a, **k):
            callback(*a, **k)
            return ()

        pure_callback(returning_nothing, (), *args, sharding=sharding, vmap_method="sequential", **kwargs)
        return None
    return pure_callback(callback, result_shape_dtypes, *args, sharding=sharding, vmap_method="sequential",
                         **kwargs)


__all__ = ["io_callback"]
