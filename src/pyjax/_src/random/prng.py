"""PRNG implementations, the key dtype, and the key primitives.

A PRNG implementation (``PRNGImpl``) says how big a key is (``key_shape``,
in uint32 words) and how to seed, split, fold data into and draw bits from
keys. Its functions work on *physical* keys — NumPy uint32 arrays of shape
``(*batch, *key_shape)`` — and are vectorised over the leading batch axes;
the backend calls them when it executes a key primitive. (JAX writes them as
traceable functions and vmaps them; on a NumPy backend the vectorised form
is both simpler and much faster.)

A key array is an array whose dtype is ``KeyTy(impl)``: its aval is
``key<fry>[]`` for one threefry key. The primitives below take and make key
arrays; ``random_wrap``/``random_unwrap`` convert to and from the uint32
key data. None of them is differentiable (keys have float0 tangents) and
all of them appear in jaxprs exactly as JAX 0.11 prints them::

    b:key<fry>[2] = random_split[shape=(2,)] a
    c:u32[3] = random_bits[bit_width=32 shape=(3,)] a
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters.jvp import defjvp2
from pyjax._src.interpreters import key_reuse as _key_reuse
from pyjax._src.lax import batching_util
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import special as lax_special
from pyjax._src.lax.elementwise import broadcasting_shape
from pyjax._src.rules import NOT_DIFFERENTIABLE, NOT_LINEAR

Shape = tuple

UINT_DTYPES: dict[int, np.dtype] = {
    8: np.dtype("uint8"), 16: np.dtype("uint16"), 32: np.dtype("uint32"), 64: np.dtype("uint64"),
}


class PRNGImpl(NamedTuple):
    """Specifies a PRNG: its key shape and its operations on physical keys.

    Each function takes and returns NumPy uint32 key data of shape
    ``(*batch, *key_shape)`` and is vectorised over ``batch``::

      seed(seeds: int[*batch]) -> keys
      split(keys, shape) -> keys[*batch, *shape]
      fold_in(keys, msgs: uint32[*batch]) -> keys
      random_bits(keys, bit_width, shape) -> uint<bit_width>[*batch, *shape]
    """

    key_shape: Shape
    seed: Callable
    split: Callable
    random_bits: Callable
    fold_in: Callable
    name: str = "<unnamed>"
    tag: str = "?"

    def __hash__(self) -> int:
        return hash(self.tag)

    def __str__(self) -> str:
        # How the impl param prints in a jaxpr: `random_seed[impl=fry]`.
        return self.tag


prngs: dict[str, PRNGImpl] = {}


def register_prng(impl: PRNGImpl) -> None:
    """Makes ``impl`` known by name (to ``jax_default_prng_impl`` and ``key(impl=...)``)."""
    if impl.name in prngs:
        raise ValueError(f"PRNG with name {impl.name} already registered: {impl}")
    prngs[impl.name] = impl


# ---------------------------------------------------------------------------
# The key dtype


class KeyTyRules:
    """What the rest of pyjax needs to know about key dtypes."""

    @staticmethod
    def tangent_dtype(_dtype):
        return dtypes.float0

    @staticmethod
    def physical_element_aval(dtype) -> ShapedArray:
        return ShapedArray(dtype._impl.key_shape, np.dtype("uint32"))

    @staticmethod
    def to_numpy(dtype, buffer):
        raise TypeError(
            "JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use "
            "jax.random.key_data(arr) if you wish to extract the underlying integer array."
        )

    @staticmethod
    def repr(aval, buffer) -> str:
        return f"Array({aval.shape}, dtype={aval.dtype.name}) overlaying:\n{physical_keys(buffer)}"


class KeyTy(dtypes.ExtendedDType):
    """The dtype of arrays of PRNG keys of one implementation (``key<fry>``).

    ``issubdtype(KeyTy(impl), dtypes.prng_key)`` is True. ``dtype`` is the
    NumPy dtype of one key in a backend buffer: a record of the key's uint32
    words, so NumPy's shape operations move whole keys.
    """

    type = dtypes.prng_key
    _rules = KeyTyRules
    # The kind of the buffer's record dtype. (JAX's KeyTy has no `kind`; the
    # numpy layer's fast paths read one to pick NumPy kernels, and "V" is in
    # none of the kinds they take, so keys fall through to the checked paths.)
    kind = "V"

    def __init__(self, impl: PRNGImpl):
        self._impl = impl
        # The field is named after the implementation, so a buffer alone says
        # which PRNG its keys belong to (the backend's impls need to know).
        self.dtype = np.dtype([(impl.name, np.uint32, impl.key_shape)])

    @property
    def name(self) -> str:
        return f"key<{self._impl.tag}>"

    @property
    def itemsize(self) -> int:
        return math.prod(self._impl.key_shape) * 4

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        return type(other) is type(self) and other._impl == self._impl

    def __ne__(self, other):
        return not self == other

    def __hash__(self) -> int:
        return hash((KeyTy, self._impl))

    def __reduce__(self):
        # By the implementation's registered name: an unpickled key dtype is
        # the same registered PRNG, not a copy of its functions.
        return _key_dtype_named, (self._impl.name,)


def _key_dtype_named(name: str) -> KeyTy:
    if name not in prngs:
        raise ValueError(f"cannot unpickle a key of the unregistered PRNG implementation {name!r}")
    return KeyTy(prngs[name])


def is_key_dtype(dtype) -> bool:
    return isinstance(dtype, KeyTy)


def keys_shaped_array(impl: PRNGImpl, shape: Shape) -> ShapedArray:
    return ShapedArray(tuple(shape), KeyTy(impl))


def physical_keys(buffer: np.ndarray) -> np.ndarray:
    """The uint32 key data, shape ``(*shape, *key_shape)``, of a key buffer."""
    buffer = np.asarray(buffer)
    return buffer[buffer.dtype.names[0]]


def buffer_impl(buffer: np.ndarray) -> PRNGImpl:
    """The PRNG implementation of the keys in a key buffer."""
    return prngs[np.asarray(buffer).dtype.names[0]]


def key_buffer(data: np.ndarray, impl: PRNGImpl) -> np.ndarray:
    """The key buffer holding uint32 key data of shape ``(*shape, *key_shape)``."""
    ndim = len(impl.key_shape)
    data = np.ascontiguousarray(data, np.uint32)
    lead = data.shape[: data.ndim - ndim]
    return data.reshape(lead + (math.prod(impl.key_shape),)).view(KeyTy(impl).dtype).reshape(lead)


def check_prng_key_data(impl: PRNGImpl, key_data) -> None:
    """JAX's checks on uint32 data about to be wrapped as keys."""
    ndim = len(impl.key_shape)
    if not all(hasattr(key_data, attr) for attr in ("ndim", "shape", "dtype")):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data "
                        f"to have ndim, shape, and dtype attributes. Got {key_data}")
    if key_data.ndim < 1:
        raise TypeError("JAX encountered invalid PRNG key data: expected "
                        f"key_data.ndim >= 1; got ndim={key_data.ndim}")
    if tuple(key_data.shape[-ndim:]) != tuple(impl.key_shape):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.shape to "
                        f"end with {impl.key_shape}; got shape={key_data.shape} for {impl=}")
    if key_data.dtype not in (np.uint32, dtypes.float0):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; "
                        f"got dtype={key_data.dtype}")


