"""The machinery of configuration options (config.py defines the options).

* ``State`` — one option. Its process-wide value is set with
  ``config.update(name, value)`` (or a ``JAX_*`` environment variable at import);
  calling the State (``enable_x64(True)``) gives a context manager that
  overrides the value for the current thread / context only. ``State.value``
  is read on hot paths, so it is one ContextVar lookup and a comparison.
* the ``*_state`` builders (``bool_state``, ``enum_state``, ...) that parse the
  environment and register an option with the singleton ``config``.
* ``Config`` / ``config`` — the ``jax.config`` object: ``update``, ``read``,
  ``values`` and one read-only attribute per option.
"""

from __future__ import annotations

import contextvars
import enum
import functools
import os
from collections.abc import Callable, Sequence
from typing import Any, Generic, NoReturn, TypeVar

_T = TypeVar("_T")
_F = TypeVar("_F", bound=Callable[..., Any])


class _Unset:
    """Marker for "no context-local override"."""

    def __repr__(self) -> str:
        return "<unset>"


_UNSET: Any = _Unset()
_NO_DEFAULT: Any = object()

_TRUE_STRINGS = frozenset({"y", "yes", "t", "true", "on", "1"})
_FALSE_STRINGS = frozenset({"n", "no", "f", "false", "off", "0"})


def bool_env(varname: str, default: bool) -> bool:
    """Reads environment variable ``varname`` as a boolean.

    Accepts (case-insensitively) ``y, yes, t, true, on, 1`` and
    ``n, no, f, false, off, 0``; anything else raises ``ValueError``.
    """
    text = os.getenv(varname, str(default)).lower()
    if text in _TRUE_STRINGS:
        return True
    if text in _FALSE_STRINGS:
        return False
    raise ValueError(f"invalid truth value {text!r} for environment {varname!r}")


def int_env(varname: str, default: int) -> int:
    """Reads environment variable ``varname`` as an integer."""
    return int(os.getenv(varname, str(default)))


class _TraceContextCache:
    """Holds the cached ``trace_context()`` tuple and what it was computed from.

    The tuple is valid for one global-update generation in one context: a global
    ``config.update`` bumps ``generation``; entering or leaving an override of a
    tracing option clears the context-local cached tuple.
    """

    __slots__ = ("cached", "cached_id", "generation", "states")

    def __init__(self) -> None:
        self.generation = 0
        self.states: list[State] = []
        self.cached: contextvars.ContextVar[tuple[int, tuple] | None] = (
            contextvars.ContextVar("pyjax_trace_context", default=None)
        )
        self.cached_id: contextvars.ContextVar[tuple[int, int] | None] = (
            contextvars.ContextVar("pyjax_trace_context_id", default=None)
        )

    def invalidate_global(self) -> None:
        self.generation += 1

    def invalidate_local(self) -> None:
        self.cached.set(None)
        self.cached_id.set(None)


_trace_context_cache = _TraceContextCache()


class State(Generic[_T]):
    """A configuration option with a global value and context-local overrides.

    ``state.value`` is the value in effect here; ``state(new_value)`` is a context
    manager (and decorator) that overrides it within its dynamic extent, for the
    current thread only.
    """

    __slots__ = (
        "__dict__",
        "_default_context_value",
        "_global",
        "_hooks",
        "_include_in_trace_context",
        "_local",
        "_name",
        "_parser",
    )

    def __init__(
        self,
        name: str,
        default: _T,
        help: str,
        *,
        parser: Callable[[Any], _T] | None = None,
        default_context_value: Any = _NO_DEFAULT,
        include_in_trace_context: bool = False,
    ) -> None:
        self._name = name
        self._parser = parser
        self._global = parser(default) if parser is not None else default
        self._local: contextvars.ContextVar[Any] = contextvars.ContextVar(name)
        self._default_context_value = default_context_value
        self._include_in_trace_context = include_in_trace_context
        self._hooks: list[Callable[[], None]] = []
        self.__name__ = name.removeprefix("jax_")
        self.__doc__ = f"Context manager for `{name}` config option.\n\n{help}"
        if include_in_trace_context:
            _trace_context_cache.states.append(self)

    @property
    def name(self) -> str:
        return self._name

    @property
    def value(self) -> _T:
        local = self._local.get(_UNSET)
        return self._global if local is _UNSET else local

    def get_global(self) -> _T:
        return self._global

    def add_change_hook(self, hook: Callable[[], None]) -> None:
        """Calls ``hook()`` after every change of this option (``config.update``,
        or entering or leaving an override), where the new value is in effect.
        For options whose value selects code once instead of being read per
        call (``jax_enable_checks`` installs a checking eval trace)."""
        self._hooks.append(hook)

    def __bool__(self) -> NoReturn:
        raise TypeError(
            f"bool() not supported for instances of type '{type(self).__name__}' "
            f"(did you mean to use '{type(self).__name__}.value' instead?)"
        )

    def __repr__(self) -> str:
        return f"State({self._name}={self.value!r})"

    def _set(self, value: Any) -> None:
        """Sets the process-wide value (what ``config.update`` does)."""
        self._global = self._parser(value) if self._parser is not None else value
        if self._include_in_trace_context:
            _trace_context_cache.invalidate_global()
        for hook in self._hooks:
            hook()

    def _swap_local(self, value: Any) -> Any:
        previous = self._local.get(_UNSET)
        self._local.set(value)
        if self._include_in_trace_context:
            _trace_context_cache.invalidate_local()
        for hook in self._hooks:
            hook()
        return previous

    def __call__(self, new_val: Any = _NO_DEFAULT) -> StateContextManager:
        return StateContextManager(self, new_val)


