"""Which frames are the user's (JAX's traceback_util, as libraries use it).

Libraries call `register_exclusion(os.path.dirname(__file__))` so that their
own frames, like pyjax's, are not taken for the place user code made an
equation (the source lines of jaxprs, the locations in tracer errors).
`api_boundary` marks a library's entry points; pyjax does not rewrite
tracebacks, so it returns the function unchanged.
"""

from __future__ import annotations

import os
import types
from collections.abc import Callable
from typing import TypeVar

from pyjax._src.interpreters import staging

C = TypeVar("C")

_exclude_paths: list[str] = [staging._PACKAGE_DIR]


def register_exclusion(path: str) -> None:
    """Frames of files under `path` are not user frames."""
    _exclude_paths.append(path)
    staging.register_exclusion(path)


def _path_starts_with(path: str, path_prefix: str) -> bool:
    path, path_prefix = os.path.abspath(path), os.path.abspath(path_prefix)
    try:
        return os.path.commonpath([path, path_prefix]) == path_prefix
    except ValueError:  # different drives
        return False


def include_filename(filename: str) -> bool:
    """Whether a frame of `filename` is a user frame."""
    return not any(_path_starts_with(filename, p) for p in _exclude_paths)


def include_frame(f: types.FrameType) -> bool:
    """Whether the frame `f` is a user frame."""
    return include_filename(f.f_code.co_filename)


def api_boundary(fun: C | None = None, *, repro_api_name: str | None = None, repro_user_func: bool = False) -> C:
    """Marks a library entry point (JAX filters tracebacks there; pyjax keeps them whole)."""
    if fun is None:
        return lambda f: f  # type: ignore[return-value]
    return fun


def filter_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback as it is (pyjax shows its frames)."""
    return tb


__all__ = ["api_boundary", "filter_traceback", "include_filename", "include_frame", "register_exclusion"]
