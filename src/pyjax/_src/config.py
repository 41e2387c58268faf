"""Configuration options with JAX's ``jax_*`` names.

What lives here (``State``, the ``*_state`` builders and the ``config``
object itself are in config_states.py, and public from here):

* the option definitions, and ``trace_context()``: a cached,
  hashable tuple of every option that changes what tracing produces (the jit
  cache key includes it).
* the context managers re-exported by ``pyjax`` (``disable_jit``,
  ``checking_leaks``, ...).

Context-local overrides live in ``contextvars``: a new thread starts with
every option at its global value, as in JAX, where overrides are thread-local.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pyjax._src.config_states import (  # noqa: F401 (re-exported: config is their public home)
    Config,
    State,
    StateContextManager,
    _trace_context_cache,
    bool_env,
    bool_state,
    config,
    enum_class_state,
    enum_state,
    float_state,
    int_env,
    int_state,
    object_state,
    optional_enum_state,
    optional_string_state,
    update,
)


# --- enumerations used by option values -------------------------------------


class NumpyDtypePromotion(enum.StrEnum):
    """Values of ``jax_numpy_dtype_promotion``."""

    STANDARD = "standard"
    STRICT = "strict"


class ExplicitX64Mode(enum.IntEnum):
    """Values of ``jax_explicit_x64_dtypes``: what an explicit 64-bit dtype does
    while x64 is off."""

    WARN = enum.auto()
    ERROR = enum.auto()
    ALLOW = enum.auto()

    @classmethod
    def _missing_(cls, value: object) -> ExplicitX64Mode | None:
        if isinstance(value, str):
            return cls.__members__.get(value.upper())
        return None


class LegacyPrngKeyState(enum.StrEnum):
    """Values of ``jax_legacy_prng_key``: what passing a raw uint32 key does."""

    ALLOW = "allow"
    WARN = "warn"
    ERROR = "error"


# --- the options --------------------------------------------------------------
# Options marked include_in_trace_context change what tracing produces, so they
# are part of the jit cache key via trace_context().

enable_x64 = bool_state(
    "jax_enable_x64",
    False,
    "Allow 64-bit dtypes. When off, 64-bit requests are narrowed to 32 bits.",
    include_in_trace_context=True,
)
# JAX lets config.read() see this one option despite its context manager.
config._contextmanager_flags.discard("jax_enable_x64")
Config.x64_enabled = property(lambda _: enable_x64.value)  # type: ignore[attr-defined]

explicit_x64_dtypes = enum_class_state(
    "jax_explicit_x64_dtypes",
    ExplicitX64Mode,
    ExplicitX64Mode.WARN,
    "What an explicitly requested 64-bit dtype does while x64 is off: 'warn' "
    "(narrow it and warn), 'error' (raise) or 'allow' (keep it).",
    include_in_trace_context=True,
)

numpy_dtype_promotion = enum_class_state(
    "jax_numpy_dtype_promotion",
    NumpyDtypePromotion,
    NumpyDtypePromotion.STANDARD,
    "Implicit type promotion rules between arrays: 'standard' uses the JAX "
    "lattice; 'strict' refuses to mix differing strongly-typed dtypes.",
    include_in_trace_context=True,
)

numpy_rank_promotion = enum_state(
    "jax_numpy_rank_promotion",
    ["allow", "warn", "raise"],
    "allow",
    "What implicit NumPy-style rank promotion in broadcasting does: "
    "'allow', 'warn' or 'raise'.",
    include_in_trace_context=True,
)

_MATMUL_PRECISIONS = [
    "default",
    "high",
    "highest",
    "bfloat16",
    "tensorfloat32",
    "float32",
    "ANY_F8_ANY_F8_F32",
    "ANY_F8_ANY_F8_F32_FAST_ACCUM",
    "ANY_F8_ANY_F8_ANY",
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM",
    "F16_F16_F16",
    "F16_F16_F32",
    "BF16_BF16_BF16",
    "BF16_BF16_F32",
    "BF16_BF16_F32_X3",
    "BF16_BF16_F32_X6",
    "BF16_BF16_F32_X9",
    "TF32_TF32_F32",
    "TF32_TF32_F32_X3",
    "F32_F32_F32",
    "F64_F64_F64",
]
default_matmul_precision = optional_enum_state(
    "jax_default_matmul_precision",
    _MATMUL_PRECISIONS,
    None,
    "Default precision (or dot algorithm preset) for matmuls and convolutions "
    "on 32-bit inputs when an operation does not name one.",
    include_in_trace_context=True,
)

disable_jit = bool_state(
    "jax_disable_jit",
    False,
    "Run jit-decorated functions as plain Python instead of tracing them.",
    include_in_trace_context=True,
)

enable_checks = bool_state(
    "jax_enable_checks",
    False,
    "Check internal invariants (e.g. re-typecheck every jaxpr). Slower. In pyjax: "
    "every jaxpr compiled is type-checked, and every primitive's output, eager or "
    "in compiled code (loop and branch bodies included), is checked against its "
    "abstract value; JAX_ENABLE_CHECKS=1 turns it on at import. Eager execution "
    "follows the value most recently set, in any thread.",
    include_in_trace_context=True,
)

debug_nans = bool_state(
    "jax_debug_nans",
    False,
    "Check every operation's output for NaNs and raise where one first appears.",
)

debug_infs = bool_state(
    "jax_debug_infs",
    False,
    "Check every operation's output for infs and raise where one first appears.",
)

log_compiles = bool_state(
    "jax_log_compiles",
    False,
    "Log (at WARNING level) each time jit traces and compiles a computation.",
)

explain_cache_misses = bool_state(
    "jax_explain_cache_misses",
    False,
    "Log (at WARNING level) why each jit cache miss happened.",
)

check_tracer_leaks = bool_state(
    "jax_check_tracer_leaks",
    False,
    "Check for tracers that outlive their trace as soon as the trace ends.",
)
checking_leaks = functools.partial(check_tracer_leaks, True)

debug_key_reuse = bool_state(
    "jax_debug_key_reuse",
    False,
    "Track use of typed PRNG keys and raise when one is used twice.",
    include_in_trace_context=True,
)

pallas_enable_debug_checks = bool_state(
    "jax_pallas_enable_debug_checks",
    False,
    "Check `pl.debug_check` conditions in compiled Pallas kernels (interpret mode, pyjax's only one, never does).",
    include_in_trace_context=True,
)

pallas_poison_buffers = bool_state(
    "jax_pallas_poison_buffers",
    False,
    "Fill the scratch buffers of compiled Pallas kernels with poison values (NaN for floats); interpret mode "
    "leaves them as they are.",
)

jax_platforms = optional_string_state(
    "jax_platforms",
    None,
    "Comma-separated platform names to initialise; the first is the default "
    "(e.g. 'cpu' or 'iree,cpu'). None picks every available platform.",
)

default_device = object_state(
    "jax_default_device",
    None,
    "The device (or platform name) used for un-placed computations; None means "
    "the platform's first device.",
    include_in_trace_context=True,
)

remove_size_one_mesh_axis_from_type = bool_state(
    "jax_remove_size_one_mesh_axis_from_type",
    False,
    "Leave mesh axes of size one out of the shardings in types (read, not yet used by pyjax).",
    include_in_trace_context=True,
)

auto_pcast = bool_state(
    "jax_auto_pcast",
    True,
    "Insert pcasts between varying and invarying values in shard_map bodies (read, not yet used by pyjax).",
    include_in_trace_context=True,
)

num_cpu_devices = int_state(
    "jax_num_cpu_devices",
    -1,
    "How many virtual CPU devices to create; -1 means one. Set it before the "
    "first computation runs.",
)

default_prng_impl = enum_state(
    "jax_default_prng_impl",
    ["threefry2x32", "threefry4x32", "rbg", "unsafe_rbg", "philox2x32", "philox4x32"],
    "threefry2x32",
    "The PRNG implementation used when a key is made without naming one.",
    include_in_trace_context=True,
)

threefry_partitionable = bool_state(
    "jax_threefry_partitionable",
    True,
    "Generate threefry random bits in a layout that partitions without "
    "communication (changes the bits drawn for a given key and shape).",
    include_in_trace_context=True,
)

enable_custom_prng = bool_state(
    "jax_enable_custom_prng", False, "Allow user-defined PRNG implementations."
)

legacy_prng_key = enum_class_state(
    "jax_legacy_prng_key",
    LegacyPrngKeyState,
    LegacyPrngKeyState.ALLOW,
    "What passing a raw uint32 key array to jax.random does: 'allow', 'warn' "
    "or 'error'.",
)

random_seed_offset = int_state(
    "jax_random_seed_offset",
    0,
    "An offset added to every seed passed to jax.random.key / PRNGKey.",
    include_in_trace_context=True,
)

softmax_custom_jvp = bool_state(
    "jax_softmax_custom_jvp",
    False,
    "Give jax.nn.softmax a custom JVP that keeps its derivative finite.",
    include_in_trace_context=True,
)

allow_f16_reductions = bool_state(
    "jax_allow_f16_reductions",
    True,
    "If False, summing float16/bfloat16 inputs raises an error.",
    include_in_trace_context=True,
)

no_tracing = bool_state(
    "jax_no_tracing",
    False,
    "Disallow tracing for JIT compilation: a jit cache miss (or make_jaxpr) raises.",
)

no_execution = bool_state(
    "jax_no_execution",
    False,
    "Disallow running jitted computations: calling a compiled function raises.",
)

thread_guard = bool_state(
    "jax_thread_guard",
    False,
    "For multi-controller runs: raise when computations on one mesh are issued from "
    "several threads. pyjax runs one process, where JAX never raises either.",
)

array_garbage_collection_guard = optional_enum_state(
    "jax_array_garbage_collection_guard",
    ["allow", "log", "fatal"],
    None,
    "What to do when an Array is freed by Python's cycle collector (JAX logs or aborts "
    "so that reference cycles holding device memory are found). pyjax's arrays are host "
    "NumPy buffers freed like any Python object: the value is accepted and checked only.",
)

jax2tf_associative_scan_reductions = bool_state(
    "jax2tf_associative_scan_reductions",
    False,
    "jax2tf's choice of lowering for the cumulative reductions; pyjax has no jax2tf, "
    "so it changes nothing.",
)

_TRANSFER_GUARD_LEVELS = ["allow", "log", "disallow", "log_explicit", "disallow_explicit"]

transfer_guard_host_to_device = optional_enum_state(
    "jax_transfer_guard_host_to_device",
    _TRANSFER_GUARD_LEVELS,
    None,
    "Guard for host-to-device transfers ('allow', 'log', 'disallow', 'log_explicit', "
    "'disallow_explicit'). pyjax computes in host memory: there are no transfers to guard.",
)

transfer_guard_device_to_device = optional_enum_state(
    "jax_transfer_guard_device_to_device",
    _TRANSFER_GUARD_LEVELS,
    None,
    "Guard for device-to-device transfers (see jax_transfer_guard_host_to_device).",
)

transfer_guard_device_to_host = optional_enum_state(
    "jax_transfer_guard_device_to_host",
    _TRANSFER_GUARD_LEVELS,
    None,
    "Guard for device-to-host transfers (see jax_transfer_guard_host_to_device).",
)

_transfer_guard_all = optional_enum_state(
    "jax_transfer_guard",
    _TRANSFER_GUARD_LEVELS,
    None,
    "Sets all three transfer guards (host-to-device, device-to-device, device-to-host).",
)


def _warn_once_when_set(states: Sequence[State], active: Callable[[Any], bool], message: str) -> None:
    # For options pyjax accepts but cannot act on: say so once, when first set.
    warned = [False]

    def hook() -> None:
        if not warned[0] and any(active(state.value) for state in states):
            warned[0] = True
            warnings.warn(message, UserWarning, stacklevel=4)

    for state in states:
        state.add_change_hook(hook)


_warn_once_when_set(
    (transfer_guard_host_to_device, transfer_guard_device_to_device, transfer_guard_device_to_host),
    lambda v: v not in (None, "allow"),
    "jax transfer guards: pyjax computes in host memory, so there are no device transfers to log or "
    "refuse; the guard level is recorded and changes nothing.")


@contextlib.contextmanager
def transfer_guard(new_val: str) -> Iterator[None]:
    """A context manager to control the transfer guard level for all transfers.

    Levels: 'allow', 'log', 'disallow', 'log_explicit', 'disallow_explicit'. JAX
    logs or refuses host/device transfers at these levels; pyjax computes in host
    memory, so there are no transfers to guard and nothing is logged or refused.
    """
    with contextlib.ExitStack() as stack:
        for state in (transfer_guard_host_to_device, transfer_guard_device_to_device,
                      transfer_guard_device_to_host, _transfer_guard_all):
            stack.enter_context(state(new_val))
        yield


class UserContext:
    """One override of a user context (``with ctx(value): ...``)."""

    __slots__ = ("_new_value", "_previous", "_state")

    def __init__(self, state: State, new_value: Any) -> None:
        self._state = state
        self._new_value = new_value
        self._previous: list = []

    def __enter__(self) -> None:
        self._previous.append(self._state._swap_local(self._new_value))

    def __exit__(self, *exc_info: object) -> None:
        self._state._swap_local(self._previous.pop())


class UserConfig:
    """A user context: a value that is part of jit's cache key (see make_user_context)."""

    def __init__(self, default_value: Any) -> None:
        self._state = State("user_context", default_value, "A user context.", include_in_trace_context=True)

    @property
    def value(self) -> Any:
        return self._state.value

    def get_global(self) -> Any:
        return self._state.get_global()

    def set_global(self, new_value: Any) -> None:
        self._state._set(new_value)

    def __call__(self, new_value: Any) -> UserContext:
        return UserContext(self._state, new_value)


