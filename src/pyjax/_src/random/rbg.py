"""The ``rbg`` and ``unsafe_rbg`` PRNGs: random bits from XLA's RngBitGenerator.

Both have four-word keys (tags ``rbg`` and ``urbg``) seeded with two copies
of the threefry key of the seed, and both draw bits with
``lax.rng_bit_generator`` (Philox on the CPU) from the whole key. They
differ in how they derive keys:

* ``rbg`` splits and folds in with threefry2x32, on each two-word half of
  the key (in the layout ``jax_threefry_partitionable`` picks);
* ``unsafe_rbg`` uses the bit generator for that too: ``split`` keeps every
  tenth four-word row of a draw, ``fold_in`` XORs the key with the last row
  of ten drawn from the seed of the folded-in data.

JAX writes these as traceable functions that it vmaps over batches of keys.
The bit generator's batching rule draws every example's bits from the
*first* key of the batch (one draw, batch axes in front), so a batch of
keys does not draw what the same keys draw one by one; the functions below
are the vectorised NumPy forms of exactly that behaviour.
"""

from __future__ import annotations

import math

import numpy as np

from pyjax._src.random import prng
from pyjax._src.random import threefry as tf
from pyjax._src.random.bit_generators import philox_bits

_U32 = np.dtype(np.uint32)


def rbg_seed(seeds: np.ndarray) -> np.ndarray:
    """Keys ``(*batch, 4)``: the threefry key of each seed, twice."""
    half = tf.threefry_seed(seeds)
    return np.concatenate([half, half], axis=-1)


def rbg_split(keys: np.ndarray, shape) -> np.ndarray:
    """Each half of each key split by threefry2x32: keys ``(*batch, *shape, 4)``."""
    keys = np.asarray(keys, _U32)
    return np.concatenate([tf.threefry_split(keys[..., :2], shape), tf.threefry_split(keys[..., 2:], shape)],
                          axis=-1)


def rbg_fold_in(keys: np.ndarray, msgs: np.ndarray) -> np.ndarray:
    """Each half of each key folded by threefry2x32."""
    keys = np.asarray(keys, _U32)
    return np.concatenate([tf.threefry_fold_in(keys[..., :2], msgs), tf.threefry_fold_in(keys[..., 2:], msgs)],
                          axis=-1)


def _batched_draw(keys: np.ndarray, bit_width: int, shape: tuple) -> np.ndarray:
    # One draw of shape (*batch, *shape) from the batch's first key: what the
    # bit generator's batching rule gives a batch of keys.
    batch = keys.shape[:-1]
    dtype = prng.UINT_DTYPES[bit_width]
    if 0 in batch:
        return np.zeros((*batch, *shape), dtype)
    first = keys.reshape(-1, keys.shape[-1])[0]
    return philox_bits(first, (*batch, *shape), bit_width)[1]


def rbg_random_bits(keys: np.ndarray, bit_width: int, shape) -> np.ndarray:
    """Bits ``(*batch, *shape)`` of ``bit_width`` from the bit generator."""
    if bit_width not in (8, 16, 32, 64):
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    return _batched_draw(np.asarray(keys, _U32), bit_width, tuple(shape))


def unsafe_rbg_split(keys: np.ndarray, shape) -> np.ndarray:
    """Every tenth row of a draw of ``10 * num`` four-word rows (ten draws
    serve as a hash)."""
    keys = np.asarray(keys, _U32)
    shape = tuple(shape)
    num = math.prod(shape)
    rows = _batched_draw(keys, 32, (10 * num, 4))
    return rows[..., ::10, :].reshape((*keys.shape[:-1], *shape, 4))


def unsafe_rbg_fold_in(keys: np.ndarray, msgs: np.ndarray) -> np.ndarray:
    """Keys XOR the last of ten rows drawn from the rbg key of each message.

    ``msgs`` comes unbroadcast (rank 0, or the keys' rank with size-1
    axes): the draw is batched over the message's own axes only, like JAX's
    vmaps of the fold, whose bit generator then draws from the first
    message's key.
    """
    keys = np.asarray(keys, _U32)
    msgs = np.asarray(msgs, _U32)
    batch = np.broadcast_shapes(keys.shape[:-1], msgs.shape)
    # Axes where the message varies are batched; its size-1 (broadcast) axes are not.
    own = tuple(d if d == b else 1 for d, b in zip(msgs.shape, batch)) if msgs.ndim else ()
    if 0 in own:
        return np.zeros((*batch, 4), _U32)
    first_seed = rbg_seed(msgs.reshape(-1)[:1])[0] if msgs.size else rbg_seed(np.zeros((), _U32))
    rows = philox_bits(first_seed, (*own, 10, 4), 32)[1][..., -1, :]
    return np.broadcast_to(keys, (*batch, 4)) ^ rows


unsafe_rbg_fold_in.takes_unbroadcast_msgs = True  # backends/numpy/impls/random.py passes msgs as they are

rbg_prng_impl = prng.PRNGImpl(
    key_shape=(4,),
    seed=rbg_seed,
    split=rbg_split,
    random_bits=rbg_random_bits,
    fold_in=rbg_fold_in,
    name="rbg",
    tag="rbg",
)

unsafe_rbg_prng_impl = prng.PRNGImpl(
    key_shape=(4,),
    seed=rbg_seed,
    split=unsafe_rbg_split,
    random_bits=rbg_random_bits,
    fold_in=unsafe_rbg_fold_in,
    name="unsafe_rbg",
    tag="urbg",
)

prng.register_prng(rbg_prng_impl)
prng.register_prng(unsafe_rbg_prng_impl)

__all__ = ["rbg_prng_impl", "unsafe_rbg_prng_impl"]
