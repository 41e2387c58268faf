"""The key functions of pyjax.random: making, splitting and inspecting keys.

Typed keys (``key(0)``, dtype ``key<fry>``) are the recommended form;
legacy raw keys (``PRNGKey(0)``, a ``uint32[2]`` array) are accepted
everywhere a key is, and functions that return keys return the same kind
they were given.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Hashable, Sequence
from typing import Union

import numpy as np

from pyjax._src import avals, config, core, dtypes
from pyjax._src.array import Array
from pyjax._src.numpy.creation import asarray
from pyjax._src.numpy.util import is_arraylike
from pyjax._src.random import prng
from pyjax._src.random import threefry as _threefry  # noqa: F401  (registers threefry2x32)
from pyjax._src.random import rbg as _rbg  # noqa: F401  (registers rbg and unsafe_rbg)
from pyjax._src.random import placement as _placement  # noqa: F401  (the key primitives' sharding rules)

PRNGImpl = prng.PRNGImpl


# JAX 0.11's other PRNGs, with hashes pyjax has not written yet; none is
# reproduced bit for bit, so none is offered (docs/random.md).
_JAX_ONLY_PRNGS = ("philox2x32", "philox4x32", "threefry4x32")


def _unimplemented_prng(name: str) -> NotImplementedError:
    return NotImplementedError(
        f"the {name} PRNG is not implemented in pyjax; only "
        f"{', '.join(prng.prngs)} is (bit-identical to JAX)")


def default_prng_impl() -> PRNGImpl:
    """The PRNG implementation named by ``jax_default_prng_impl``."""
    name = config.default_prng_impl.value
    if name not in prng.prngs:
        raise _unimplemented_prng(name)
    return prng.prngs[name]


class PRNGSpec:
    """Names a PRNG implementation; what :func:`key_impl` returns for an unregistered one."""

    __slots__ = ("_impl",)

    def __init__(self, impl: PRNGImpl):
        self._impl = impl

    def __repr__(self) -> str:
        return f"PRNGSpec({self._impl.name!r})"

    def __str__(self) -> str:
        return str(self._impl)

    def __hash__(self) -> int:
        return hash(self._impl)

    def __eq__(self, other) -> bool:
        return isinstance(other, PRNGSpec) and self._impl == other._impl


PRNGSpecDesc = Union[str, PRNGSpec, PRNGImpl, Hashable]
KeyDTypeLike = Union[str, prng.KeyTy]


def resolve_prng_impl(impl_spec) -> PRNGImpl:
    """The PRNGImpl named by a string, a PRNGSpec, a key dtype, or None (the default)."""
    if impl_spec is None:
        return default_prng_impl()
    if type(impl_spec) is PRNGImpl:
        return impl_spec
    if type(impl_spec) is PRNGSpec:
        return impl_spec._impl
    if isinstance(impl_spec, prng.KeyTy):
        return impl_spec._impl
    if type(impl_spec) is str:
        if impl_spec in prng.prngs:
            return prng.prngs[impl_spec]
        if impl_spec in _JAX_ONLY_PRNGS:
            raise _unimplemented_prng(impl_spec)
        # JAX's message names its registry in order, the unimplemented ones included.
        names = [*_JAX_ONLY_PRNGS[:2], *prng.prngs, *_JAX_ONLY_PRNGS[2:]]
        keys_fmt = ", ".join(f'"{s}"' for s in names)
        raise ValueError(f'unrecognized PRNG implementation "{impl_spec}". '
                         f"Did you mean one of: {keys_fmt}?")
    raise TypeError(f"unrecognized type {type(impl_spec)} for specifying PRNG implementation.")


def key_dtype(impl_spec=None) -> prng.KeyTy:
    """The key dtype of a PRNG implementation (the default one if None)."""
    return prng.KeyTy(resolve_prng_impl(impl_spec))


def check_prng_key(name: str, key, *, allow_batched: bool = False):
    """(typed key, whether it was a raw key that got wrapped), or JAX's error."""
    if isinstance(key, Array) and dtypes.issubdtype(key.dtype, dtypes.prng_key):
        wrapped_key, wrapped = key, False
    elif is_arraylike(key) or np.isscalar(key):  # (JAX's test: a str gets to the key-data checks)
        wrapped_key = prng.random_wrap(key, impl=default_prng_impl())
        wrapped = True
        message = ("Legacy uint32 key array passed as key to jax.random function. Please create "
                   "keys using jax.random.key(). If use of a raw key array was intended, set "
                   'jax_legacy_prng_key="allow".')
        if config.legacy_prng_key.value == config.LegacyPrngKeyState.ERROR:
            raise ValueError(message)
        if config.legacy_prng_key.value == config.LegacyPrngKeyState.WARN:
            warnings.warn(message, stacklevel=3)
        elif config.enable_custom_prng.value:
            warnings.warn("Raw arrays as random keys to jax.random functions are deprecated. "
                          "Assuming valid threefry2x32 key for now.", FutureWarning)
    else:
        raise TypeError(f"unexpected PRNG key type {type(key)}")
    if not allow_batched and wrapped_key.ndim:
        raise ValueError(f"{name} accepts a single key, but was given a key array of"
                         f" shape {np.shape(key)} != (). Use jax.vmap for batching.")
    return wrapped_key, wrapped


