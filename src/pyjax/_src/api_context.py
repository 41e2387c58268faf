"""Context managers and wrappers of the jax namespace that change how code is traced.

``ensure_compile_time_eval`` runs the eval trace inside a traced function,
so operations on concrete values compute at once (their results are
constants of the jaxpr), while operations on traced values are staged as
usual. ``named_scope`` and ``named_call`` push a name onto the name stack;
JAX writes the stack into the lowered program's op metadata (and profiler
names), which pyjax's NumPy backend does not have: here the stack is kept
(``current_name_stack``) with JAX's checks, and changes no result.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TypeVar

from pyjax._src import core, dispatch

F = TypeVar("F", bound=Callable)

_name_stack: ContextVar[tuple[str, ...]] = ContextVar("pyjax_name_stack", default=())


def current_name_stack() -> str:
    """The names of the enclosing named_scope/named_call blocks, outermost first, joined by '/'."""
    return "/".join(_name_stack.get())


class _NameScope(contextlib.ContextDecorator):
    """A named scope: a context manager, also usable as a decorator."""

    def __init__(self, name: str):
        self.name = name
        self._tokens: list = []

    def __enter__(self):
        self._tokens.append(_name_stack.set(_name_stack.get() + (self.name,)))
        return self

    def __exit__(self, *exc):
        _name_stack.reset(self._tokens.pop())
        return False


def named_scope(name: str) -> _NameScope:
    """A context manager that adds a user specified name to the JAX name stack.

    When staging out computations for just-in-time compilation to XLA (or
    other backends such as TPU), the names given to operations inside the
    scope carry the scope's name, which shows in profiles and in the
    lowered program's metadata. Scopes nest: ``outer/inner/op``.

    Args:
      name: The prefix to use to name all operations created within the name
        scope.

    Yields:
      Yields ``None``, but enters a context in which `name` will be appended
      to the active name stack.

    Examples:
      >>> with jax.named_scope("dot_product"):
      ...   logits = w.dot(x)
    """
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    return _NameScope(name)


def named_call(fun: F, *, name: str | None = None) -> F:
    """Adds a user specified name to a function when staging out JAX computations.

    When staging out computations for just-in-time compilation to XLA (or
    other backends such as TPU), the operations of ``fun`` carry ``name``
    (``fun.__name__`` by default) in their names, as if it ran inside
    ``named_scope(name)``.

    Args:
      fun: Function to be wrapped. This can be any Callable.
      name: Optional. The prefix to use to name all sub computations created
        within the name scope. Use the fun.__name__ if not specified.

    Returns:
      A version of `fun` that is wrapped in a name_scope.
    """
    if name is None:
        name = getattr(fun, "__name__", type(fun).__name__)

    @functools.wraps(fun)
    def named_fun(*args, **kwargs):
        with _NameScope(name):
            return fun(*args, **kwargs)

    return named_fun  # type: ignore[return-value]


@contextlib.contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """Context manager to ensure evaluation at trace/compile time (or error).

    Some JAX APIs like :func:`jax.jit` and :func:`jax.lax.scan` involve
    staging, i.e., delaying the evaluation of numerical expressions (like
    :mod:`jax.numpy` function applications) so that instead of performing
    those computations eagerly while evaluating the corresponding Python
    expressions, the computation is staged into a jaxpr. Inside this context
    manager, computations on values that are not traced are performed at
    once, even inside a staged function: their results are concrete arrays,
    which can be converted to Python values (``int``, ``bool``), and enter
    the staged computation as constants. Computations on traced values are
    still staged.

    Examples:
      >>> @jax.jit
      ... def f(x):
      ...   with jax.ensure_compile_time_eval():
      ...     y = jnp.sin(3.0)
      ...     z = jnp.sin(y)
      ...     z_positive = z > 0
      ...   if z_positive:  # z_positive is usable in Python control flow
      ...     return jnp.sin(x)
      ...   return jnp.cos(x)
    """
    outer = core.current_trace()
    token = dispatch.compile_time_outer.set(None if outer is core._default_trace[0] else outer)
    try:
        with core.set_current_trace(None):
            yield
    finally:
        dispatch.compile_time_outer.reset(token)
