"""XLA metadata: `set_xla_metadata`, `xla_metadata_call` (jax.experimental.xla_metadata).

XLA metadata are frontend attributes on HLO ops (fusion hints and the like).
On the CPU they change no result, and pyjax has no HLO to attach them to:

- `set_xla_metadata(**kv)` is a context manager (and decorator) that records
  the metadata in a context variable (`current_xla_metadata()`); like JAX's it
  leaves the jaxpr untouched.
- `set_xla_metadata(x, **kv)` tags values: each array goes through
  `xla_metadata_value_p`, an identity printed as JAX prints it.
- `xla_metadata_call(f, **kv)` stages `f` as one `xla_metadata_call`
  equation holding its jaxpr, with the canonicalised metadata (values as
  strings, sorted) as JAX records it. Its JVP, transpose and batching rules
  transform the body in line (JAX re-binds the call around the transformed
  body: the values are the same, the transformed jaxprs differ).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Mapping, Callable
from typing import Any

from pyjax._src.core import Primitive
from pyjax._src.interpreters import staging
from pyjax._src.interpreters.batching import batch_flat
from pyjax._src.interpreters.jvp import deflinear, jvp_flat
from pyjax._src.interpreters.transpose import backward_pass
from pyjax._src.jaxpr import body_effects, eval_jaxpr
from pyjax._src.lax import batching_util
from pyjax._src.lax._standard import as_array
from pyjax._src.lax.control_flow.common import separate_consts
from pyjax._src import core
from pyjax._src.tree_util import tree_flatten, tree_map, tree_unflatten
from pyjax._src.rules import SHARDING_OF_CALL

__all__ = ["XlaMetadataContextManager", "current_xla_metadata", "fuse_limit", "must_fuse_call", "set_xla_metadata",
           "xla_metadata_call", "xla_metadata_call2", "xla_metadata_call_p", "xla_metadata_value_p"]

_metadata: contextvars.ContextVar[tuple] = contextvars.ContextVar("xla_metadata", default=())


def current_xla_metadata() -> dict:
    """The metadata the enclosing `set_xla_metadata` contexts set."""
    return dict(_metadata.get())


class _XlaMetadataWrapper:
    """`f` run inside the metadata context (attributes forwarded to `f`, and
    called ones run inside it too: a jitted function's `.lower`)."""

    def __init__(self, f: Callable, ctx: XlaMetadataContextManager):
        self._f, self._ctx = f, ctx
        functools.wraps(f)(self)

    def __call__(self, *args, **kwargs):
        with self._ctx:
            return self._f(*args, **kwargs)

    def __getattr__(self, name: str):
        attr = getattr(self._f, name)
        if not callable(attr):
            return attr

        @functools.wraps(attr)
        def wrapper(*args, **kwargs):
            with self._ctx:
                return attr(*args, **kwargs)
        return wrapper


class XlaMetadataContextManager:
    """Sets XLA metadata for the operations traced inside it."""

    __slots__ = ["prev", "updates"]

    def __init__(self, updates: dict):
        self.updates = updates

    def __enter__(self) -> None:
        if self.updates:
            self.prev = _metadata.set(tuple({**dict(_metadata.get()), **self.updates}.items()))

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        if self.updates:
            _metadata.reset(self.prev)

    def __call__(self, f: Callable) -> _XlaMetadataWrapper:
        return _XlaMetadataWrapper(f, self)


xla_metadata_value_p = Primitive("xla_metadata_value")
xla_metadata_value_p.declare(sharding_reason="the identity on its operand's type (abstract evaluation)")
xla_metadata_value_p.def_abstract_eval(lambda x_aval, **_: x_aval)
batching_util.vectorized(xla_metadata_value_p)
deflinear(xla_metadata_value_p, lambda ct, x, **params: [ct])


def set_xla_metadata(x: Any = None, **kwargs: Any) -> Any:
    """Attaches XLA metadata: as a context manager (or decorator) when `x` is
    None, else to the arrays of the pytree `x`, which are returned."""
    if x is None:
        return XlaMetadataContextManager(kwargs)
    kvs = tuple(sorted(kwargs.items()))
    return tree_map(lambda v: xla_metadata_value_p.bind(as_array(v), xla_metadata_kvs=kvs), x)


@contextlib.contextmanager
def fuse_limit():
    """Marks a fusion barrier for XLA.

    Everything traced inside the ``with`` block carries the metadata
    ``FUSE_LIMIT=True``, which tells XLA not to fuse across that point.
    """
    with set_xla_metadata(FUSE_LIMIT=True):
        yield


def must_fuse_call(identifier: str) -> Callable:
    """Decorator to force XLA to fuse all operations within a function call:
    the call is tagged with ``MUST_FUSE=identifier`` XLA metadata."""
    return xla_metadata_call(**{"MUST_FUSE": identifier})


# ---------------------------------------------------------------------------
# xla_metadata_call

xla_metadata_call_p = Primitive("xla_metadata_call", multiple_results=True).declare(
    body_params=("jaxpr",), call_body="jaxpr", effects_of=body_effects("jaxpr"))
xla_metadata_call_p.declare(sharding_reason=SHARDING_OF_CALL)
xla_metadata_call_p.def_abstract_eval(lambda *avals, jaxpr, xla_metadata, ad_metadata: list(jaxpr.out_avals))
# Params JAX prints in this order (its sorted names).
xla_metadata_call_p.pp_param_order = ("ad_metadata", "jaxpr", "xla_metadata")


def _body(jaxpr):
    return lambda *args: eval_jaxpr(jaxpr, jaxpr.consts, *args)


xla_metadata_call_p.def_jvp(lambda primals, tangents, *, jaxpr, **_: jvp_flat(_body(jaxpr), primals, tangents))
xla_metadata_call_p.def_transpose(lambda cts, *args, jaxpr, **_: backward_pass(jaxpr, jaxpr.consts, cts, args))


def _batch(axis_data, args, dims, *, jaxpr, **_):
    infos = batch_flat(_body(jaxpr), args, dims, axis_data, push_axis_env=False)
    return [v for v, _ in infos], [d for _, d in infos]


xla_metadata_call_p.def_batch(_batch)


def _canonicalize_metadata(meta: Mapping) -> tuple:
    canonical = {}
    for k, v in meta.items():
        if isinstance(v, bool):
            canonical[k] = str(v).lower()
        elif isinstance(v, (str, int, float)):
            canonical[k] = str(v)
        else:
            raise TypeError(f"xla_metadata_call metadata values must be str, bool, int, or float, got {type(v)} "
                            f"for key {k!r}")
    return tuple(sorted(canonical.items()))


def _canonicalize_ad_metadata(ad_metadata: Any) -> Any:
    if ad_metadata == "same":
        return "same"
    if ad_metadata == "drop":
        return ()
    if isinstance(ad_metadata, Mapping):
        return _canonicalize_metadata(ad_metadata)
    raise TypeError(f"ad_metadata must be 'same', 'drop', or a dict of metadata, got {ad_metadata!r}")


def _xla_metadata_call(fun: Callable, metadata: Mapping | None, ad_metadata: Any) -> Callable:
    if not (metadata is None or isinstance(metadata, Mapping)):
        raise TypeError(f"metadata must be a dict, got {metadata!r}")
    kvs = _canonicalize_metadata(metadata or {})
    ad_kvs = _canonicalize_ad_metadata(ad_metadata)

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        leaves, in_tree = tree_flatten((args, kwargs))
        leaves = [as_array(x) for x in leaves]
        out_tree = []

        def flat_fun(*flat):
            a, k = tree_unflatten(in_tree, flat)
            outs, tree = tree_flatten(fun(*a, **k))
            out_tree.append(tree)
            return outs

        debug = staging.DebugInfo("xla_metadata_call", staging.func_src_info(fun), None)
        jaxpr, _ = staging.trace_to_jaxpr(flat_fun, [core.get_aval(x) for x in leaves], debug)
        consts = []
        if any(map(lambda c: isinstance(c, core.Tracer), jaxpr.consts)):
            jaxpr, consts = separate_consts(jaxpr)
        outs = xla_metadata_call_p.bind(*consts, *leaves, jaxpr=jaxpr, xla_metadata=kvs, ad_metadata=ad_kvs)
        return tree_unflatten(out_tree[0], outs)
    return wrapped


def xla_metadata_call(f: Callable | None = None, /, **meta: Any) -> Callable:
    """Turns ``f`` into a call op that carries the given XLA metadata.

    Args:
      f: function to transform; omit it to get a decorator instead.
      **meta: the metadata, one keyword per entry. str, bool, int and float
        values are accepted and stored as text (``True`` -> ``"true"``).

    Returns:
      The transformed function, or a decorator when ``f`` is omitted.
    """
    if f is None:
        return lambda g: _xla_metadata_call(g, meta, "same")
    return _xla_metadata_call(f, meta, "same")


def xla_metadata_call2(f: Callable | Mapping | None = None, /, metadata: Mapping | None = None, *,
                       ad_metadata: Any = "same") -> Callable:
    """Variant of :func:`xla_metadata_call` taking a metadata dict and options.

    Args:
      f: function to transform; omit it to get a decorator instead.
      metadata: dict of entries placed on the call op.
      ad_metadata: what autodiff-derived computations carry: ``'same'``
        (default), ``'drop'``, or their own dict.

    Returns:
      The transformed function, or a decorator when ``f`` is omitted.
    """
    if metadata is None and isinstance(f, Mapping):
        f, metadata = None, f
    if f is not None and not callable(f):
        raise TypeError(f"expected a callable to wrap, got {f!r}")
    apply = functools.partial(_xla_metadata_call, metadata=metadata, ad_metadata=ad_metadata)
    return apply if f is None else apply(f)
