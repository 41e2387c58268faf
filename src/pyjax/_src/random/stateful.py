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
        return np.broadcast_shapes(*[np.shape(a) for a in args])
    if isinstance(size, (int, np.number)):
        return (operator.index(size),)
    return tuple(map(operator.index, size))


def _is_ref(x) -> bool:
    return isinstance(getattr(x, "aval", None), AbstractRef)


@dataclasses.dataclass(slots=True, frozen=True)
class StatefulPRNG:
    """A random generator that carries its own mutable state.

    Build one with :func:`jax.experimental.random.stateful_rng` rather than
    calling the constructor directly.

    Attributes:
      _base_key: the typed PRNG key everything is derived from
        (as made by :func:`jax.random.key`).
      _counter: a :class:`jax.Ref` holding a scalar integer draw count.
    """

    _base_key: Any
    _counter: Any

    def __post_init__(self):
        if self._base_key is _SENTINEL:
            return
        from pyjax._src.array import Array

        bk = self._base_key
        if not (isinstance(bk, (Array, core.Tracer)) and dtypes.issubdtype(bk.dtype, dtypes.prng_key)):
            raise ValueError(f"Expected base_key to be a typed PRNG key; got {bk}")
        ctr = self._counter
        if not _is_ref(ctr):
            raise ValueError(f"Expected counter to be a scalar integer ref; got {ctr}")

    def key(self, shape: int | Sequence[int] = ()):
        """Produce a fresh PRNG key and advance the generator's counter.

        Args:
          shape: when non-empty, return an array of keys of this shape.

        Returns:
          An independent key (or keys) sharing ``self._base_key``'s impl and dtype.
        """
        from pyjax import random

        if self._base_key.shape:
            raise ValueError("cannot operate on split stateful generator")
        key = random.fold_in(self._base_key, ref_get(self._counter))
        ref_addupdate(self._counter, ..., 1)
        shape_tuple = _canonicalize_size(shape)
        if not shape_tuple:
            return key
        return random.split(key, shape_tuple)

    def random(self, size: int | Sequence[int] | None = None, dtype=float):
        """Floats drawn uniformly from [0.0, 1.0)."""
        from pyjax import random

        out_shape = _canonicalize_size(size)
        return random.uniform(self.key(), shape=out_shape, dtype=dtype)

    def uniform(self, low=0, high=1, size: int | Sequence[int] | None = None, *, dtype=float):
        """Samples from a uniform distribution on [low, high)."""
        from pyjax import random

        return random.uniform(self.key(), _canonicalize_size(size, low, high), minval=low, maxval=high, dtype=dtype)

    def normal(self, loc=0, scale=1, size: int | Sequence[int] | None = None, *, dtype=float):
        """Samples from a Gaussian with mean `loc` and std-dev `scale`."""
        import pyjax.numpy as jnp
        from pyjax import random

        z = random.normal(self.key(), _canonicalize_size(size, loc, scale), dtype)
        out = jnp.asarray(scale) * z + jnp.asarray(loc)
        return out.astype(dtype)

    def integers(self, low, high=None, size: int | Sequence[int] | None = None, *, dtype=int):
        """Draw pseudorandom integers (from [0, low) when `high` is None)."""
        from pyjax import random

        if high is None:
            low, high = 0, low
        return random.randint(self.key(), _canonicalize_size(size, low, high), minval=low, maxval=high, dtype=dtype)

    def split(self, num: int | Sequence[int]) -> StatefulPRNG:
        """Split into a batch of independent generators, e.g. for :func:`jax.vmap`.

        Args:
          num: the batch shape, as an int or a sequence of ints.

        Returns:
          One StatefulPRNG whose key and counter carry a leading batch shape,
          ready to be mapped over with :func:`jax.vmap`.
        """
        import pyjax.numpy as jnp

        return StatefulPRNG(_base_key=self.key(num), _counter=new_ref(jnp.zeros(num, dtype=int)))

    def spawn(self, n_children: int) -> list[StatefulPRNG]:
        """Derive ``n_children`` independent generators from this one.

        Args:
          n_children: how many children to make (an int >= 0).

        Returns:
          A Python list of fresh ``StatefulPRNG`` objects.
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
      seed: optional integer (32- or 64-bit) from which the key is built.
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
        int64_max = np.iinfo(np.int64).max
        seed = np.int64(entropy & int64_max)
    return StatefulPRNG(_base_key=random.key(seed, impl=impl), _counter=new_ref(0))


__all__ = ["StatefulPRNG", "stateful_rng"]
