"""The threefry2x32 hash and the threefry2x32 PRNG built on it.

Threefry-2x32 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
3", SC 2011) maps a key (two uint32 words) and a counter (two uint32 words)
to two uint32 words in 20 rounds of add/rotate/xor, with the key schedule
injected every four rounds. It is a pure function of its inputs, which is
why it vectorises over arrays of counters and keys: `threefry2x32_numpy`
runs it on whole NumPy arrays, chunk by chunk so that the ~120 passes over
each chunk stay in cache, unless a backend installed a faster kernel
(`set_hash_kernel`: the NumPy backend's is the same rounds in C).

The PRNG (``threefry_prng_impl``, tag ``fry``) derives everything from the
hash, in one of JAX's two bit layouts:

* ``jax_threefry_partitionable`` on (JAX 0.11's default): element ``i`` of a
  draw of shape ``s`` hashes the 64-bit counter ``i`` split into two words;
  ``split`` gives key ``i`` the two words of that hash.
* off (the original layout): the counters ``0 .. n-1`` are cut in halves
  that form the two words of the hash inputs, and the outputs are
  concatenated back.

Both produce exactly JAX's bits for the same key, shape and bit width.
"""

from __future__ import annotations

import math

import numpy as np

from pyjax._src import config, core
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters.batching import not_mapped
from pyjax._src.jit import jit
from pyjax._src.lax import batching_util
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax.elementwise import broadcasting_shape
from pyjax._src.random import prng
from pyjax._src.rules import NOT_DIFFERENTIABLE, NOT_LINEAR

_U32 = np.dtype(np.uint32)

# ---------------------------------------------------------------------------
# The hash, on NumPy arrays

# Rotation distances of the two alternating groups of four rounds.
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = np.uint32(0x1BD11BDA)  # the key schedule's third word is k0 ^ k1 ^ this
_LEFT = {r: np.uint32(r) for group in _ROTATIONS for r in group}
_RIGHT = {r: np.uint32(32 - r) for group in _ROTATIONS for r in group}
# Elements per chunk: large enough that each NumPy call runs long without the
# GIL (two threads hash at once, see backends/numpy/parallel/split.py), small enough for
# two words and a temporary to stay in cache (measured: 1 << 14 hashed 10M words
# in 128 ms on one thread, 1 << 18 in 113 ms, and in 67 ms on two).
_CHUNK = 1 << 18


def _hash_in_place(k0, k1, x0: np.ndarray, x1: np.ndarray, tmp: np.ndarray) -> None:
    # uint32 arithmetic wraps, exactly as the hash wants; every op writes in
    # place to avoid allocating ~120 temporaries per chunk.
    k2 = k0 ^ k1 ^ _PARITY
    schedule = (k0, k1, k2)
    x0 += k0
    x1 += k1
    for block in range(5):
        for r in _ROTATIONS[block % 2]:
            x0 += x1
            np.right_shift(x1, _RIGHT[r], out=tmp)
            x1 <<= _LEFT[r]
            x1 |= tmp
            x1 ^= x0
        x0 += schedule[(block + 1) % 3]
        x1 += schedule[(block + 2) % 3]
        x1 += np.uint32(block + 1)


def threefry2x32_numpy(k0, k1, x0, x1) -> tuple[np.ndarray, np.ndarray]:
    """The threefry2x32 hash of counters (x0, x1) under keys (k0, k1).

    All four are uint32 arrays (or scalars) that broadcast together; the two
    result words have the broadcast shape.
    """
    k0, k1, x0, x1 = (np.asarray(a, _U32) for a in (k0, k1, x0, x1))
    shapes = {k0.shape, k1.shape, x0.shape, x1.shape}
    shapes.discard(())
    shape = shapes.pop() if len(shapes) == 1 else () if not shapes else np.broadcast_shapes(
        k0.shape, k1.shape, x0.shape, x1.shape)
    size = math.prod(shape)
    # Fresh flat copies of the counters: the hash overwrites them.
    y0, y1 = _flat_copy(x0, shape, size), _flat_copy(x1, shape, size)
    keys = []
    for k in (k0, k1):
        keys.append(k.reshape(())[()] if k.size == 1 else np.broadcast_to(k, shape).reshape(size))
    scalar_keys = all(np.ndim(k) == 0 for k in keys)
    kernel = _hash_kernel[0]

    def hash_range(start: int, stop: int) -> None:
        if kernel is not None and kernel(keys, y0, y1, start, stop):
            return
        # Cache-sized chunks of [start, stop), each hashed in place.
        tmp = np.empty(min(stop - start, _CHUNK), _U32)
        for lo in range(start, stop, _CHUNK):
            hi = min(lo + _CHUNK, stop)
            a, b = (keys if scalar_keys else [k if np.ndim(k) == 0 else k[lo:hi] for k in keys])
            _hash_in_place(a, b, y0[lo:hi], y1[lo:hi], tmp[: hi - lo])

    _run_ranges[0](hash_range, size)
    return y0.reshape(shape), y1.reshape(shape)


