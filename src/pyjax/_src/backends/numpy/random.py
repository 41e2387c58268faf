"""NumPy impls of the PRNG primitives.

A key array's buffer is a NumPy array of the key shape whose record dtype
(``KeyTy.dtype``) holds each key's uint32 words, under a field named after
its PRNG implementation. The impls unpack it to the physical uint32 key
data, call the implementation's vectorised functions (threefry's run the
hash on whole arrays) and pack the result back.
"""

from __future__ import annotations

import numpy as np

from pyjax._src.random import prng
from pyjax._src.random.threefry import threefry2x32_numpy, threefry2x32_p

IMPLS: dict = {}


def _random_seed(seeds, *, impl):
    seeds = np.asarray(seeds)
    if seeds.dtype == np.bool_ or not np.issubdtype(seeds.dtype, np.integer):
        # JAX checks inside its jitted seeding function, so it names a tracer.
        raise TypeError(f"PRNG key seed must be an integer; got JitTracer({seeds.dtype.name}[{','.join(map(str, seeds.shape))}])")
    return prng.key_buffer(impl.seed(seeds), impl)


def _random_split(keys, *, shape):
    impl = prng.buffer_impl(keys)
    return prng.key_buffer(impl.split(prng.physical_keys(keys), shape), impl)


def _random_fold_in(keys, msgs):
    impl = prng.buffer_impl(keys)
    data = prng.physical_keys(keys)
    # The keys and messages broadcast together (lax's rule: equal ranks with
    # size-1 axes, or a rank-0 operand).
    shape = np.broadcast_shapes(data.shape[:-1], np.shape(msgs))
    data = np.broadcast_to(data, shape + data.shape[-1:])
    return prng.key_buffer(impl.fold_in(data, np.broadcast_to(np.asarray(msgs, np.uint32), shape)), impl)


def _random_bits(keys, *, bit_width, shape):
    return prng.buffer_impl(keys).random_bits(prng.physical_keys(keys), bit_width, shape)


def _random_wrap(data, *, impl):
    return prng.key_buffer(np.asarray(data), impl)


def _random_unwrap(keys):
    return np.array(prng.physical_keys(keys))


IMPLS[prng.random_seed_p] = _random_seed
IMPLS[prng.random_split_p] = _random_split
IMPLS[prng.random_fold_in_p] = _random_fold_in
IMPLS[prng.random_bits_p] = _random_bits
IMPLS[prng.random_wrap_p] = _random_wrap
IMPLS[prng.random_unwrap_p] = _random_unwrap
IMPLS[prng.random_clone_p] = lambda keys: keys
IMPLS[threefry2x32_p] = lambda k0, k1, x0, x1: list(threefry2x32_numpy(k0, k1, x0, x1))
