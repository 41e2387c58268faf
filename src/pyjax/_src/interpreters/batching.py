"""vmap's interpreter: every value is a pair (array, which axis is the batch).

A BatchTracer holds a value of the parent trace and its batch dimension
(`not_mapped` when the value is the same for every example). Processing a
primitive unpacks the pairs and calls the primitive's batching rule under the
parent trace; the rule says where the batch axis lands on the output. Named
axes (`axis_name`) let collectives (psum, ...) find the axis they reduce.

The axis environment: while a vmap with an `axis_name` traces its function,
its AxisData is also in a context variable, so a trace started inside it (a
jit staging its body) still sees the name and size — JAX's axis env. A
collective staged there keeps the name in its params; the outer vmap
resolves it when it batches the jit equation. jit keys its cache on the
environment (`axis_env_key`).

Rule signature (rules.py): `batch(axis_data, args, dims, **params) ->
(out, out_dim)` — `dims[i]` is an int or `not_mapped`; for multiple_results
primitives `out` and `out_dim` are lists. The rule builders and the helpers
that move batch axes (which bind lax primitives) live in
lax/batching_util.py, above this layer.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Any, Callable, Sequence

from pyjax._src import config, core
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.jaxpr import eval_jaxpr


class NotMapped:
    """The batch dimension of an unbatched value."""

    __slots__ = ()

    def __repr__(self):
        return "not_mapped"


not_mapped = NotMapped()


class AxisData:
    """The mapped axis: its name (or None), size, and the spmd axis name."""

    __slots__ = ("name", "size", "spmd_name", "explicit_mesh_axis")

    def __init__(self, name, size: int, spmd_name=None, explicit_mesh_axis=None):
        self.name = name
        self.size = size
        self.spmd_name = spmd_name
        # The Explicit mesh axes the inputs' mapped dimension is split over.
        self.explicit_mesh_axis = explicit_mesh_axis


# The named axes of the vmaps being traced, outermost first (unnamed vmaps
# are not in it: no collective can refer to them).
_axis_env: ContextVar[tuple] = ContextVar("pyjax_axis_env", default=())


def axis_env() -> tuple:
    """The AxisData of the named vmaps being traced, outermost first."""
    return _axis_env.get()


@contextlib.contextmanager
def extend_axis_env(axes: Sequence[tuple[Any, int]]):
    """Binds named axes of the given sizes while the block runs (make_jaxpr's
    `axis_env`: collectives over them trace as under a map of that size)."""
    token = _axis_env.set(_axis_env.get() + tuple(AxisData(name, int(size)) for name, size in axes))
    try:
        yield
    finally:
        _axis_env.reset(token)


def axis_env_key() -> tuple:
    """The axis environment as a hashable key: ((name, size), ...)."""
    env = _axis_env.get()
    return tuple((a.name, a.size) for a in env) if env else ()


# (aval of the batched value, batch dim) -> the per-example aval. Avals are
# interned, so the lookup is an identity hash.
_unbatched_avals: dict = {}


def _unbatched_aval(aval, batch_dim):
    key = (aval, batch_dim)
    out = _unbatched_avals.get(key)
    if out is None:
        shape = list(aval.shape)
        del shape[batch_dim]
        if aval.sharding is None:
            out = aval.update(shape=tuple(shape))
        else:  # the mapped dimension leaves the type's spec too
            spec = list(aval.sharding.spec)
            del spec[batch_dim]
            out = aval.update(shape=tuple(shape), sharding=type(aval.sharding)(aval.sharding.mesh, type(aval.sharding.spec)(*spec)))
        _unbatched_avals[key] = out
    return out


def _auto_in_context(axes) -> bool:
    # Inside auto_axes the mapped mesh axes are Auto: nothing to type, nothing to refuse.
    from pyjax._src.sharding.mesh import get_abstract_mesh

    types = get_abstract_mesh()._name_to_type
    return all(getattr(types.get(a), "name", "Explicit") != "Explicit" for a in axes)


def _mapped_aval(aval, d: int, axis_data: AxisData):
    # The batched aval: the batch dimension is split over the Explicit mesh
    # axes the vmap's inputs are (if any).
    shape = (*aval.shape[:d], axis_data.size, *aval.shape[d:])
    ema = axis_data.explicit_mesh_axis
    if aval.sharding is None:
        if ema is not None and not _auto_in_context(ema):
            # (a value on no mesh, e.g. a constant carry, batched over mesh axes: JAX's error)
            entries = [None] * len(aval.shape)
            entries.insert(d, ema[0] if len(ema) == 1 else tuple(ema))
            spec = "P(" + ", ".join(map(repr, entries)) + ("," if len(entries) == 1 else "") + ")"
            raise ValueError(f"Resource axis: {ema[0]} of {spec} is not found in mesh: ().")
        return aval.update(shape=shape)
    spec = list(aval.sharding.spec)
    types = aval.sharding.mesh._name_to_type
    if ema is not None and any(getattr(types.get(a), "name", None) != "Explicit" for a in ema):
        ema = None  # (a value on a mesh where those axes are Auto, inside auto_axes: not in its type)
    spec.insert(d, None if ema is None else (ema[0] if len(ema) == 1 else ema))
    return aval.update(shape=shape, sharding=type(aval.sharding)(aval.sharding.mesh, type(aval.sharding.spec)(*spec)))


class BatchTracer(core.Tracer):
    __slots__ = ("_aval", "batch_dim", "val")

    def __init__(self, trace: BatchTrace, val, batch_dim):
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim
        self._aval = None

    @property
    def aval(self):
        # The value never changes: its per-example aval is computed once.
        aval = self._aval
        if aval is None:
            aval = core.get_aval(self.val)
            if self.batch_dim is not not_mapped:
                aval = _unbatched_aval(aval, self.batch_dim)
            self._aval = aval
        return aval

    def __repr__(self):
        return f"BatchTracer(val={self.val!r}, batch_dim={self.batch_dim})"


# primitive -> whether its batching rule runs when no operand is batched
# (the collectives; and new_ref: a reference made under vmap is batched). A dict lookup is cheaper
# than getattr with a default on the hot path.
_rule_runs_unbatched: dict = {}


def _runs_unbatched(primitive) -> bool:
    flag = _rule_runs_unbatched.get(primitive)
    if flag is None:
        flag = _rule_runs_unbatched[primitive] = bool(getattr(primitive, "is_collective", False)
                                                      or primitive.ref_primitive)
    return flag


def jaxpr_holds_collectives(jaxpr) -> bool:
    """Whether a collective appears anywhere in a jaxpr (nested bodies too)."""
    for eqn in jaxpr.eqns:
        if _runs_unbatched(eqn.primitive) or params_hold_collectives(eqn.params):
            return True
    return False


def params_hold_collectives(params: dict) -> bool:
    """Whether a jaxpr among an equation's params (a jit body, cond branches,
    a loop body) holds a collective: under a named vmap its batching rule
    must run even when no operand is batched, to resolve the name."""
    for value in params.values():
        for sub in value if type(value) in (tuple, list) else (value,):
            if hasattr(sub, "eqns") and jaxpr_holds_collectives(sub):
                return True
    return False


class BatchTrace(core.Trace):
    """Moves a batch axis through every primitive."""

    def __init__(self, parent: core.Trace, axis_data: AxisData):
        self.parent = parent
        self.axis_data = axis_data
        self.valid = True

    def is_valid(self) -> bool:
        return self.valid

    def to_batch_info(self, x):
        if type(x) is BatchTracer and x._trace is self:
            return x.val, x.batch_dim
        return x, not_mapped

    def process_primitive(self, primitive, args, params):
        # The hot path of every vmap: unpack the operands inline, and set the
        # parent trace with the context variable directly (no context manager).
        vals, dims = [], []
        batched = False
        for x in args:
            if type(x) is BatchTracer and x._trace is self:
                vals.append(x.val)
                dims.append(x.batch_dim)
                batched = True
            else:
                vals.append(x)
                dims.append(not_mapped)
        token = core._trace_ctx.set(self.parent)
        try:
            if not batched and not _runs_unbatched(primitive) and (
                    self.axis_data.name is None or not params_hold_collectives(params)):
                return primitive.bind(*vals, **params)
            rule = primitive.batch
            if rule is None or not callable(rule):
                rule = primitive.rule("batch")  # JAX's missing-rule error
            out, out_dim = rule(self.axis_data, vals, dims, **params)
        finally:
            core._trace_ctx.reset(token)
        if primitive.multiple_results:
            return [o if d is not_mapped else BatchTracer(self, o, d) for o, d in zip(out, out_dim, strict=True)]
        return out if out_dim is not_mapped else BatchTracer(self, out, out_dim)

    def lift_constant(self, value, aval):
        # A constant made under vmap is unbatched: it belongs to the parent.
        lift = getattr(self.parent, "lift_constant", None)
        if lift is not None:
            return lift(value, aval)
        from pyjax._src.array import Array

        return Array(value, aval)

    def wrap(self, val, batch_dim):
        if batch_dim is not_mapped:
            return val
        return BatchTracer(self, val, batch_dim)


def find_axis(name) -> AxisData:
    """The AxisData of the innermost enclosing vmap with this axis name: a
    BatchTrace on the current trace's parent chain, else the axis environment
    (a trace started inside that vmap, e.g. a jit's body)."""
    trace = core.current_trace()
    while trace is not None:
        if type(trace) is BatchTrace and trace.axis_data.name == name:
            return trace.axis_data
        trace = getattr(trace, "parent", None)
    for axis_data in reversed(_axis_env.get()):
        if axis_data.name == name:
            return axis_data
    raise NameError(f"Found an unbound axis name: {name}. To fix this, please call {'{}'} under `jax.shard_map`.")


def batch_flat(fun: Callable, args: Sequence, in_dims: Sequence, axis_data: AxisData,
               push_axis_env: bool = True) -> list:
    """Runs fun under a BatchTrace; returns (value, batch_dim) per flat output
    (values of the enclosing trace; the caller moves the batch axes). A named
    axis joins the axis environment while `fun` runs, unless `push_axis_env`
    is false (a control-flow body: the enclosing vmap has already pushed it)."""
    trace = BatchTrace(core.current_trace(), axis_data)
    named = push_axis_env and axis_data.name is not None
    env_token = _axis_env.set(_axis_env.get() + (axis_data,)) if named else None
    leak_site = _leak_site() if config.check_tracer_leaks.value else None
    try:
        ins = [trace.wrap(a, d) for a, d in zip(args, in_dims, strict=True)]
        with core.set_current_trace(trace):
            outs = fun(*ins)
        results = [trace.to_batch_info(o) for o in outs]
    finally:
        trace.valid = False
        if env_token is not None:
            _axis_env.reset(env_token)
    if leak_site is not None:
        from pyjax._src.interpreters.leaks import check_batch_leaks

        outputs = {id(o) for o in outs}  # (handed back to the caller: not leaks)
        del ins, outs
        check_batch_leaks(trace, BatchTracer, leak_site, outputs)
    return results


def _leak_site() -> str:
    # The user's line calling vmap: where its input tracers are made.
    from pyjax._src.interpreters.staging import format_source_info, user_source_info

    info = user_source_info()
    return format_source_info(info, with_column=True) if info is not None else ""


# ---------------------------------------------------------------------------
# Batching a whole jaxpr

# Moving a batch axis binds lax primitives (transpose, broadcast_in_dim),
# which this module does not know: lax.batching_util installs its matchaxis.
_matchaxis: list[Callable] = []


def register_matchaxis(fn: Callable) -> None:
    """Installs `fn(x, src, dst, size)`, which moves x's batch axis from src
    to dst (broadcasting an unbatched x); done once by lax.batching_util."""
    _matchaxis[:] = [fn]


def batch_jaxpr_axes(jaxpr, axis_data: AxisData, in_dims: Sequence, out_dims=None, *,
                     push_axis_env: bool = True):
    """A closed jaxpr batched with its inputs mapped along `in_dims` (ints
    or not_mapped).

    `out_dims` says where each output's batch axis goes: a sequence (an
    unbatched output asked for an axis is broadcast), a function from the
    dims the outputs come out with to that sequence, or None (each output
    keeps the dim it comes out with). Returns (jaxpr, out_dims).
    """
    in_avals = [a if d is not_mapped else _mapped_aval(a, d, axis_data)
                for a, d in zip(jaxpr.in_avals, in_dims, strict=True)]
    chosen: list = []

    def batched(*args):
        infos = batch_flat(lambda *xs: eval_jaxpr(jaxpr, jaxpr.consts, *xs), args, in_dims, axis_data,
                           push_axis_env)
        natural = [d for _, d in infos]
        if out_dims is None:
            chosen[:] = natural
            return [v for v, _ in infos]
        chosen[:] = out_dims(natural) if callable(out_dims) else out_dims
        move = _matchaxis[0]
        return [move(v, d, od, axis_data.size, axis_data.explicit_mesh_axis)
                for (v, d), od in zip(infos, chosen, strict=True)]

    new_jaxpr, _ = trace_to_jaxpr(batched, in_avals, jaxpr.debug_info)
    return new_jaxpr, list(chosen)


def batch_jaxpr(jaxpr, axis_data: AxisData, batched: Sequence[bool], instantiate: bool | Sequence[bool]):
    """A closed jaxpr with a batch axis first on every batched input and
    output (JAX's batch_jaxpr, as the control-flow rules use it: the
    enclosing vmap has pushed the axis name already). Outputs flagged in
    `instantiate` are batched even when they would not be (broadcast).
    Returns (jaxpr, which outputs are batched)."""
    n_out = len(jaxpr.outvars)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    in_dims = [0 if b else not_mapped for b in batched]

    def out_dims(natural):
        return [0 if (d is not not_mapped or i) else not_mapped for d, i in zip(natural, inst, strict=True)]

    new_jaxpr, dims = batch_jaxpr_axes(jaxpr, axis_data, in_dims, out_dims, push_axis_env=False)
    return new_jaxpr, [d is not not_mapped for d in dims]


__all__ = ["AxisData", "BatchTrace", "BatchTracer", "axis_env", "axis_env_key", "batch_flat", "batch_jaxpr", "batch_jaxpr_axes", "find_axis",
           "not_mapped", "register_matchaxis"]
