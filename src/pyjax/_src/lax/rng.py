"""`rng_bit_generator`: XLA's stateless bit generator, and `RandomAlgorithm`.

The primitive maps a 128-bit generator state (``uint32[4]``, or the
``uint64[2]`` XLA itself takes) to the advanced state and a block of random
bits; ``jax.random``'s ``rbg`` and ``unsafe_rbg`` PRNGs draw through it. Its
algorithms (random/bit_generators.py) reproduce XLA's on the CPU bit for
bit, the default being Philox. Like JAX it has no derivative rules, and it
batches as JAX's rule does: every example's bits come from the *first* key,
as one draw with the batch axis in front, and only that key advances.
"""

from __future__ import annotations

import enum

import numpy as np

from pyjax._src import avals as avals_lib
from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters.batching import not_mapped
from pyjax._src.lax import batching_util
from pyjax._src.lax._standard import as_array
from pyjax._src.rules import unimplemented

__all__ = ["RandomAlgorithm", "rng_bit_generator", "rng_bit_generator_p"]

_BIT_DTYPES = tuple(np.dtype(f"uint{n}") for n in (8, 16, 32, 64))


class RandomAlgorithm(enum.IntEnum):
    """The PRNG algorithm that rng_bit_generator should run."""

    RNG_DEFAULT = 0
    "The platform's default algorithm."

    RNG_THREE_FRY = 1
    "The Threefry-2x32 PRNG algorithm."

    RNG_PHILOX = 2
    "The Philox-4x32 PRNG algorithm."

    def __str__(self) -> str:
        return self.name


rng_bit_generator_p = Primitive("rng_bit_generator", multiple_results=True)
rng_bit_generator_p.declare(sharding_reason='its key keeps its type and the bits are unplaced unless resharded, as JAX types them')
rng_bit_generator_p.def_jvp(unimplemented(""))  # (JAX 0.11 has none either)


@rng_bit_generator_p.def_abstract_eval
def _rng_bit_generator_abstract_eval(key, *, shape, dtype, algorithm, out_sharding):
    # JAX leaves the key's type to its lowering (an assertion there); pyjax
    # says what is wrong as soon as the call is made or traced.
    if not ((key.shape == (4,) and key.dtype == np.uint32) or (key.shape == (2,) and key.dtype == np.uint64)):
        raise TypeError("rng_bit_generator: the key (generator state) must be a uint32[4] or uint64[2] "
                        f"array, got {key.str_short()}")
    return [ShapedArray(key.shape, key.dtype, weak_type=key.weak_type), ShapedArray(tuple(shape), dtype)]


def _first_key(keys):
    from pyjax._src.lax import shapes

    aval = keys.aval if hasattr(keys, "aval") else avals_lib.ShapedArray(np.shape(keys), np.asarray(keys).dtype)
    limits = (1, *aval.shape[1:])
    first = shapes.slice(keys, (0,) * aval.ndim, limits, None)
    return shapes.squeeze(first, (0,))


def _rng_bit_generator_batch(axis_data, args, dims, *, shape, dtype, algorithm, out_sharding):
    (keys,), (d,) = args, dims
    params = dict(dtype=dtype, algorithm=algorithm, out_sharding=out_sharding)
    if d is not_mapped:
        return rng_bit_generator_p.bind(keys, shape=shape, **params), [not_mapped, not_mapped]
    from pyjax._src.lax.slicing import dynamic_update_index_in_dim

    keys = batching_util.moveaxis(keys, d, 0)
    size = keys.aval.shape[0] if hasattr(keys, "aval") else np.shape(keys)[0]
    new_key, bits = rng_bit_generator_p.bind(_first_key(keys), shape=(size, *shape), **params)
    return [dynamic_update_index_in_dim(keys, new_key, 0, axis=0), bits], [0, 0]


rng_bit_generator_p.def_batch(_rng_bit_generator_batch)


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm: RandomAlgorithm = RandomAlgorithm.RNG_DEFAULT,
                      *, out_sharding=None) -> tuple:
    """Low-level, stateless random-bit generator (experimental; prefer ``jax.random``).

    Produces uniformly random bits of the requested shape and unsigned
    integer dtype, along with the updated generator state. The algorithm is
    ``algorithm`` or, by default, the platform's choice (Philox on CPU).

    This is a thin wrapper over XLA's RngBitGenerator operation
    (https://www.openxla.org/xla/operation_semantics#rngbitgenerator); the
    ``jax.random`` module is the stable, friendlier interface.

    Args:
      key: the generator state, a ``uint32[4]`` (or ``uint64[2]``) array.
      shape: the shape of the bits to draw.
      dtype: ``uint8``, ``uint16``, ``uint32`` or ``uint64``.
      algorithm: a :class:`RandomAlgorithm`.
      out_sharding: the bits' sharding (one device: only None).

    Returns:
      ``(new_key, bits)``.

    Example:
      >>> import numpy as np
      >>> lax.rng_bit_generator(np.zeros(4, np.uint32), (3,))[1]
      Array([1713891541, 3781805453, 3159862348], dtype=uint32)
    """
    shape = avals_lib.canonicalize_shape(shape)
    dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "rng_bit_generator")
    if np.dtype(dtype) not in _BIT_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {dtype}")
    if not isinstance(algorithm, RandomAlgorithm):
        raise TypeError(f"rng_bit_generator: algorithm must be a lax.RandomAlgorithm, got {algorithm!r}")
    return tuple(rng_bit_generator_p.bind(as_array(key), shape=shape, dtype=np.dtype(dtype), algorithm=algorithm,
                                          out_sharding=out_sharding))


# ---------------------------------------------------------------------------
# rng_uniform: XLA's stateful RNG op (no derivative or batching rules in JAX)

rng_uniform_p = Primitive("rng_uniform")
rng_uniform_p.declare(stateful=True,
                      sharding_reason="scalar bounds: the result is unplaced (XLA's stateful generator)")
rng_uniform_p.def_jvp(unimplemented(""))
rng_uniform_p.def_batch(unimplemented(""))


@rng_uniform_p.def_abstract_eval
def _rng_uniform_abstract_eval(a: ShapedArray, b: ShapedArray, *, shape: tuple[int, ...]) -> ShapedArray:
    if a.dtype != b.dtype:
        raise ValueError(f"Arguments to rng_uniform must have identical dtypes, got {a.dtype} and {b.dtype}.")
    if a.shape != () or b.shape != ():
        raise ValueError(f"Arguments to rng_uniform must be scalars; got shapes {a.shape} and {b.shape}.")
    return ShapedArray(tuple(shape), a.dtype, weak_type=a.weak_type and b.weak_type)


def rng_uniform(a, b, shape):
    """Low-level, stateful uniform sampler (experimental; prefer ``jax.random``).

    Samples are uniform on [a, b). When b <= a the output is unspecified and
    may differ between backends.

    Only meant for rare, performance-sensitive cases; ``jax.random`` covers
    everything else. It may disappear without notice.
    """
    return rng_uniform_p.bind(as_array(a), as_array(b), shape=tuple(shape))


__all__ += ["rng_uniform", "rng_uniform_p"]