def make_user_context(default_value: Any = None) -> UserConfig:
    """Creates a `jax.jit` cache sensitive context.

    If the value of the context changes, jit's tracing and compilation caches
    miss and the jitted function is traced and compiled again.

    Example::

      @jax.jit
      def f(x):
        return x * 2

      my_context = jax.make_user_context(default_value=None)
      with my_context(1):
        f(1.)
      with my_context(2):
        f(1.)  # tracing cache miss

    Adding new user contexts is not thread-safe; using one once made is.
    """
    return UserConfig(default_value)


traceback_filtering = enum_state(
    "jax_traceback_filtering",
    ["off", "tracebackhide", "remove_frames", "quiet_remove_frames", "auto"],
    "auto",
    "How internal frames are hidden from tracebacks: 'off', 'tracebackhide', "
    "'remove_frames', 'quiet_remove_frames' or 'auto'.",
)

dynamic_shapes = bool_state(
    "jax_dynamic_shapes",
    False,
    "Allow array dimensions that are only known at run time (unsupported; kept "
    "so that code which sets it to False keeps working).",
    include_in_trace_context=True,
)

enable_compilation_cache = bool_state(
    "jax_enable_compilation_cache",
    True,
    "Allow the persistent compilation cache (used when a cache directory is set).",
)