def return_prng_keys(was_wrapped: bool, key):
    """Raw keys in, raw keys out (unless jax_enable_custom_prng)."""
    if config.enable_custom_prng.value:
        return key
    return prng.random_unwrap(key) if was_wrapped else key


def random_bits(key, bit_width: int, shape):
    return prng.random_bits(key, bit_width=bit_width, shape=shape)


def canonicalize_shape(shape, context: str = "") -> tuple:
    """A user's shape as a tuple of ints (avals.canonicalize_shape: JAX's
    error for a non-static shape; negative dimensions are refused)."""
    return avals.canonicalize_shape(shape, "random shape", context=context)


# ---------------------------------------------------------------------------
# Making keys


def _key(ctor_name: str, seed, impl_spec):
    impl = resolve_prng_impl(impl_spec)
    if hasattr(seed, "dtype") and dtypes.issubdtype(seed.dtype, dtypes.prng_key):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given an array of "
                        f"shape {np.shape(seed)} != (). Use jax.vmap for batching")
    if not isinstance(seed, (core.Tracer, int)):
        try:
            aval = core.get_aval(seed)
        except TypeError:
            aval = None  # not an array: asarray raises JAX's error
        if aval is not None and not dtypes.issubdtype(aval.dtype, np.integer):
            # JAX checks the seed inside its jitted seeding function, so it names a tracer.
            raise TypeError(f"PRNG key seed must be an integer; got JitTracer({aval})")
    return prng.random_seed(seed, impl=impl)


def key(seed, *, impl=None, dtype=None):
    """Make a typed PRNG key from an integer seed.

    The key is a scalar array whose dtype names its implementation
    (``key<fry>`` for the default, threefry2x32).

    Args:
      seed: the seed, an integer of up to 64 bits.
      impl: the implementation's name; ``dtype`` is preferred.
      dtype: a key dtype or implementation name (default: ``jax_default_prng_impl``).

    Returns:
      A scalar key array, for the samplers, :func:`split` and :func:`fold_in`.

    Example:
      >>> key(0)
      Array((), dtype=key<fry>) overlaying:
      [0 0]
    """
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.key")
        impl = dtype
    return _key("key", seed, impl)


def PRNGKey(seed, *, impl=None):
    """Make a raw (legacy) PRNG key from an integer seed.

    The key is a plain ``uint32`` array, shape ``(2,)`` for threefry2x32, holding
    the seed's high and low 32-bit words. Nothing in it records the
    implementation, so every consumer must assume the default one; prefer
    :func:`key`.

    Args:
      seed: the seed, an integer of up to 64 bits.
      impl: the implementation's name (default: ``jax_default_prng_impl``).

    Returns:
      A ``uint32`` key-data array.

    Example:
      >>> PRNGKey(1)
      Array([0, 1], dtype=uint32)
    """
    return return_prng_keys(True, _key("PRNGKey", seed, impl))


def fold_in(key, data):
    """Derive a new key by mixing a 32-bit integer into ``key``.

    Distinct ``data`` give statistically independent keys, so folding in a step
    or device index is a cheap way to make per-step keys.

    Args:
      key: the key to derive from.
      data: a scalar integer, taken as ``uint32``.

    Returns:
      A key of the same kind (typed or raw) as ``key``.

    Example:
      >>> fold_in(key(0), 7).dtype
      key<fry>
    """
    key, wrapped = check_prng_key("fold_in", key)
    if np.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array of"
                        f"shape {np.shape(data)} != (). Use jax.vmap for batching.")
    key_out = prng.random_fold_in(key, asarray(data, dtype="uint32"))
    return return_prng_keys(wrapped, key_out)