def _flat_copy(x: np.ndarray, shape: tuple, size: int) -> np.ndarray:
    # A new C-ordered uint32 array of `size` elements: x broadcast to `shape`.
    if x.shape == shape:
        return np.array(x, _U32, order="C").reshape(size)
    out = np.empty(size, _U32)
    out.reshape(shape)[...] = x
    return out


def _sequential(hash_range, size: int) -> None:
    hash_range(0, size)


# How the hash's index range is run: all at once by default; a backend may
# install a runner that splits it across threads (each element is hashed
# independently, so any split gives the same bits).
_run_ranges: list = [_sequential]


# A backend may hash a range in place faster than NumPy's passes do:
# `kernel(keys, y0, y1, start, stop)` (keys: two uint32 scalars or arrays of
# the flat size) returns False when it cannot now, and then the rounds above
# run. It must give the same bits (the hash is integer arithmetic).
_hash_kernel: list = [None]


def set_hash_kernel(kernel) -> None:
    """Installs `kernel`, tried first on every range of every hash."""
    _hash_kernel[0] = kernel


def set_range_runner(runner) -> None:
    """Installs `runner(hash_range, size)`, which must call `hash_range(start,
    stop)` over disjoint ranges covering [0, size)."""
    _run_ranges[0] = runner


# ---------------------------------------------------------------------------
# The threefry2x32 primitive: (k0, k1, x0, x1) -> (y0, y1), all uint32


threefry2x32_p = Primitive("threefry2x32", multiple_results=True)
threefry2x32_p.def_jvp(NOT_DIFFERENTIABLE)  # integer in, integer out
threefry2x32_p.def_transpose(NOT_LINEAR)


@threefry2x32_p.def_abstract_eval
def _threefry2x32_abstract_eval(*avals):
    if any(a.dtype != _U32 for a in avals):
        raise TypeError(f"Arguments to threefry2x32 must have uint32 type, got {avals}")
    shape = broadcasting_shape("threefry2x32", avals)
    return [ShapedArray(shape, _U32)] * 2


def _threefry2x32_batch(axis_data, args, dims):
    # Materialise every operand with the batch axis in front: the hash is
    # elementwise, so the batched hash is the hash of the batched operands.
    size = axis_data.size
    ndim = max(core.get_aval(x).ndim - (d is not not_mapped) for x, d in zip(args, dims, strict=True))
    moved = []
    for x, d in zip(args, dims, strict=True):
        x = batching_util.bdim_at_front(x, d, size)
        shape = core.get_aval(x).shape
        if len(shape) < ndim + 1:  # a lower-rank operand: broadcast it to full rank
            target = (size,) + (1,) * (ndim + 1 - len(shape)) + tuple(shape[1:])
            dims_kept = (0,) + tuple(range(ndim + 1 - len(shape) + 1, ndim + 1))
            x = lax_shapes.broadcast_in_dim(x, target, dims_kept)
        moved.append(x)
    outs = threefry2x32_p.bind(*moved)
    return outs, [0, 0]


threefry2x32_p.def_batch(_threefry2x32_batch)


@jit(inline=True)
def threefry_2x32(keypair, count):
    """Applies the threefry2x32 hash to a count array with one key.

    Args:
      keypair: a pair of uint32 scalars (a raw key of shape ``(2,)``).
      count: a uint32 array of any shape.

    Returns:
      A uint32 array with the shape of ``count``: the counts are cut into two
      halves (padded with a zero when odd), hashed pairwise, and the two
      output words concatenated back.
    """
    key1 = lax_shapes.squeeze(lax_shapes.slice(keypair, (0,), (1,)), (0,))
    key2 = lax_shapes.squeeze(lax_shapes.slice(keypair, (1,), (2,)), (0,))
    if not core.get_aval(key1).dtype == core.get_aval(key2).dtype == core.get_aval(count).dtype == _U32:
        raise TypeError("threefry_2x32 requires uint32 arguments, got "
                        f"{[core.get_aval(x).dtype for x in (key1, key2, count)]}")
    shape = core.get_aval(count).shape
    size = math.prod(shape)
    flat = lax_shapes.reshape(count, (size,))
    odd = size % 2
    if odd:
        flat = lax_shapes.concatenate([flat, np.zeros((1,), _U32)], 0)
    half = (size + odd) // 2
    x0 = lax_shapes.slice(flat, (0,), (half,))
    x1 = lax_shapes.slice(flat, (half,), (2 * half,))
    y0, y1 = threefry2x32_p.bind(key1, key2, x0, x1)
    out = lax_shapes.concatenate([y0, y1], 0)
    if odd:
        out = lax_shapes.slice(out, (0,), (size,))
    return lax_shapes.reshape(out, shape)


# ---------------------------------------------------------------------------
# The PRNG on physical keys: uint32[*batch, 2], vectorised over batch


def _key_words(keys: np.ndarray, extra_ndim: int):
    # The two key words, with `extra_ndim` trailing size-1 axes to broadcast
    # against the counters of one draw.
    keys = np.asarray(keys, _U32)
    batch = keys.shape[:-1]
    pad = (1,) * extra_ndim
    return keys[..., 0].reshape(batch + pad), keys[..., 1].reshape(batch + pad)


