"""jax.experimental.jet: Taylor-mode higher-order automatic differentiation.

`jet(fun, primals, series)` pushes truncated Taylor series through `fun`
(docs/jet.md). The trace is `pyjax._src.interpreters.jet`, the rules and
the API `pyjax._src.jet`; this module also re-exports the helpers JAX's
module namespace holds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable  # noqa: F401
from functools import partial  # noqa: F401
from typing import Any  # noqa: F401

from pyjax._src.jet import (  # noqa: F401
    JetTrace, JetTracer, ZeroSeries, ZeroTerm, call_param_updaters, def_comp, def_deriv, deflinear, defzero,
    deriv_prop, fact, jet, jet2, jet_fun, jet_rules, jet_subtrace, linear_prop, traceable, zero_prop, zero_series,
    zero_term,
)
from pyjax.tree_util import (  # noqa: F401
    register_pytree_node, tree_flatten, tree_structure, tree_unflatten, treedef_is_leaf,
)


def safe_zip(*args):
    """zip that insists its arguments have equal lengths."""
    return list(zip(*args, strict=True))


def unzip2(xys):
    """Splits an iterable of pairs into a pair of tuples."""
    xs, ys = [], []
    for x, y in xys:
        xs.append(x)
        ys.append(y)
    return tuple(xs), tuple(ys)


def weakref_lru_cache(f=None, *, maxsize: int | None = 2048, trace_context_in_key: bool = True, explain=None):
    """An LRU cache of `f` (JAX keys its first argument weakly; pyjax keys it as is)."""
    if f is None:
        return partial(weakref_lru_cache, maxsize=maxsize, trace_context_in_key=trace_context_in_key)
    return functools.lru_cache(maxsize=maxsize)(f)