class StateContextManager:
    """Overrides one ``State`` within a ``with`` block or a decorated function."""

    __slots__ = ("_previous", "new_val", "state")

    def __init__(self, state: State, new_val: Any) -> None:
        if new_val is _NO_DEFAULT:
            if state._default_context_value is _NO_DEFAULT:
                raise TypeError(
                    f"Context manager for {state.__name__} config option "
                    "requires an argument representing the new value for "
                    "the config option."
                )
            new_val = state._default_context_value
        self.state = state
        self.new_val = state._parser(new_val) if state._parser is not None else new_val
        self._previous: list[Any] = []

    def __enter__(self) -> None:
        self._previous.append(self.state._swap_local(self.new_val))

    def __exit__(self, *exc_info: object) -> None:
        self.state._swap_local(self._previous.pop())

    def __call__(self, func: _F) -> _F:
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with StateContextManager(self.state, self.new_val):
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class Config:
    """The ``jax.config`` object: one read-only attribute per option.

    >>> config.update("jax_enable_x64", True)   # doctest: +SKIP
    >>> config.jax_enable_x64                    # doctest: +SKIP
    True
    """

    def __init__(self) -> None:
        self._value_holders: dict[str, State] = {}
        self._contextmanager_flags: set[str] = set()

    def update(self, name: str, val: Any) -> None:
        """Sets option ``name`` to ``val`` for the whole process."""
        if name not in self._value_holders:
            raise AttributeError(f"Unrecognized config option: {name}")
        self._value_holders[name]._set(val)

    def read(self, name: str) -> Any:
        """Reads an option that has no context manager (e.g. ``jax_enable_x64``)."""
        if name in self._contextmanager_flags:
            raise AttributeError(
                "For flags with a corresponding contextmanager, read their value "
                f"via e.g. `config.{name}` rather than `config.FLAGS.{name}`."
            )
        return self._read(name)

    def _read(self, name: str) -> Any:
        try:
            return self._value_holders[name].value
        except KeyError:
            raise AttributeError(f"Unrecognized config option: {name}") from None

    @property
    def values(self) -> dict[str, Any]:
        """A dict of every option's current value."""
        return {name: holder.value for name, holder in self._value_holders.items()}

    def add_option(self, name: str, holder: State) -> None:
        if name in self._value_holders:
            raise ValueError(f"Config option {name} already defined")
        self._value_holders[name] = holder
        self._contextmanager_flags.add(name)
        setattr(Config, name, property(lambda _: holder.value))


config = Config()
update = config.update


def _register(state: State) -> State:
    config.add_option(state.name, state)
    return state


def _type_name(value: Any) -> str:
    return getattr(type(value), "__name__", str(type(value)))


def bool_state(
    name: str, default: bool, help: str, *, include_in_trace_context: bool = False
) -> State[bool]:
    """Defines a boolean option; ``JAX_<NAME>`` in the environment sets its default.

    ``state()`` with no argument is a context manager that sets it to True.
    """
    if not isinstance(default, bool):
        raise TypeError(
            f"Default value must be of type bool, got {default} "
            f"of type {_type_name(default)}"
        )
    default = bool_env(name.upper(), default)
    return _register(
        State(
            name,
            default,
            help,
            parser=bool,
            default_context_value=True,
            include_in_trace_context=include_in_trace_context,
        )
    )


def enum_state(
    name: str,
    enum_values: Sequence[str],
    default: str,
    help: str,
    *,
    include_in_trace_context: bool = False,
) -> State[str]:
    """Defines an option whose value is one of the strings ``enum_values``."""
    default = os.getenv(name.upper(), default)
    if default not in enum_values:
        raise ValueError(f'Invalid value "{default}" for JAX flag {name}')
    allowed = list(enum_values)

    def parse(new_val: Any) -> str:
        if type(new_val) is not str or new_val not in allowed:
            raise ValueError(
                f"new enum value must be in {allowed}, "
                f"got {new_val} of type {type(new_val)}."
            )
        return new_val

    return _register(
        State(
            name,
            default,
            help,
            parser=parse,
            include_in_trace_context=include_in_trace_context,
        )
    )


