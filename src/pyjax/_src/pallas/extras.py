"""Pallas's debug checks, `run_state` and the deprecated `pl.dot`.

* `debug_check(condition, message)`: a checkify `debug_check` — checked
  under `checkify`, nothing otherwise. `enable_debug_checks` (the
  `jax_pallas_enable_debug_checks` option) turns the checks on in compiled
  TPU/GPU kernels; interpret mode, the only mode here, leaves them off
  either way, as JAX 0.11 does on CPU. `enable_poison_buffers`
  (`jax_pallas_poison_buffers`) likewise only changes device kernels'
  scratch buffers.
* `run_state(f)(init)`: runs `f` on references holding `init` (a pytree;
  a `ShapeDtypeStruct` leaf is an uninitialised reference) and returns
  their final values. Here it is written with `jax.ref` references (one
  `new_ref` per leaf, `freeze` at the end) rather than JAX's `run_state`
  equation; the values are the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np

from pyjax._src import checkify, config, dtypes
from pyjax._src.tree_util import tree_flatten, tree_unflatten

T = TypeVar("T")


def debug_check(condition, message) -> None:
    """Checks `condition` under `checkify` (message: what failed); otherwise
    does nothing. See `enable_debug_checks`."""
    return checkify.debug_check(condition, message)


def debug_checks_enabled() -> bool:
    """Whether Pallas debug checks are enabled (deprecated: read
    `pl.enable_debug_checks.value`)."""
    return config.pallas_enable_debug_checks.value


def run_state(f: Callable[..., None]) -> Callable[[T], T]:
    """`run_state(f)(init)`: the final values of references initialised with
    the pytree `init` after `f(refs)` has run (`f` returns nothing)."""
    from pyjax._src.avals import ShapeDtypeStruct
    from pyjax._src.ref_primitives import empty_ref, freeze, new_ref

    def wrapped(init: T) -> T:
        leaves, tree = tree_flatten(init)
        refs = [empty_ref(_aval(x)) if isinstance(x, ShapeDtypeStruct) else new_ref(x) for x in leaves]
        out = f(tree_unflatten(tree, refs))
        if out is not None:
            raise TypeError("run_state: the function must return None (it updates its references), "
                            f"got {type(out).__name__}")
        return tree_unflatten(tree, [freeze(r) for r in refs])

    return wrapped


def _aval(spec):
    from pyjax._src.avals import ShapedArray

    return ShapedArray(tuple(spec.shape), np.dtype(spec.dtype))


def _small(dtype):
    # int4 and float8_e4m3b11fnuz do not promote: computed as int8 and bfloat16.
    name = np.dtype(dtype).name
    return {"int4": np.dtype("int8"), "float8_e4m3b11fnuz": dtypes.bfloat16}.get(name, np.dtype(dtype))


def dot(a, b, trans_a: bool = False, trans_b: bool = False, allow_tf32: bool | None = None, precision=None):
    """The matrix product of 2-D `a` and `b`, either transposed first
    (`trans_a`, `trans_b`), accumulated in int32 for integers, float64 for
    float64 and float32 otherwise. `allow_tf32` picks HIGH (True) or HIGHEST
    precision and excludes `precision`. (Deprecated in jax.experimental.pallas:
    use `jnp.dot` or `@`.)"""
    from pyjax._src.lax.dot import Precision, dot_general

    if np.ndim(a) != 2 or np.ndim(b) != 2:
        raise ValueError("`a` and `b` must be 2D arrays.")
    if allow_tf32 is not None:
        if precision is not None:
            raise ValueError("Only one of allow_tf32 and precision can be specified")
        precision = Precision.HIGH if allow_tf32 else Precision.HIGHEST
    dtype = np.dtype(dtypes.promote_types(_small(a.dtype), _small(b.dtype)))
    out = np.int32 if np.issubdtype(dtype, np.integer) else np.float64 if dtype == np.float64 else np.float32
    dims = (((0 if trans_a else 1,), (1 if trans_b else 0,)), ((), ()))
    return dot_general(a, b, dims, precision=precision, preferred_element_type=out)