def iota_2x32_shape(shape) -> tuple[np.ndarray, np.ndarray]:
    """The row-major element index over ``shape`` as a 64-bit count, split
    into its high and low uint32 words."""
    size = math.prod(shape)
    if size > 2**64:
        raise NotImplementedError("random bits array of size exceeding 2 ** 64")
    if size <= 2**32:  # the common case: no high word, no 64-bit iota
        return np.zeros((), _U32), np.arange(size, dtype=_U32).reshape(shape)
    counts = np.arange(size, dtype=np.uint64).reshape(shape)
    return (counts >> np.uint64(32)).astype(_U32), counts.astype(_U32)


def _hash_counts(keys: np.ndarray, counts: np.ndarray) -> np.ndarray:
    # `threefry_2x32` for every key of a batch: the 1-D `counts` cut in halves.
    n = counts.shape[0]
    if n % 2:
        counts = np.concatenate([counts, np.zeros(1, _U32)])
    half = counts.shape[0] // 2
    k0, k1 = _key_words(keys, 1)
    y0, y1 = threefry2x32_numpy(k0, k1, counts[:half], counts[half:])
    return np.concatenate([y0, y1], axis=-1)[..., :n]


def threefry_seed(seeds: np.ndarray) -> np.ndarray:
    """Keys from integer seeds: the seed's 64 bits as (high word, low word);
    seeds narrower than 64 bits have a zero high word."""
    seeds = np.asarray(seeds)
    if seeds.dtype.itemsize == 8:
        high = (seeds.view(np.uint64) >> np.uint64(32)).astype(_U32)
    else:  # XLA's logical shift by >= the bit width gives 0
        high = np.zeros(seeds.shape, _U32)
    return np.stack([high, seeds.astype(_U32)], axis=-1)  # astype wraps, as XLA's convert


def threefry_split(keys: np.ndarray, shape) -> np.ndarray:
    """New keys of shape ``(*batch, *shape, 2)`` from keys ``(*batch, 2)``."""
    shape = tuple(shape)
    if config.threefry_partitionable.value:
        k0, k1 = _key_words(keys, len(shape))
        high, low = iota_2x32_shape(shape)
        y0, y1 = threefry2x32_numpy(k0, k1, high, low)
        return np.stack([y0, y1], axis=-1)
    num = math.prod(shape)
    bits = _hash_counts(keys, np.arange(2 * num, dtype=_U32))
    return bits.reshape((*np.shape(keys)[:-1], *shape, 2))


def threefry_fold_in(keys: np.ndarray, msgs: np.ndarray) -> np.ndarray:
    """Keys with the uint32 ``msgs`` folded in: the hash of the count (0, msg)."""
    k0, k1 = _key_words(keys, 0)
    y0, y1 = threefry2x32_numpy(k0, k1, np.zeros((), _U32), np.asarray(msgs, _U32))
    return np.stack([y0, y1], axis=-1)


def threefry_random_bits(keys: np.ndarray, bit_width: int, shape) -> np.ndarray:
    """Random unsigned integers of ``bit_width`` bits, shape ``(*batch, *shape)``."""
    if bit_width not in (8, 16, 32, 64):
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    shape = tuple(shape)
    dtype = prng.UINT_DTYPES[bit_width]
    if config.threefry_partitionable.value:
        k0, k1 = _key_words(keys, len(shape))
        high, low = iota_2x32_shape(shape)
        y0, y1 = threefry2x32_numpy(k0, k1, high, low)
        if bit_width == 64:
            return (y0.astype(np.uint64) << np.uint64(32)) | y1
        y0 ^= y1
        return y0 if bit_width == 32 else y0.astype(dtype)  # the low bits, as XLA's convert
    batch = np.shape(keys)[:-1]
    size = math.prod(shape)
    max_count = -(-bit_width * size // 32)
    if max_count >= 0xFFFFFFFF:
        raise NotImplementedError("random bits arrays of 2 ** 36 bytes or more with "
                                  "jax_threefry_partitionable off")
    bits = _hash_counts(keys, np.arange(max_count, dtype=_U32))
    if bit_width == 64:
        high, low = np.split(bits, 2, axis=-1)
        bits = (high.astype(np.uint64) << np.uint64(32)) | low
    elif bit_width < 32:
        # Each word gives 32 / bit_width values, least significant first.
        bits = np.ascontiguousarray(bits.astype("<u4")).view(dtype.newbyteorder("<"))[..., :size]
        bits = bits.astype(dtype)
    return bits.reshape((*batch, *shape))


threefry_prng_impl = prng.PRNGImpl(
    key_shape=(2,),
    seed=threefry_seed,
    split=threefry_split,
    random_bits=threefry_random_bits,
    fold_in=threefry_fold_in,
    name="threefry2x32",
    tag="fry",
)

prng.register_prng(threefry_prng_impl)

__all__ = ["iota_2x32_shape", "set_hash_kernel", "set_range_runner", "threefry2x32_numpy", "threefry2x32_p", "threefry_2x32", "threefry_prng_impl"]
