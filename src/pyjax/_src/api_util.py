"""What libraries import from `jax.api_util` (undocumented in JAX, but read
by numpyro and others): flattening wrapped functions, debug info, argnums
handling."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pyjax._src import core
from pyjax._src import linear_util as lu
from pyjax._src.interpreters.staging import DebugInfo, func_src_info
from pyjax._src.tree_util import SENTINEL, tree_flatten, tree_unflatten  # noqa: F401


def debug_info(traced_for: str, fun: Callable, args: Sequence[Any], kwargs: Mapping[str, Any], *,
               static_argnums: Sequence[int] = (), static_argnames: Sequence[str] = (), result_paths_thunk=None,
               sourceinfo: str | None = None, signature=None) -> DebugInfo:
    """Where a traced function comes from: what it is traced for, its name
    and source line, and the names of its flat arguments."""
    from pyjax._src.jit import _arg_names

    try:
        names = _arg_names(fun, tuple(args), dict(kwargs), tuple(static_argnums))
    except Exception:  # noqa: BLE001  (names are for messages only)
        names = None
    return DebugInfo(traced_for, sourceinfo or func_src_info(fun), names)


def _flatten_fun(f, store, in_tree, *args_flat):
    py_args, py_kwargs = tree_unflatten(in_tree, list(args_flat))
    ans = f(*py_args, **py_kwargs)
    leaves, out_tree = tree_flatten(ans)
    store.store(out_tree)
    return leaves


def flatten_fun(fun: lu.WrappedFun, in_tree, *, use_eq_store: bool = False, unk_names: bool = False):
    """`fun` taking the flat leaves of `(args, kwargs)` (of `in_tree`) and
    returning flat leaves; the thunk gives the output treedef."""
    return lu.transformation_with_aux2(_flatten_fun, fun, in_tree, use_eq_store=use_eq_store)


def _flatten_fun_nokwargs(f, store, in_tree, *args_flat):
    py_args = tree_unflatten(in_tree, list(args_flat))
    ans = f(*py_args)
    leaves, out_tree = tree_flatten(ans)
    store.store(out_tree)
    return leaves


def flatten_fun_nokwargs(fun: lu.WrappedFun, in_tree):
    """Like flatten_fun, for a tree of positional arguments only."""
    return lu.transformation_with_aux2(_flatten_fun_nokwargs, fun, in_tree)


def _argnums_partial(f, dyn_argnums, args_template, *dyn_args):
    args = list(args_template)
    for i, arg in zip(dyn_argnums, dyn_args, strict=True):
        args[i] = arg
    return f(*args)


def argnums_partial(f: lu.WrappedFun, dyn_argnums, args, require_static_args_hashable=True):
    """`f` as a function of the arguments at `dyn_argnums` only, the others fixed to `args`'."""
    dyn_argnums = (dyn_argnums,) if isinstance(dyn_argnums, int) else tuple(dyn_argnums)
    template = tuple(None if i in dyn_argnums else a for i, a in enumerate(args))
    dyn_args = tuple(args[i] for i in dyn_argnums)
    return lu.transformation2(_argnums_partial, f, dyn_argnums, template), dyn_args


def donation_vector(donate_argnums, donate_argnames, in_tree, kws: bool = True) -> tuple[bool, ...]:
    """Per flat input, whether it is donated."""
    args_tree = in_tree.children()[0] if kws else in_tree
    res: list[bool] = []
    for i, arg in enumerate(args_tree.children()):
        res.extend([i in donate_argnums] * arg.num_leaves)
    if kws:
        kwargs_tree = in_tree.children()[1]
        res.extend([False] * kwargs_tree.num_leaves)
    return tuple(res)


def rebase_donate_argnums(donate_argnums, static_argnums) -> tuple[int, ...]:
    """Donated argument numbers counted among the non-static arguments."""
    static = set(static_argnums)
    return tuple(sorted(i - sum(1 for s in static if s < i) for i in donate_argnums if i not in static))


def flatten_axes(name, treedef, axis_tree, *, kws=False, tupled_args=False):
    """`axis_tree` (a prefix of `treedef`'s tree) broadcast to one axis per leaf."""
    from pyjax._src.api import _flat_axes

    return list(_flat_axes(axis_tree, tree_unflatten(treedef, [0] * treedef.num_leaves), name, treedef.num_leaves))


def shaped_abstractify(x):
    """The abstract value of `x`."""
    return core.get_aval(x)


def safe_map(f, *args):
    """`map` over sequences of equal length (a mismatch is an error)."""
    args = [list(a) for a in args]
    n = len(args[0])
    for a in args[1:]:
        if len(a) != n:
            raise AssertionError(f"length mismatch: {list(map(len, args))}")
    return list(map(f, *args))


__all__ = ["argnums_partial", "debug_info", "donation_vector", "flatten_axes", "flatten_fun", "flatten_fun_nokwargs",
           "rebase_donate_argnums", "safe_map", "shaped_abstractify"]