# ---------------------------------------------------------------------------
# Rules shared by the key primitives


def _key_primitive(name: str, *, batch: str | None = "vectorized") -> Primitive:
    primitive = Primitive(name)  # (sharding and partition rules: random/placement.py)
    primitive.def_jvp(NOT_DIFFERENTIABLE)  # keys and bits carry no tangents
    primitive.def_transpose(NOT_LINEAR)
    if batch == "vectorized":
        batching_util.vectorized(primitive)
    elif batch == "broadcasting":
        batching_util.broadcasting(primitive)
    return primitive


def _batch_leading(primitive: Primitive):
    """A batching rule for primitives vectorised over *leading* key axes: the
    batch axis moves to the front, where the primitive maps over it."""

    def rule(axis_data, args, dims, **params):
        (x,), (d,) = args, dims
        return primitive.bind(batching_util.moveaxis(x, d, 0), **params), 0

    return rule


# ---------------------------------------------------------------------------
# random_seed: int[*s] -> key[*s]

random_seed_p = _key_primitive("random_seed")
random_seed_p.declare(key_reuse=_key_reuse.KeyReuseSignature(_key_reuse.Source(0)))


@random_seed_p.def_abstract_eval
def _random_seed_abstract_eval(seeds_aval, *, impl):
    return keys_shaped_array(impl, seeds_aval.shape)