def optional_enum_state(
    name: str,
    enum_values: Sequence[str],
    default: str | None,
    help: str,
    *,
    include_in_trace_context: bool = False,
) -> State[str | None]:
    """Like ``enum_state``, but ``None`` is also a valid value."""
    default = os.getenv(name.upper(), default)
    if default is not None and default not in enum_values:
        raise ValueError(f'Invalid value "{default}" for JAX flag {name}')
    allowed = list(enum_values)

    def parse(new_val: Any) -> str | None:
        if new_val is not None and (type(new_val) is not str or new_val not in allowed):
            raise ValueError(
                f"new enum value must be None or in {allowed}, "
                f"got {new_val} of type {type(new_val)}."
            )
        return new_val

    return _register(
        State(
            name,
            default,
            help,
            parser=parse,
            include_in_trace_context=include_in_trace_context,
        )
    )


_E = TypeVar("_E", bound=enum.Enum)


def enum_class_state(
    name: str,
    enum_class: type[_E],
    default: _E,
    help: str,
    *,
    include_in_trace_context: bool = False,
) -> State[_E]:
    """Defines an option whose value is a member of ``enum_class`` (strings convert)."""
    env_text = os.getenv(name.upper())
    if env_text is not None:
        try:
            default = enum_class(env_text)
        except ValueError as err:
            raise ValueError(f'Invalid value "{env_text}" for JAX flag {name}') from err

    def parse(new_val: Any) -> _E:
        if isinstance(new_val, str):
            return enum_class(new_val)
        if not isinstance(new_val, enum_class):
            raise TypeError(
                f"new enum value must be an instance of {enum_class}, got"
                f" {new_val} of type {type(new_val)}."
            )
        return new_val

    return _register(
        State(
            name,
            default,
            help,
            parser=parse,
            include_in_trace_context=include_in_trace_context,
        )
    )


def int_state(
    name: str, default: int, help: str, *, include_in_trace_context: bool = False
) -> State[int]:
    """Defines an integer option (``None`` is accepted by ``update``)."""
    env_text = os.getenv(name.upper())
    if env_text is not None:
        try:
            default = int(env_text)
        except ValueError:
            raise ValueError(
                f'Invalid value "{env_text}" for JAX flag {name}'
            ) from None

    def parse(new_val: Any) -> int | None:
        if new_val is not None and not isinstance(new_val, int):
            raise ValueError(
                "new int config value must be None or of type int, "
                f"got {new_val} of type {type(new_val)}"
            )
        return new_val

    return _register(
        State(
            name,
            default,
            help,
            parser=parse,
            include_in_trace_context=include_in_trace_context,
        )
    )


def float_state(
    name: str, default: float, help: str, *, include_in_trace_context: bool = False
) -> State[float]:
    """Defines a float option; ``JAX_<NAME>`` in the environment sets its default."""
    if not isinstance(default, float):
        raise TypeError(f"Default value must be of type float, got {default} of type {_type_name(default)}")
    env_text = os.getenv(name.upper())
    if env_text is not None:
        try:
            default = float(env_text)
        except ValueError:
            raise ValueError(f'Invalid value "{env_text}" for JAX flag {name}') from None

    def parse(new_val: Any) -> float | None:
        if new_val is not None and not isinstance(new_val, (int, float)):
            raise ValueError(
                "new float config value must be None or of type float, "
                f"got {new_val} of type {type(new_val)}."
            )
        return None if new_val is None else float(new_val)

    return _register(
        State(name, default, help, parser=parse, include_in_trace_context=include_in_trace_context)
    )


def optional_string_state(
    name: str, default: str | None, help: str, *, include_in_trace_context: bool = False
) -> State[str | None]:
    """Defines an option holding a string or ``None``."""
    default = os.getenv(name.upper(), default)

    def parse(new_val: Any) -> str | None:
        if new_val is not None and not isinstance(new_val, str):
            raise ValueError(
                "new string config value must be None or of type str,"
                f" got {new_val} of type {type(new_val)}."
            )
        return new_val

    return _register(
        State(
            name,
            default,
            help,
            parser=parse,
            include_in_trace_context=include_in_trace_context,
        )
    )


def object_state(
    name: str, default: Any, help: str, *, include_in_trace_context: bool = False
) -> State[Any]:
    """Defines an option holding any object (the environment can only give strings)."""
    default = os.getenv(name.upper(), default)
    return _register(
        State(name, default, help, include_in_trace_context=include_in_trace_context)
    )
