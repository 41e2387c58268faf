"""The types jax.stages names beside the stages themselves.

``Wrapped`` is the protocol of what ``jit`` returns (call it, ``.trace``,
``.lower``); ``ArgInfo`` describes one argument of a traced function (its
aval, whether it is donated); ``CompilerOptions`` is the type of
``Lowered.compile``'s ``compiler_options``. The stages (``Traced``,
``Lowered``, ``Compiled``) live in stages.py.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol, Union, runtime_checkable

from pyjax._src.tree_util import tree_unflatten

CompilerOptions = dict[str, Union[str, bool]]


@dataclasses.dataclass(frozen=True)
class ArgInfo:
    """The abstract value of one argument of a traced function, and whether it is donated."""

    _aval: Any
    donated: bool

    @property
    def shape(self):
        if not hasattr(self._aval, "shape"):
            raise TypeError(f"No shape attribute with aval of type {type(self._aval)}")
        return self._aval.shape

    @property
    def dtype(self):
        if not hasattr(self._aval, "dtype"):
            raise TypeError(f"No dtype attribute with aval of type {type(self._aval)}")
        return self._aval.dtype


@runtime_checkable
class Wrapped(Protocol):
    """A function ready to be traced, lowered, and compiled.

    This protocol reflects the output of functions such as ``jax.jit``.
    Calling it results in JIT (just-in-time) lowering, compilation, and
    execution. It can also be explicitly lowered prior to compilation, and the
    result compiled prior to execution.
    """

    def __call__(self, *args, **kwargs):
        """Executes the wrapped function, lowering and compiling as needed."""
        raise NotImplementedError

    def trace(self, *args, **kwargs) -> Any:
        """Trace this function explicitly for the given arguments: a ``Traced`` stage."""
        raise NotImplementedError

    def lower(self, *args, **kwargs) -> Any:
        """Lower this function explicitly for the given arguments: a ``Lowered`` stage.

        This is a shortcut for ``self.trace(*args, **kwargs).lower()``.
        """
        raise NotImplementedError


def make_args_info(in_tree, in_avals, donated_leaves) -> Any:
    """The tree of ArgInfo (as ``(args, kwargs)``) for a traced function's flat inputs."""
    return tree_unflatten(in_tree, [ArgInfo(a, bool(d)) for a, d in zip(in_avals, donated_leaves, strict=True)])