def random_seed(seeds, impl: PRNGImpl):
    """Keys of implementation ``impl`` made from integer ``seeds`` (any shape)."""
    from pyjax._src import config
    from pyjax._src.numpy.creation import asarray

    # A Python int goes through int64 first, so that large seeds (hashes)
    # wrap instead of overflowing when x64 is off.
    seeds_arr = asarray(np.int64(seeds)) if isinstance(seeds, int) else asarray(seeds)
    if config.random_seed_offset.value:
        seeds_arr = seeds_arr + config.random_seed_offset.value
    return random_seed_p.bind(seeds_arr, impl=impl)


# ---------------------------------------------------------------------------
# random_split: key[*s] -> key[*s, *shape]

random_split_p = _key_primitive("random_split", batch=None)
random_split_p.declare(key_reuse=_key_reuse.KeyReuseSignature(_key_reuse.Sink(0), _key_reuse.Source(0)))
random_split_p.def_batch(_batch_leading(random_split_p))


@random_split_p.def_abstract_eval
def _random_split_abstract_eval(keys_aval, *, shape):
    return keys_shaped_array(keys_aval.dtype._impl, (*keys_aval.shape, *shape))


def random_split(keys, shape: Shape):
    return random_split_p.bind(keys, shape=tuple(shape))


# ---------------------------------------------------------------------------
# random_fold_in: key[*s], uint32[*s] -> key[*s] (broadcasting)

random_fold_in_p = _key_primitive("random_fold_in", batch="broadcasting")
random_fold_in_p.declare(key_reuse=_key_reuse.KeyReuseSignature(_key_reuse.Source(0)))  # (the folded key stays usable, as in JAX)


@random_fold_in_p.def_abstract_eval
def _random_fold_in_abstract_eval(keys_aval, msgs_aval):
    shape = broadcasting_shape("random_fold_in", (keys_aval, msgs_aval))
    return ShapedArray(shape, keys_aval.dtype)


def random_fold_in(keys, msgs):
    from pyjax._src.numpy.creation import asarray

    return random_fold_in_p.bind(keys, asarray(msgs))


# ---------------------------------------------------------------------------
# random_bits: key[*s] -> uint<bit_width>[*s, *shape]

random_bits_p = _key_primitive("random_bits", batch=None)
random_bits_p.declare(key_reuse=_key_reuse.KeyReuseSignature(_key_reuse.Sink(0)))
random_bits_p.def_batch(_batch_leading(random_bits_p))


@random_bits_p.def_abstract_eval
def _random_bits_abstract_eval(keys_aval, *, bit_width, shape):
    return ShapedArray((*keys_aval.shape, *shape), np.dtype(f"uint{bit_width}"))


def random_bits(keys, bit_width: int, shape: Shape):
    return random_bits_p.bind(keys, bit_width=bit_width, shape=tuple(shape))


# ---------------------------------------------------------------------------
# random_wrap / random_unwrap: uint32[*s, *key_shape] <-> key[*s]

random_wrap_p = _key_primitive("random_wrap", batch=None)
random_wrap_p.declare(key_reuse=_key_reuse.KeyReuseSignature(_key_reuse.Source(0)))


@random_wrap_p.def_abstract_eval
def _random_wrap_abstract_eval(base_aval, *, impl):
    ndim = len(impl.key_shape)
    return keys_shaped_array(impl, base_aval.shape[: base_aval.ndim - ndim])