compilation_cache_dir = optional_string_state(
    "jax_compilation_cache_dir",
    None,
    "Directory of the persistent compilation cache (docs/compilation_cache.md); None disables it.",
)

persistent_cache_min_compile_time_secs = float_state(
    "jax_persistent_cache_min_compile_time_secs",
    1.0,
    "The minimum compile time of a computation to be written to the persistent compilation cache.",
)

persistent_cache_min_entry_size_bytes = int_state(
    "jax_persistent_cache_min_entry_size_bytes",
    0,
    "The minimum size (in bytes) of an entry written to the persistent compilation cache "
    "(0 or -1: no minimum).",
)

raise_persistent_cache_errors = bool_state(
    "jax_raise_persistent_cache_errors",
    False,
    "Raise errors reading or writing the persistent compilation cache instead of warning.",
)

compilation_cache_max_size = int_state(
    "jax_compilation_cache_max_size",
    -1,
    "The maximum size (in bytes) of the persistent compilation cache: least recently used "
    "entries are deleted past it; 0 disables the cache, -1 means no limit.",
)


# --- trace context --------------------------------------------------------------


def trace_context() -> tuple:
    """Returns the current values of every option that changes tracing.

    The tuple is hashable and cheap: it is cached per context and recomputed
    only after ``config.update`` of such an option or a context-manager override.
    """
    cache = _trace_context_cache
    entry = cache.cached.get()
    if entry is not None and entry[0] == cache.generation:
        return entry[1]
    values = tuple(state.value for state in cache.states)
    cache.cached.set((cache.generation, values))
    return values


_context_ids: dict = {}


def trace_context_id() -> int:
    """A small int naming the current `trace_context()` value: equal ids mean
    equal tracing-relevant config. Hot-path caches key on it (an int hashes
    for free, a tuple of options does not)."""
    cache = _trace_context_cache
    entry = cache.cached_id.get()
    if entry is not None and entry[0] == cache.generation:
        return entry[1]
    values = trace_context()
    ident = _context_ids.setdefault(values, len(_context_ids))
    cache.cached_id.set((cache.generation, ident))
    return ident


def trace_context_names() -> tuple[str, ...]:
    """The option names, in the order ``trace_context()`` lists their values."""
    return tuple(state.name for state in _trace_context_cache.states)


# --- context managers re-exported from the package --------------------------------


@contextlib.contextmanager
def disable_jit_context(disable: bool = True) -> Iterator[None]:
    """Context manager that disables :func:`jit` within its dynamic extent.

    Functions decorated with ``jit`` run as ordinary Python on concrete values, so
    ``print`` shows values rather than tracers.

    >>> with disable_jit_context():   # doctest: +SKIP
    ...   f(x)
    """
    with disable_jit(disable):
        yield
