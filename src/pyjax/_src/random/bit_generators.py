"""XLA's RngBitGenerator algorithms, on NumPy arrays.

``lax.rng_bit_generator`` hands XLA a 128-bit state (a ``uint64[2]``, or the
``uint32[4]`` JAX keeps it as: word pairs, low word first) and gets back the
advanced state and a block of random bits. The state is the pair
``(key, counter)``: ``key`` is its first 64-bit word, and the algorithm
counts from the rest.

* Philox-4x32 (``RNG_PHILOX``, and ``RNG_DEFAULT`` on the CPU: XLA's CPU
  compiler expands the default to Philox). The 128-bit counter is the state
  reversed (low 64 bits = the state's second word, high = its first); draw
  ``i`` hashes counter + ``i`` under the key's two 32-bit halves, ten rounds,
  and the four words of each draw are laid out one after another (row
  major). 64-bit values take two draws' words pairwise (low word first). The
  state comes back with its second word advanced by the draws taken.
* ThreeFry-2x32 (``RNG_THREE_FRY``): the counter is the state's second
  word. 64-bit values hash counter + their row-major index and join the two
  result words. 32-bit values halve the shape on its first even axis (or
  its longest one), hash counter + the index in the half shape, and
  interleave the two result words along that axis.

Values narrower than 32 bits are the low bits of the 32-bit ones. These are
pure functions: each call returns ``(new_state, bits)``.
"""

from __future__ import annotations

import math

import numpy as np

from pyjax._src.random.threefry import threefry2x32_numpy

_U32, _U64 = np.dtype(np.uint32), np.dtype(np.uint64)
_SHIFT = np.uint64(32)

# Philox-4x32's round multipliers and key increments (Salmon et al., SC 2011).
_PHILOX_M0, _PHILOX_M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_PHILOX_W0, _PHILOX_W1 = 0x9E3779B9, 0xBB67AE85


def state_words(key: np.ndarray) -> tuple[int, int]:
    """The two 64-bit state words of a ``uint32[4]`` or ``uint64[2]`` key."""
    key = np.asarray(key)
    if key.dtype == _U64:
        return int(key[0]), int(key[1])
    words = [int(w) for w in key.astype(_U32)]
    return words[0] | words[1] << 32, words[2] | words[3] << 32


def key_of_words(words: tuple[int, int], like: np.ndarray) -> np.ndarray:
    """The state words back in the key's own layout (``like``'s dtype)."""
    mask = 0xFFFFFFFF
    if np.asarray(like).dtype == _U64:
        return np.array(words, _U64)
    first, second = words
    return np.array([first & mask, first >> 32, second & mask, (second >> 32) & mask], _U32)


def _split64(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return x.astype(_U32), (x >> _SHIFT).astype(_U32)


def _join64(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    return low.astype(_U64) | (high.astype(_U64) << _SHIFT)


def philox4x32(counter: list[np.ndarray], k0: int, k1: int) -> list[np.ndarray]:
    """Ten Philox-4x32 rounds over four uint32 counter words under key (k0, k1)."""
    x0, x1, x2, x3 = counter
    for _ in range(10):
        p0 = x0.astype(_U64) * _PHILOX_M0
        p1 = x2.astype(_U64) * _PHILOX_M1
        hi0, lo0 = (p0 >> _SHIFT).astype(_U32), p0.astype(_U32)
        hi1, lo1 = (p1 >> _SHIFT).astype(_U32), p1.astype(_U32)
        x0, x1, x2, x3 = hi1 ^ x1 ^ np.uint32(k0), lo1, hi0 ^ x3 ^ np.uint32(k1), lo0
        k0, k1 = (k0 + _PHILOX_W0) & 0xFFFFFFFF, (k1 + _PHILOX_W1) & 0xFFFFFFFF
    return [x0, x1, x2, x3]


def _philox_words(words: tuple[int, int], count: int) -> tuple[np.ndarray, int]:
    # `count` draws of four words from the state's counter; the words of all
    # draws in order, and the state's advanced second word.
    key, low = words
    high = key
    draws = np.arange(count, dtype=_U64)
    with np.errstate(over="ignore"):
        counter_low = np.uint64(low) + draws
    # The 128-bit add's carry: the low word wrapped past 2**64.
    counter_high = np.where(counter_low < np.uint64(low), np.uint64((high + 1) & (2**64 - 1)), np.uint64(high))
    out = philox4x32([*_split64(counter_low), *_split64(counter_high)], key & 0xFFFFFFFF, key >> 32)
    return np.stack(out, axis=-1).reshape(-1), (low + count) & (2**64 - 1)


def philox_bits(key: np.ndarray, shape: tuple, bit_width: int) -> tuple[np.ndarray, np.ndarray]:
    """``RNG_PHILOX``: (new key, bits of ``bit_width`` and ``shape``)."""
    words = state_words(key)
    size = math.prod(shape)
    if bit_width == 64:
        flat, advanced = _philox_words(words, -(-size // 2))
        bits = _join64(flat[0::2], flat[1::2])[:size]
    else:
        flat, advanced = _philox_words(words, -(-size // 4))
        bits = flat[:size].astype(np.dtype(f"uint{bit_width}"))
    return key_of_words((words[0], advanced), key), bits.reshape(shape)


def _threefry_counts(words: tuple[int, int], shape: tuple) -> tuple[np.ndarray, np.ndarray]:
    key, start = words
    with np.errstate(over="ignore"):
        counts = np.uint64(start) + np.arange(math.prod(shape), dtype=_U64).reshape(shape)
    return threefry2x32_numpy(np.uint32(key & 0xFFFFFFFF), np.uint32(key >> 32), *_split64(counts))


def _half_shape(shape: tuple) -> tuple[tuple, int]:
    # XLA's split of a shape in halves: the first even axis, else the
    # (first) longest one; the axis is halved, rounding up.
    even = [i for i, d in enumerate(shape) if d % 2 == 0]
    axis = even[0] if even else max(range(len(shape)), key=lambda i: (shape[i], -i))
    half = list(shape)
    half[axis] = -(-shape[axis] // 2)
    return tuple(half), axis


def threefry_bits(key: np.ndarray, shape: tuple, bit_width: int) -> tuple[np.ndarray, np.ndarray]:
    """``RNG_THREE_FRY``: (new key, bits of ``bit_width`` and ``shape``)."""
    words = state_words(key)
    if bit_width == 64:
        y0, y1 = _threefry_counts(words, shape)
        bits, used = _join64(y0, y1), math.prod(shape)
    elif not shape:
        y0, _ = _threefry_counts(words, (1,))
        bits, used = y0.reshape(()), 1
    else:
        half, axis = _half_shape(shape)
        y0, y1 = _threefry_counts(words, half)
        pairs = np.stack([y0, y1], axis=axis + 1)
        joined = pairs.reshape(half[:axis] + (2 * half[axis],) + half[axis + 1:])
        bits, used = np.take(joined, np.arange(shape[axis]), axis=axis), math.prod(half)
    if bit_width < 32:
        bits = bits.astype(np.dtype(f"uint{bit_width}"))
    return key_of_words((words[0], (words[1] + used) & (2**64 - 1)), key), bits


__all__ = ["key_of_words", "philox4x32", "philox_bits", "state_words", "threefry_bits"]
