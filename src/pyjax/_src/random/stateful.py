"""jax.experimental.random: a stateful PRNG whose state is a jax.ref.

`StatefulPRNG` holds a typed base key and a counter in a mutable reference;
each draw folds the counter into the base key and increments it, so draws
are JAX's stateless functions of (key, counter) and the streams are JAX's
bit for bit. It works under jit (the counter's reference is updated in
place), and `split` makes a batch of generators for vmap.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.ref_primitives import new_ref, ref_addupdate, ref_get
from pyjax._src.ref_types import AbstractRef
from pyjax._src.tree_util import SENTINEL as _SENTINEL, register_dataclass


def _canonicalize_size(size, *args) -> tuple[int, ...]:
    # None: the broadcast shape of the parameters (numpy.random's convention).
    if size is None:
        return np.broadcast_shapes(*(np.shape(arg) for arg in args))
    if isinstance(size, (int, np.number)):
        return (operator.index(size),)
    return tuple(map(operator.index, size))


def _is_ref(x) -> bool:
    return isinstance(getattr(x, "aval", None), AbstractRef)


@dataclasses.dataclass(frozen=True, slots=True)
class StatefulPRNG:
    """Stateful JAX random generator.

    This should be instantiated using the :func:`jax.experimental.random.stateful_rng` function.

    Attributes:
      _base_key: a typed JAX PRNG key object (see :func:`jax.random.key`).
      _counter: a scalar integer wrapped in a :class:`jax.Ref`.
    """

    _base_key: Any
    _counter: Any

    def __post_init__(self):
        if self._base_key is _SENTINEL:
            return
        from pyjax._src.array import Array

        if not (isinstance(self._base_key, (Array, core.Tracer))
                and dtypes.issubdtype(self._base_key.dtype, dtypes.prng_key)):
            raise ValueError(f"Expected base_key to be a typed PRNG key; got {self._base_key}")
        if not _is_ref(self._counter):
            raise ValueError(f"Expected counter to be a scalar integer ref; got {self._counter}")

    def key(self, shape: int | Sequence[int] = ()):
        """Generate a new JAX PRNGKey, updating the internal state.

        Args:
          shape: an optional shape if returning multiple keys.

        Returns:
          A new, independent PRNG key with the same impl/dtype as ``self._base_key``.
        """
        from pyjax import random

        if self._base_key.shape:
            raise ValueError("cannot operate on split stateful generator")
        key = random.fold_in(self._base_key, ref_get(self._counter))
        ref_addupdate(self._counter, ..., 1)
        shape_tuple = _canonicalize_size(shape)
        return random.split(key, shape_tuple) if shape_tuple else key

    def random(self, size: int | Sequence[int] | None = None, dtype=float):
        """Return random floats in the half-open interval [0.0, 1.0)."""
        from pyjax import random

        return random.uniform(self.key(), shape=_canonicalize_size(size), dtype=dtype)

    def uniform(self, low=0, high=1, size: int | Sequence[int] | None = None, *, dtype=float):
        """Draw uniformly distributed pseudorandom values."""
        from pyjax import random

        return random.uniform(self.key(), _canonicalize_size(size, low, high), minval=low, maxval=high, dtype=dtype)

    def normal(self, loc=0, scale=1, size: int | Sequence[int] | None = None, *, dtype=float):
        """Draw normally-distributed pseudorandom values."""
        import pyjax.numpy as jnp
        from pyjax import random

        norm = random.normal(self.key(), _canonicalize_size(size, loc, scale), dtype)
        return (jnp.asarray(loc) + jnp.asarray(scale) * norm).astype(dtype)

    def integers(self, low, high=None, size: int | Sequence[int] | None = None, *, dtype=int):
        """Draw pseudorandom integers (from [0, low) when `high` is None)."""
        from pyjax import random

        if high is None:
            low, high = 0, low
        return random.randint(self.key(), _canonicalize_size(size, low, high), minval=low, maxval=high, dtype=dtype)

    def split(self, num: int | Sequence[int]) -> StatefulPRNG:
        """Create independent child generators suitable for use in :func:`jax.vmap`.

        Args:
          num: integer or sequence of integers specifying the split shape

        Returns:
          a single StatefulPRNG object with split contents, suitable for use
          with :func:`jax.vmap`
        """
        import pyjax.numpy as jnp

        return StatefulPRNG(_base_key=self.key(num), _counter=new_ref(jnp.zeros(num, dtype=int)))

    def spawn(self, n_children: int) -> list[StatefulPRNG]:
        """Create a list of independent child generators.

        Args:
          n_children: non-negative integer.

        Returns:
          A list of length ``n_children`` containing new independent
          ``StatefulPRNG`` instances spawned from the original instance.
        """
        return [self.__class__(key, new_ref(0)) for key in self.key(n_children)]


register_dataclass(StatefulPRNG, data_fields=["_base_key", "_counter"], meta_fields=[])


def stateful_rng(seed=None, *, impl=None) -> StatefulPRNG:
    """Experimental stateful RNG with implicitly-updated state.

    This implements a stateful PRNG API similar to :func:`numpy.random.default_rng`,
    as a convenience wrapper around JAX's stateless PRNG (:mod:`jax.random`).
    It works under :func:`~jax.jit`; a :class:`StatefulPRNG` cannot be returned
    from transformed functions (it holds a :func:`~jax.Ref`).

    Args:
      seed: an optional 64- or 32-bit integer used as the value of the key.
        This must be specified if the generator is instantiated within
        transformed code; at the top level it may be omitted, and the RNG is
        then seeded from NumPy's default entropy.
      impl: optional string specifying the PRNG implementation (e.g. ``'threefry2x32'``)

    Returns:
      A :class:`~jax.experimental.random.StatefulPRNG` object, with methods for
      generating random values.
    """
    from pyjax import random

    if seed is None:
        if not core.trace_state_clean():
            raise TypeError("When used within transformed code, jax.experimental.random.stateful_rng()"
                            " requires an explicit seed to be set.")
        entropy = np.random.SeedSequence().entropy
        seed = np.int64(entropy & np.iinfo(np.int64).max)
    return StatefulPRNG(_base_key=random.key(seed, impl=impl), _counter=new_ref(0))


__all__ = ["StatefulPRNG", "stateful_rng"]
