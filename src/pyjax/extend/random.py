"""pyjax.extend.random: PRNG implementations and the primitives keys are made with."""

from __future__ import annotations

from collections.abc import Callable, Hashable

import numpy as np

from pyjax._src import core as _core
from pyjax._src.array import Array as _Array
from pyjax._src.random import prng as _prng
from pyjax._src.random.prng import random_seed
from pyjax._src.random.rbg import rbg_prng_impl, unsafe_rbg_prng_impl
from pyjax._src.random.threefry import threefry2x32_p, threefry_2x32, threefry_prng_impl


def seed_with_impl(impl, seed):
    """Keys of the PRNG implementation `impl` made from the integer `seed`."""
    return random_seed(seed, impl=impl)


def _per_key(fn: Callable, key_ndim: int, out_ndim: Callable[[tuple], int] | None = None) -> Callable:
    # A PRNGImpl's functions take NumPy key data with leading batch axes and
    # return NumPy data; a library's functions take one key (or seed) as an
    # array, written with jax.numpy: they run once per key, eagerly.
    def run(data, *rest):
        data = np.asarray(data)
        batch = data.shape[:data.ndim - key_ndim]
        flat = data.reshape((-1, *data.shape[data.ndim - key_ndim:]))
        token = _core._trace_ctx.set(None)  # (the eval trace: the data is concrete)
        try:
            outs = [np.asarray(fn(_Array(k, _core.concrete_aval(k)), *rest)) for k in flat]
        finally:
            _core._trace_ctx.reset(token)
        if not outs:
            raise ValueError("define_prng_impl: an empty batch of keys")
        return np.stack(outs).reshape((*batch, *outs[0].shape))

    return run


def define_prng_impl(*, key_shape: tuple[int, ...], seed: Callable, split: Callable, random_bits: Callable,
                     fold_in: Callable, name: str = "<unnamed>", tag: str = "?") -> Hashable:
    """A new PRNG implementation from functions on one uint32 key: `seed(seed)
    -> key`, `split(key, shape) -> keys`, `random_bits(key, bit_width, shape)
    -> bits`, `fold_in(key, data) -> key`. Pass it as
    `jax.random.key(..., impl=...)`. The name must be new (pyjax's key
    buffers record their implementation by name)."""
    key_ndim = len(key_shape)

    def fold_in_(keys, msgs):
        keys, msgs = np.asarray(keys), np.asarray(msgs)
        batch = keys.shape[:keys.ndim - key_ndim]
        msgs = np.broadcast_to(msgs, batch).reshape(-1)
        flat = keys.reshape((-1, *key_shape))
        token = _core._trace_ctx.set(None)
        try:
            outs = [np.asarray(fold_in(_Array(k, _core.concrete_aval(k)), _Array(m, _core.concrete_aval(m))))
                    for k, m in zip(flat, msgs)]
        finally:
            _core._trace_ctx.reset(token)
        return np.stack(outs).reshape((*batch, *key_shape))

    impl = _prng.PRNGImpl(
        key_shape=tuple(key_shape), seed=_per_key(seed, 0),
        split=lambda keys, shape: _per_key(lambda k: split(k, tuple(shape)), key_ndim)(keys),
        random_bits=lambda keys, bit_width, shape: _per_key(lambda k: random_bits(k, bit_width, tuple(shape)),
                                                            key_ndim)(keys),
        fold_in=fold_in_, name=name, tag=tag)
    # pyjax's key buffers name their implementation, so it is registered by name.
    _prng.register_prng(impl)
    return impl


__all__ = ["define_prng_impl", "random_seed", "rbg_prng_impl", "seed_with_impl", "threefry2x32_p", "threefry_2x32",
           "threefry_prng_impl", "unsafe_rbg_prng_impl"]