def split_typed(key, num=2):
    """`split` for a typed scalar key (what the samplers call)."""
    if key.ndim:
        raise TypeError("split accepts a single key, but was given a key array of "
                        f"shape {key.shape} != (). Use jax.vmap for batching.")
    # operator.index first: JAX's message for split(key, 2.0) is Python's.
    shape = tuple(map(operator.index, num)) if isinstance(num, Sequence) else (operator.index(num),)
    return prng.random_split(key, shape=canonicalize_shape(shape))


def split(key, num=2):
    """Derive ``num`` independent keys from ``key``.

    Args:
      key: the key to split; it should not be used again afterwards.
      num: how many keys to make, or a tuple giving the shape of the result
        (default 2).

    Returns:
      An array of keys of shape ``(num,)`` (or ``num``), of the same kind as ``key``.

    Example:
      >>> split(key(0), 3).shape
      (3,)
    """
    typed_key, wrapped = check_prng_key("split", key)
    return return_prng_keys(wrapped, split_typed(typed_key, num))


def key_impl(keys):
    """The name of the PRNG implementation of ``keys`` (e.g. ``'threefry2x32'``)."""
    typed_keys, _ = check_prng_key("key_impl", keys, allow_batched=True)
    impl = typed_keys.dtype._impl
    return impl.name if impl.name in prng.prngs else PRNGSpec(impl)


def key_data(keys):
    """Return the ``uint32`` words underlying an array of keys.

    Args:
      keys: a typed key array (or a raw one, returned unchanged).

    Returns:
      A ``uint32`` array of shape ``keys.shape`` plus the implementation's key shape.

    Example:
      >>> key_data(key(3))
      Array([0, 3], dtype=uint32)
    """
    keys, _ = check_prng_key("key_data", keys, allow_batched=True)
    return prng.random_unwrap(keys)


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """Make a typed key array from ``uint32`` key words.

    This is the inverse of :func:`key_data`.

    Args:
      key_bits_array: a ``uint32`` array whose trailing axes are the
        implementation's key shape.
      impl: the implementation's name; ``dtype`` is preferred.
      dtype: a key dtype or implementation name (default: the default one).

    Returns:
      A key array over the leading axes of ``key_bits_array``.

    Example:
      >>> k = key(42)
      >>> wrap_key_data(key_data(k), dtype=k.dtype).dtype
      key<fry>
    """
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to"
                             " jax.random.wrap_key_data")
        impl = dtype
    return prng.random_wrap(key_bits_array, impl=resolve_prng_impl(impl))


def clone(key):
    """Return ``key`` itself; a marker for deliberate reuse when key-reuse checking is on."""
    return prng.random_clone_p.bind(key)


def bits(key, shape=(), dtype=None, *, out_sharding=None):
    """Draw raw random bits as unsigned integers.

    Args:
      key: the PRNG key to consume.
      shape: result shape (default ``()``).
      dtype: unsigned integer result dtype (default: ``uint32``, or ``uint64`` when
        x64 is enabled).

    Returns:
      An unsigned integer array of the requested shape and dtype.

    Example:
      >>> bits(key(0), (2,)).dtype
      dtype('uint32')
    """
    key, _ = check_prng_key("bits", key)
    if dtype is None:
        dtype = dtypes.default_uint_dtype()
    else:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype)
    if not dtypes.issubdtype(dtype, np.unsignedinteger):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    shape = canonicalize_shape(shape)
    return random_bits(key, dtype.itemsize * 8, shape)


def check_shape(name: str, shape, *param_shapes) -> None:
    """JAX's check that parameter shapes broadcast to exactly ``shape``."""
    if param_shapes:
        from pyjax._src.numpy.shape_ops import broadcast_shapes

        broadcast = tuple(broadcast_shapes(shape, *param_shapes))
        if tuple(shape) != broadcast:
            raise ValueError(
                f"{name} parameter shapes must be broadcast-compatible with shape argument, and "
                "the result of broadcasting the shapes must equal the shape argument, but got "
                f"result {broadcast} for shape argument {shape}.")


__all__ = [
    "PRNGKey", "PRNGSpec", "bits", "check_prng_key", "clone", "default_prng_impl", "fold_in", "key",
    "key_data", "key_dtype", "key_impl", "resolve_prng_impl", "split", "wrap_key_data",
]
