"""Source information as libraries read it (JAX's source_info_util): the
user frame an equation was made in, and the name stack of the enclosing
named scopes.

pyjax keeps the name stack as a tuple of names (api_context, read by
`jax.named_scope`) and the source of an equation as (code, line, last
instruction) (staging); the classes here present them in JAX's shape.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator

from pyjax._src import api_context
from pyjax._src.interpreters import staging


@dataclasses.dataclass(frozen=True)
class NameStack:
    """The names of the enclosing named scopes (and transformations), outermost first."""

    stack: tuple = ()

    def extend(self, name) -> NameStack:
        names = tuple(name) if isinstance(name, (tuple, list)) else (name,)
        return NameStack(self.stack + names)

    def wrap_name(self, name: str) -> str:
        return "/".join((*map(str, self.stack), name)) if self.stack else name

    def transform(self, transform_name: str) -> NameStack:
        return NameStack(self.stack + (f"{transform_name}()",))

    def __len__(self):
        return len(self.stack)

    def __str__(self):
        return "/".join(map(str, self.stack))


@dataclasses.dataclass(frozen=True)
class SourceInfo:
    """Where an equation was made: the user's frame (pyjax's (code, line,
    last instruction), or None) and the name stack."""

    traceback: object
    name_stack: NameStack

    def replace(self, *, traceback=None, name_stack=None) -> SourceInfo:
        return SourceInfo(self.traceback if traceback is None else traceback,
                          self.name_stack if name_stack is None else name_stack)


def new_name_stack(name: str = "") -> NameStack:
    """A name stack holding `name` (empty for "")."""
    return NameStack((name,) if name else ())


def new_source_info() -> SourceInfo:
    """A source info with no frame and an empty name stack."""
    return SourceInfo(None, NameStack())


def current_name_stack() -> NameStack:
    """The name stack of the enclosing named scopes."""
    return NameStack(api_context._name_stack.get())


def current() -> SourceInfo:
    """The source info an equation made now gets: the innermost user frame
    (outside pyjax and the registered exclusions) and the name stack."""
    return SourceInfo(staging.user_source_info(), current_name_stack())


def register_exclusion(path: str) -> None:
    """Excludes the files under `path` from the user frames (a library's own)."""
    staging.register_exclusion(path)


def summarize(source_info: SourceInfo, num_frames=1) -> str:
    """`file:line (function)` of the source info's frame."""
    frame = source_info.traceback
    if not frame:
        return "unknown"
    return staging.format_source_info(frame)


class _NameStackContext(contextlib.AbstractContextManager):
    """Sets the name stack while a block runs (re-entrant)."""

    def __init__(self):
        self._tokens: list = []

    def _names(self) -> tuple:
        raise NotImplementedError

    def __enter__(self):
        names = self._names()
        self._tokens.append(api_context._name_stack.set(names))
        return NameStack(names)

    def __exit__(self, *exc):
        api_context._name_stack.reset(self._tokens.pop())
        return False


class extend_name_stack(_NameStackContext):
    """Pushes `name` onto the name stack while the block runs."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name

    def _names(self) -> tuple:
        return current_name_stack().extend(self.name).stack


class set_name_stack(_NameStackContext):
    """Makes `name_stack` the name stack while the block runs."""

    def __init__(self, name_stack: NameStack):
        super().__init__()
        self.name_stack = name_stack

    def _names(self) -> tuple:
        return tuple(self.name_stack.stack)


class transform_name_stack(_NameStackContext):
    """Marks a transformation on the name stack while the block runs."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name

    def _names(self) -> tuple:
        return current_name_stack().transform(self.name).stack


@contextlib.contextmanager
def reset_name_stack() -> Iterator[None]:
    """An empty name stack while the block runs."""
    token = api_context._name_stack.set(())
    try:
        yield
    finally:
        api_context._name_stack.reset(token)


class user_context(_NameStackContext):
    """Runs the block as if at `traceback` with `name_stack` (pyjax takes
    equations' frames from the Python stack; only the name stack is set)."""

    def __init__(self, traceback, *, name_stack: NameStack | None = None):
        super().__init__()
        self.traceback, self.name_stack = traceback, name_stack

    def _names(self) -> tuple:
        return api_context._name_stack.get() if self.name_stack is None else tuple(self.name_stack.stack)


__all__ = ["NameStack", "SourceInfo", "current", "current_name_stack", "extend_name_stack", "new_name_stack",
           "new_source_info", "register_exclusion", "reset_name_stack", "set_name_stack", "summarize",
           "transform_name_stack", "user_context"]