def _random_wrap_batch(axis_data, args, dims, *, impl):
    (x,), (d,) = args, dims
    return random_wrap(batching_util.bdim_at_front(x, d, axis_data.size), impl=impl), 0


random_wrap_p.def_batch(_random_wrap_batch)


def random_wrap(base_arr, *, impl: PRNGImpl):
    """Key array viewing the uint32 key data ``base_arr``."""
    check_prng_key_data(impl, base_arr)
    return random_wrap_p.bind(base_arr, impl=impl)


random_unwrap_p = _key_primitive("random_unwrap")
random_unwrap_p.declare(key_reuse=_key_reuse.NO_KEYS)  # (reading the bits consumes nothing, as in JAX)


@random_unwrap_p.def_abstract_eval
def _random_unwrap_abstract_eval(keys_aval):
    impl = keys_aval.dtype._impl
    return ShapedArray((*keys_aval.shape, *impl.key_shape), np.dtype("uint32"))


def random_unwrap(keys):
    """The uint32 key data of a key array."""
    is_key_array = dtypes.issubdtype(keys.dtype, dtypes.prng_key)
    if not is_key_array:
        raise TypeError(f"random_unwrap takes key array operand, got {keys.dtype=}")
    return random_unwrap_p.bind(keys)


# ---------------------------------------------------------------------------
# random_clone: the identity (it marks a key as reusable for key-reuse checks)

random_clone_p = _key_primitive("random_clone")
random_clone_p.declare(key_reuse=_key_reuse.KeyReuseSignature(_key_reuse.Source(0)))
random_clone_p.def_abstract_eval(lambda keys_aval: keys_aval)


# ---------------------------------------------------------------------------
# The random_gamma primitive: (key[*k], a[*k, *s]) -> samples like a

random_gamma_p = Primitive("random_gamma")
random_gamma_p.declare(key_reuse=_key_reuse.KeyReuseSignature(_key_reuse.Sink(0)))
random_gamma_p.def_transpose(NOT_LINEAR)


@random_gamma_p.def_abstract_eval
def _random_gamma_abstract_eval(key_aval, a_aval, *, log_space):
    return a_aval


def _gamma_grad(sample, a, *, log_space):
    # d sample / d a at fixed uniform draws, through the CDF (implicit differentiation).
    samples = sample.reshape(-1)
    alphas = a.reshape(-1)
    if log_space:
        # d log(s) = ds / s; exp(log s) may round to 0: use the smallest normal instead.
        samples = lax.exp(samples)
        tiny = np.full(samples.shape, dtypes.finfo(samples.dtype).tiny, samples.dtype)
        samples = lax.select(lax.eq(samples, np.array(0, samples.dtype)), tiny, samples)
        grads = lax_special.random_gamma_grad(alphas, samples) / samples
    else:
        grads = lax_special.random_gamma_grad(alphas, samples)
    return grads.reshape(a.shape)


defjvp2(random_gamma_p, None, lambda tangent, ans, key, a, **kw: tangent * _gamma_grad(ans, a, **kw))


def _random_gamma_batch(axis_data, args, dims, *, log_space):
    # Both operands get the batch axis in front: the key's leading axes map
    # onto a's leading axes, so a batch of keys draws a batch of samples.
    key, a = (batching_util.bdim_at_front(x, d, axis_data.size) for x, d in zip(args, dims, strict=True))
    return random_gamma_p.bind(key, a, log_space=log_space), 0


random_gamma_p.def_batch(_random_gamma_batch)


__all__ = [
    "UINT_DTYPES",
    "KeyTy",
    "PRNGImpl",
    "buffer_impl",
    "check_prng_key_data",
    "is_key_dtype",
    "key_buffer",
    "keys_shaped_array",
    "physical_keys",
    "prngs",
    "random_bits",
    "random_bits_p",
    "random_clone_p",
    "random_fold_in",
    "random_fold_in_p",
    "random_seed",
    "random_seed_p",
    "random_split",
    "random_split_p",
    "random_unwrap",
    "random_unwrap_p",
    "random_wrap",
    "random_wrap_p",
    "register_prng",
]
