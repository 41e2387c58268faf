"""`jax.shard_map`: a function mapped over the shards of its arguments on a mesh.

The body is traced once at per-device shapes into the `shard_map`
primitive's jaxpr (printed as JAX 0.11 prints it). Under `check_vma` each
body value's type carries the manual axes it varies over (the aval's `vma`,
`{V:x}`): the staging trace's `vma_rule` records equations with those types
and inserts `pvary` where operands disagree, as JAX's lax wrappers do.

Eagerly, the body runs once per device on that device's own buffer
(backends/numpy/impls/spmd.py: a lockstep interpreter whose collectives
exchange the devices' buffers); the results are placed Arrays sharded as
`out_specs` says. No step assembles a global array.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
from typing import Any, Callable

from pyjax._src import core
from pyjax._src.avals import ShapedArray
from pyjax._src.interpreters import batching, staging
from pyjax._src.jaxpr import JaxprEqn, Var, body_effects
from pyjax._src.lax import parallel, parallel_comm, parallel_p2p, parallel_ragged, sorting
from pyjax._src.lax.parallel_vma import psum_invariant_p, pvary_p
from pyjax._src.sharding.mesh import AxisType, get_abstract_mesh, get_mesh, use_abstract_mesh
from pyjax._src.sharding.named import NamedSharding, abstract_sharding, aval_sharding, explicit_spec
from pyjax._src.sharding.spmd_data import global_aval
from pyjax._src.sharding.partition_spec import PartitionSpec
from pyjax._src.tree_util import tree_flatten, tree_leaves_with_path, tree_unflatten
from pyjax._src.tree_util_keys import keystr
from pyjax._src.tree_util_errors import prefix_errors
from pyjax._src.rules import SHARDING_OF_CALL

__all__ = ["shard_map", "shard_map_p"]


class ManualAxes(frozenset):
    """The mesh axes a shard_map makes manual; printed in mesh order (JAX's
    text of the set is `frozenset({'x', 'y'})`)."""

    def __new__(cls, names, order=()):
        self = super().__new__(cls, names)
        self._order = tuple(n for n in order if n in self) + tuple(sorted(n for n in self if n not in order))
        return self

    def __repr__(self) -> str:
        return "frozenset({" + ", ".join(map(repr, self._order)) + "})" if self else "frozenset()"

    __str__ = __repr__


# ---------------------------------------------------------------------------
# The primitive


def _spec_names(entry) -> tuple:
    if entry is None or entry is PartitionSpec.UNCONSTRAINED:
        return ()
    return tuple(entry) if isinstance(entry, tuple) else (entry,)


def _shard_map_abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    # A nested shard_map's results keep varying over the enclosing body's
    # manual axes (those its body's types name beyond its own).
    return [_out_aval(a, s, mesh, newly_manual_axes) for a, s in zip(jaxpr.out_avals, out_specs, strict=True)]


def _out_aval(aval, spec, mesh, newly_manual_axes):
    out = global_aval(aval, spec, mesh)
    if aval.sharding is not None:  # (a partial-manual body's Explicit axes join the type)
        out = out.update(sharding=aval_sharding(NamedSharding(mesh, joined_spec(spec, aval)), len(out.shape)))
    return out.update(vma=tuple(n for n in getattr(aval, "vma", ()) if n not in newly_manual_axes))


def joined_spec(spec: PartitionSpec, body_aval, with_body_type: bool = True) -> PartitionSpec:
    """The placement of a result joined from the devices' values of type
    `body_aval` as `spec` says: per dimension the spec's (manual) axes, then
    those the body's type still splits it over (a partial-manual body's
    Explicit axes; not with `with_body_type=False`), padded to the rank
    (JAX's `P('x', None)`)."""
    ndim = len(body_aval.shape)
    if ndim == 0:
        return PartitionSpec()
    inner = tuple(getattr(body_aval.sharding, "spec", None) or ()) if with_body_type else ()
    out = []
    for i in range(ndim):
        names = (_spec_names(spec[i]) if i < len(spec) else ()) + (_spec_names(inner[i]) if i < len(inner) else ())
        out.append(None if not names else names[0] if len(names) == 1 else names)
    return PartitionSpec(*out)


shard_map_p = core.Primitive("shard_map", multiple_results=True)
shard_map_p.declare(sharding_reason=SHARDING_OF_CALL)
shard_map_p.def_abstract_eval(_shard_map_abstract_eval)
shard_map_p.declare(body_params=("jaxpr",), effects_of=body_effects("jaxpr"))
shard_map_p.pp_param_order = ("check_vma", "in_specs", "jaxpr", "mesh", "newly_manual_axes", "out_specs")

# The per-device runtime (backends/numpy/impls/spmd.py registers it):
# run(jaxpr, mesh, manual_axes, per_device_args) -> per_device_outs.
_runtime: list = [None]


def register_runtime(run: Callable) -> None:
    """Installs the backend's per-device runner of shard_map bodies (a jit
    whose program is one shard_map runs through it too: `run_whole`)."""
    _runtime[0] = run


# ---------------------------------------------------------------------------
# Varying manual axes while a body is traced

# (mesh, manual axes) of the bodies being traced, innermost last (context-local, as the axis env)
_meshes: contextvars.ContextVar = contextvars.ContextVar("shard_map_meshes", default=())


def order_axes(names) -> tuple:
    """`names` in the order of the mesh being traced (JAX orders vma so)."""
    names = set(names)
    meshes = _meshes.get()
    order = meshes[-1][0].axis_names if meshes else ()
    return tuple(n for n in order if n in names) + tuple(sorted(n for n in names if n not in order))


def _vma(x) -> tuple:
    return getattr(core.get_aval(x), "vma", ())


def _pvary(x, axes: tuple):
    return pvary_p.bind(x, axes=order_axes(axes)) if axes else x


def _record(trace, primitive, args, params, out_vma):
    """staging's process_primitive with the outputs typed as varying over
    `out_vma` (None: as the abstract evaluation says)."""
    atoms = [trace.to_atom(x) for x in args]
    out = primitive.out_avals(tuple(a.aval for a in atoms), params)
    outs = out if primitive.multiple_results else [out]
    if isinstance(out_vma, list):  # (one per output)
        outs = [a.update(vma=v) for a, v in zip(outs, out_vma, strict=True)]
    elif out_vma is not None:
        outs = [a.update(vma=out_vma) for a in outs]
    source_info = staging.user_source_info() if trace.records_source_info else None
    effects = frozenset() if primitive.effects_of is None else primitive.effects_of(params)
    outvars = [Var(a) for a in outs]
    trace.eqns.append(JaxprEqn(primitive, atoms, outvars, params, effects, source_info))
    tracers = [staging.DynamicJaxprTracer(trace, v.aval, v) for v in outvars]
    return tracers if primitive.multiple_results else tracers[0]


_DATA_COLLECTIVES = ()  # filled below (parallel_comm's primitives)


def _collective_axes(primitive, params) -> tuple:
    names = params.get("axes", params.get("axis_name", ()))
    return tuple(n for n in parallel.axes_tuple(names) if not parallel.is_positional(n))


def _vma_rule(trace, primitive, args, params):
    """Records `primitive` inside a shard_map body with JAX's vma rules."""
    if primitive is parallel.psum_p:  # JAX 0.11 binds psum as psum_invariant under check_vma
        (x,), axes = args, _collective_axes(primitive, params)
        x = _pvary(x, tuple(a for a in axes if a not in _vma(x)))
        return psum_invariant_p.bind(x, axes=params["axes"])
    if primitive is parallel.axis_index_p:
        return _record(trace, primitive, args, params, order_axes(parallel.axes_tuple(params["axis_name"])))
    if primitive is pvary_p:
        return _record(trace, primitive, args, params, order_axes(set(_vma(args[0])) | set(params["axes"])))
    if primitive is psum_invariant_p:
        return _record(trace, primitive, args, params, None)
    if primitive in (parallel.pmax_p, parallel.pmin_p) or primitive in _DATA_COLLECTIVES:
        axes = _collective_axes(primitive, params)
        x = _pvary(args[0], tuple(a for a in axes if a not in _vma(args[0])))
        vma = _vma(x)
        if primitive in (parallel.pmax_p, parallel.pmin_p):
            vma = tuple(a for a in vma if a not in axes)
        return _record(trace, primitive, (x, *args[1:]), params, vma)
    if primitive is parallel_ragged.all_gather_invariant_p:  # varying in, invariant out over its axes
        axes = _collective_axes(primitive, params)
        x = _pvary(args[0], tuple(a for a in axes if a not in _vma(args[0])))
        return _record(trace, primitive, (x,), params, tuple(a for a in _vma(x) if a not in axes))
    if primitive is parallel_p2p.psend_p:  # varying over its axes in, a token out
        axes = _collective_axes(primitive, params)
        x = _pvary(args[0], tuple(a for a in axes if a not in _vma(args[0])))
        return _record(trace, primitive, (x,), params, None)
    if primitive is parallel_p2p.precv_p:  # typed as its out_shape says (invariant), whatever the token
        return _record(trace, primitive, args, params, None)
    if primitive is parallel_ragged.ragged_all_to_all_p:  # the data varies over its axes; offsets as they are
        axes = _collective_axes(primitive, params)
        union = order_axes(set(_vma(args[0])) | set(_vma(args[1])) | set(axes))
        data = [_pvary(x, tuple(a for a in union if a not in _vma(x))) for x in args[:2]]
        return _record(trace, primitive, (*data, *args[2:]), params, union)
    if primitive is sorting.sort_p:  # each output typed as its operand, as JAX's sort: no pvary
        return _record(trace, primitive, args, params, [_vma(x) for x in args])
    if primitive.body_params:  # calls and control flow: their bodies were typed
        return _record(trace, primitive, args, params, None)
    vmas = [_vma(x) for x in args]
    union = order_axes(set().union(*vmas)) if vmas else ()
    if any(v != union for v in vmas):
        args = [_pvary(x, tuple(a for a in union if a not in v)) for x, v in zip(args, vmas)]
    return _record(trace, primitive, args, params, union)


# ---------------------------------------------------------------------------
# Checks, with JAX's messages


def _fun_name(f) -> str:
    return getattr(f, "__name__", type(f).__name__)


def _check_spec_names(specs, manual, prefix: str) -> None:
    """JAX's check, before any argument is looked at: every axis a spec names
    is one the shard_map makes manual."""
    is_spec = lambda x: x is None or isinstance(x, PartitionSpec)  # noqa: E731
    msgs = [f"  {prefix}_specs{keystr(path)} refers to {name!r}"
            for path, spec in tree_leaves_with_path(specs, is_leaf=is_spec) if isinstance(spec, PartitionSpec)
            for entry in spec for name in _spec_names(entry) if name not in manual]
    if msgs:
        raise ValueError(f"shard_map {prefix}_specs argument must refer to an axis marked as manual ({manual}), "
                         "but:\n\n" + "\n\n".join(msgs) + f"\n\nCheck the {prefix}_specs values passed to shard_map.")


def _check_in(f, mesh, manual, spec, aval, where: tuple) -> None:
    head, tail = where
    if len(spec) > aval.ndim:
        raise ValueError(
            f"shard_map applied to the function '{_fun_name(f)}' was given an in_specs entry which is too long "
            "to be compatible with the corresponding input value from the function:\n\n"
            f"in_specs is {spec} which has length {len(spec)}, but the passed {head}{tail}, has shape "
            f"{aval.str_short(False)}, which has rank {aval.ndim} (and {aval.ndim} < {len(spec)})\n\n"
            "Entries in in_specs must be of length no greater than the number of axes in the corresponding "
            "input value.\n\nEither revise the spec to be shorter, or modify "
            f"'{_fun_name(f)}' so that its inputs have sufficient rank.")
    for i, entry in enumerate(spec):
        names = _spec_names(entry)
        size = 1
        for n in names:
            size *= mesh.shape[n]
        if names and aval.shape[i] % size:
            axes = f"mesh axis '{names[0]}'" if len(names) == 1 else f"mesh axes {names}"
            raise ValueError(
                f"shard_map applied to the function '{_fun_name(f)}' was given argument arrays with axis sizes "
                "that are not evenly divisible by the corresponding mesh axis sizes:\n\n"
                f"The mesh given has shape {tuple(mesh.shape.values())} with corresponding axis names "
                f"{tuple(mesh.axis_names)}.\n\n"
                f"the passed {head} of shape {aval.str_short(False)}{tail}, corresponds to in_specs of value {spec}, which maps array axis {i} (of size {aval.shape[i]}) "
                f"to {axes} (of size {size}), but {size} does not evenly divide {aval.shape[i]}\n\n"
                "Array arguments' axis sizes must be evenly divisible by the mesh axis or axes indicated by the "
                "corresponding elements of the argument's in_specs entry. Consider checking that in_specs are "
                f"correct, and if so consider changing the mesh axis sizes or else padding the input and "
                f"adapting '{_fun_name(f)}' appropriately.")


def _check_explicit_in(mesh, manual, spec, aval) -> None:
    # A shard_map making every axis of an Explicit mesh manual takes its
    # arguments as their types place them (a partial-manual one reshards).
    if set(manual) != set(mesh.axis_names) or any(mesh._name_to_type[a] != AxisType.Explicit for a in manual):
        return
    have = getattr(aval.sharding, "spec", None)
    have = PartitionSpec(*([None] * aval.ndim)) if have is None else have
    want = PartitionSpec(*(tuple(spec) + (None,) * (aval.ndim - len(spec))))
    if tuple(have) != tuple(want):
        raise ValueError(
            f"in_specs passed to shard_map: {want} does not match the specs of the input: {have} for arg: "
            f"{aval.str_short(False)}. `in_specs` is an optional argument so you can omit specifying it and "
            "shard_map will infer the in_specs from the arguments. If you want to reshard your inputs, you can "
            "use `jax.reshard` on the arguments and then pass those args to shard_map.")


def _out_rank_error(f, spec, aval, path: str) -> ValueError:
    return ValueError(
        f"shard_map applied to the function '{_fun_name(f)}' was given an out_specs entry which is too long to "
        "be compatible with the corresponding output value from the function:\n\n"
        f"out_specs{path} is {spec} which has length {len(spec)}, but {_fun_name(f)}(*args){path} has shape "
        f"{aval.str_short(False)}, which has rank {aval.ndim} (and {aval.ndim} < {len(spec)})\n\n"
        "Entries in out_specs must be of length no greater than the number of axes in the corresponding "
        f"output value.\n\nEither revise the spec to be shorter, or modify '{_fun_name(f)}' so that its "
        "outputs have sufficient rank."
        + ("\n\nFor scalar values (rank 0), consider using an out_specs entry of `P()`, where "
           "`P = jax.sharding.PartitionSpec`. In particular, for rank 0 outputs which are not constant over "
           "the mesh, add at least one (singleton) axis to them so that they can be concatenated using "
           "out_specs." if aval.ndim == 0 else ""))


def _out_vma_error(mesh, spec, vma: tuple, manual) -> ValueError:
    named = {n for e in spec for n in _spec_names(e)}
    missing = [n for n in vma if n not in named]
    if named:
        unmentioned = [n for n in mesh.axis_names if n in manual and n not in named]
        what = (f"out_specs is {spec} which implies that the corresponding output value is replicated across "
                f"mesh axis '{unmentioned[0]}', but could not infer replication over any axes")
    else:
        what = (f"out_specs is {spec} which implies that the corresponding output value is only varying across "
                "mesh axes {} and not {" + ",".join(missing) + "}, but it was inferred to be possibly varying "
                "over {" + ",".join(missing) + "}")
    return ValueError(
        "shard_map applied to the function '_rem_singleton' was given out_specs which require replication "
        "which can't be statically inferred given the mesh:\n\n"
        f"The mesh given has shape {tuple(mesh.shape.values())} with corresponding axis names "
        f"{tuple(mesh.axis_names)}.\n\n{what}\n\nCheck if these output values are meant to be replicated over "
        "those mesh axes. If not, consider revising the corresponding out_specs entries. If so, consider "
        "disabling the check by passing the check_vma=False argument to `jax.shard_map`.")


def _broadcast_specs(specs, tree, name: str, static: bool = False) -> list:
    """`specs` (a prefix of the pytree `tree`) as one spec per leaf. With
    `static` a None entry stays None (an argument passed whole: a static
    one); otherwise it means `P()`."""
    from pyjax._src.tree_util import broadcast_prefix

    is_spec = lambda x: x is None or isinstance(x, PartitionSpec)  # noqa: E731
    full = tree_unflatten(tree, [0] * tree.num_leaves)
    try:
        flat = broadcast_prefix(specs, full, is_leaf=is_spec)
    except ValueError:
        errors = prefix_errors(specs, full, is_leaf=is_spec)
        if errors:
            raise errors[0](name) from None
        raise
    return flat if static else [PartitionSpec() if s is None else s for s in flat]


def _explicit_axes(aval) -> tuple:
    mesh = getattr(getattr(aval, "sharding", None), "mesh", None)
    if mesh is None or mesh.empty:
        return ()
    return tuple(n for n, t in zip(mesh.axis_names, mesh.axis_types) if t == AxisType.Explicit)


def _close_over_static(f, in_tree, flat, specs, avals, names, all_manual: bool):
    """The body over the mapped arguments alone: the ones whose spec is None
    are closed over, as JAX's shard_map treats them (their tracers, if any,
    then enter as replicated leading operands)."""
    if all(s is not None for s in specs):
        return f, in_tree, flat, specs, avals, names
    for x, s in zip(flat, specs):
        aval = core.get_aval(x)
        # (A body with no Explicit axis left cannot cast a value typed on one.)
        if s is None and all_manual and _explicit_axes(aval):
            raise NotImplementedError(
                "Closing over inputs to shard_map where the input is sharded on `Explicit` axes is not implemented. "
                "As a workaround, please pass those inputs as an argument to shard_map. Got input with shape "
                f"{aval.str_short(True)}({{Explicit: {_explicit_axes(aval)}}})")
    dynamic = [i for i, s in enumerate(specs) if s is not None]
    full = list(flat)

    def body(*xs):
        leaves = list(full)
        for i, x in zip(dynamic, xs):
            leaves[i] = x
        return f(*tree_unflatten(in_tree, leaves))

    pick = lambda seq: [seq[i] for i in dynamic]  # noqa: E731
    _, dyn_tree = tree_flatten(tuple(range(len(dynamic))))
    return body, dyn_tree, pick(flat), pick(specs), pick(avals), pick(names)


# ---------------------------------------------------------------------------
# Tracing the body


def _body_aval(aval: ShapedArray, spec, mesh, manual, check_vma: bool) -> ShapedArray:
    shape = list(aval.shape)
    names = []
    for i, entry in enumerate(spec):
        for n in _spec_names(entry):
            shape[i] //= mesh.shape[n]
            names.append(n)
    # (Nested: an argument already varying over the enclosing body's axes keeps them.)
    outer = set(getattr(aval, "vma", ()))
    vma = tuple(n for n in mesh.axis_names if (n in names and n in manual) or n in outer) if check_vma else ()
    return ShapedArray(tuple(shape), aval.dtype, aval.weak_type, _body_sharding(aval, mesh, manual), None, vma)


def body_mesh(mesh, manual):
    """The abstract mesh in context within a body: `manual` axes Manual."""
    return mesh.abstract_mesh.update_axis_types({n: AxisType.Manual for n in manual})


def _body_sharding(aval: ShapedArray, mesh, manual):
    # A body leaving Explicit axes (partial-manual) keeps them in its types:
    # each value placed over them as the argument is (JAX's f32[2,16@y]{V:x}).
    inner = body_mesh(mesh, manual)
    if not any(t == AxisType.Explicit for t in inner.axis_types):
        return None
    spec = getattr(aval.sharding, "spec", None) or PartitionSpec()
    return abstract_sharding(inner, explicit_spec(inner, spec, aval.ndim))


def trace_body(f, in_tree, mesh, manual, in_specs, out_specs_tree, avals, check_vma):
    """The body's closed jaxpr at per-device shapes, and the flat out specs."""
    body_avals = [_body_aval(a, s, mesh, manual, check_vma) for a, s in zip(avals, in_specs)]
    result: dict = {}

    def flat_body(*xs):
        outs = f(*tree_unflatten(in_tree, list(xs)))
        flat, out_tree = tree_flatten(outs)
        specs = _broadcast_specs(out_specs_tree, out_tree, "shard_map out_specs")
        for k, (x, spec) in enumerate(zip(flat, specs)):
            aval = core.get_aval(x)
            if len(spec) > aval.ndim:  # (JAX's message shows the type without its vma)
                raise _out_rank_error(f, spec, aval.update(vma=()), f"[{k}]" if out_tree.num_leaves > 1 else "")
        fixed = []
        for x, spec in zip(flat, specs):
            named = [n for e in spec for n in _spec_names(e) if n in manual]
            vma = _vma(x)
            if check_vma and any(n not in named and n in manual for n in vma):
                raise _out_vma_error(mesh, spec, vma, manual)
            fixed.append(_pvary(x, tuple(n for n in order_axes(named) if n not in vma)) if check_vma else x)
        result["specs"], result["tree"] = specs, out_tree
        return fixed

    with body_context(mesh, manual, check_vma):
        debug = staging.DebugInfo("shard_map", staging.func_src_info(f), None)
        jaxpr, _ = staging.trace_to_jaxpr(flat_body, body_avals, debug)
    return jaxpr, result["specs"], result["tree"]


@contextlib.contextmanager
def body_context(mesh, manual, check_vma: bool):
    """While a body of `mesh` is traced (or re-traced by a transformation):
    its manual axes are named axes, and with `check_vma` values are typed by
    the axes they vary over."""
    env = tuple(batching.AxisData(n, mesh.shape[n]) for n in mesh.axis_names if n in manual)
    token = batching._axis_env.set(batching._axis_env.get() + env)
    rule_token = staging.set_vma_rule(_vma_rule if check_vma else None)
    meshes_token = _meshes.set(_meshes.get() + ((mesh, manual),))
    # Within the body the context mesh is the abstract one with these axes
    # Manual (what a nested shard_map without `mesh=` maps over).
    in_mesh = use_abstract_mesh(body_mesh(mesh, manual))
    in_mesh.__enter__()
    try:
        yield
    finally:
        in_mesh.__exit__()
        _meshes.reset(meshes_token)
        staging.reset_vma_rule(rule_token)
        batching._axis_env.reset(token)


# ---------------------------------------------------------------------------
# The public function


class _InferFromArgs:
    """The default of `in_specs`: the specs come from the arguments' placements."""

    def __repr__(self):
        return "jax.sharding.Infer"


_Infer = _InferFromArgs()


def shard_map(f: Callable | None = None, /, *, out_specs: Any, in_specs: Any = _Infer, mesh: Any = None,
              axis_names: Any = frozenset(), check_vma: bool = True) -> Callable:
    """Maps `f` over shards of its arguments on `mesh` (JAX's `jax.shard_map`).

    Each argument is split as its entry of `in_specs` says (a PartitionSpec
    naming mesh axes per array axis; a prefix of the arguments' pytree). An
    entry of None passes that argument to `f` whole and unmapped, as a value
    the body closes over; by default the specs are inferred from the
    arguments' placements.
    `f` runs once per device on that device's shard, may communicate with
    collectives over the mesh axes (`psum`, `all_gather`, `ppermute`, ...),
    and its results are joined as `out_specs` says. `axis_names` restricts
    the manual axes (default: all of the mesh's); `check_vma` types values
    by the axes they vary over and checks `out_specs` against them.
    """
    if f is None:
        return lambda g: shard_map(g, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                   axis_names=axis_names, check_vma=check_vma)
    if not callable(f):
        raise TypeError("shard_map requires a callable for its first argument, "
                        f"but got {f} of type {type(f)}.")

    def wrapped(*args):
        the_mesh = _the_mesh(mesh)
        # (Nested: the enclosing bodies' manual axes are not newly manual.)
        manual = ManualAxes(axis_names or [n for n in the_mesh.axis_names if n not in the_mesh.manual_axes],
                            the_mesh.axis_names)
        if in_specs is not _Infer:
            _check_spec_names(in_specs, manual, "in")
        _check_spec_names(out_specs, manual, "out")
        flat, in_tree = tree_flatten(args)
        avals = [core.get_aval(x) for x in flat]
        if in_specs is _Infer:  # inferred from the arguments' types: their manual axes
            flat_specs = [_manual_spec(manual, getattr(a.sharding, "spec", None) or PartitionSpec()) for a in avals]
        else:
            flat_specs = _broadcast_specs(in_specs, in_tree, "shard_map in_specs", static=True)
        names = _flat_arg_names(f, args)
        all_manual = all(n in manual for n, t in zip(the_mesh.axis_names, the_mesh.axis_types) if t == AxisType.Explicit)
        body, in_tree, flat, flat_specs, avals, names = _close_over_static(f, in_tree, flat, flat_specs, avals, names,
                                                                           all_manual)
        for i, (spec, aval) in enumerate(zip(flat_specs, avals)):
            _check_in(f, the_mesh, manual, spec, aval, names[i])
            _check_explicit_in(the_mesh, manual, spec, aval)
        jaxpr, out_flat_specs, out_tree = trace_body(body, in_tree, the_mesh, manual, flat_specs, out_specs, avals,
                                                     check_vma)
        jaxpr, closed = _hoist_tracers(jaxpr)
        flat, flat_specs = closed + flat, [PartitionSpec()] * len(closed) + flat_specs
        params = dict(jaxpr=jaxpr, mesh=the_mesh, in_specs=tuple(flat_specs), out_specs=tuple(out_flat_specs),
                      check_vma=check_vma, newly_manual_axes=manual)
        if parallel.in_eager_mode() and _runtime[0] is not None:
            outs = run_eagerly(flat, params)
        else:
            outs = shard_map_p.bind(*flat, **params)
        return tree_unflatten(out_tree, outs)

    wrapped.__name__ = _fun_name(f)
    wrapped.__wrapped__ = f
    return wrapped


def _manual_spec(manual, spec: PartitionSpec) -> PartitionSpec:
    # An argument's placement restricted to the manual axes (what in_specs
    # inferred from it say; the others stay in the body's type).
    out = []
    for entry in spec:
        kept = tuple(n for n in _spec_names(entry) if n in manual)
        out.append(None if not kept else kept[0] if len(kept) == 1 and not isinstance(entry, tuple) else kept)
    return PartitionSpec(*out)


def _hoist_tracers(jaxpr):
    """A body closing over tracers of an enclosing trace takes them as
    leading replicated arguments (`P()`), as JAX does: the body's jaxpr
    holds no tracer, and each device reads the value whole."""
    hoisted = [(v, c) for v, c in zip(jaxpr.constvars, jaxpr.consts) if isinstance(c, core.Tracer)]
    if not hoisted:
        return jaxpr, []
    kept = [(v, c) for v, c in zip(jaxpr.constvars, jaxpr.consts) if not isinstance(c, core.Tracer)]
    jaxpr = jaxpr.replace(constvars=[v for v, _ in kept], consts=[c for _, c in kept],
                          invars=[v for v, _ in hoisted] + jaxpr.invars)
    return jaxpr, [c for _, c in hoisted]


def _the_mesh(mesh):
    """The mesh a shard_map maps over: the given one, else the context's (in
    a body: the abstract mesh with the enclosing body's axes Manual)."""
    if mesh is None:
        mesh = get_abstract_mesh() if _meshes.get() else get_mesh()
    if mesh is None or mesh.empty:
        raise ValueError("The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to enter into a mesh "
                         "context")
    context = get_abstract_mesh() if _meshes.get() else None
    if context is not None and mesh.abstract_mesh != context:
        raise ValueError(f"The context mesh {context} should match the mesh passed to shard_map {mesh}")
    return mesh


def _flat_arg_names(f, args) -> list:
    try:
        params = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        params = []
    out = []
    for i, a in enumerate(args):
        n = tree_flatten(a)[1].num_leaves
        tail = f", where args[{i}] is bound to {_fun_name(f)}'s parameter '{params[i]}'" if i < len(params) else ""
        out.extend([(f"args[{i}]", tail)] * n)
    return out


def run_eagerly(flat: list, params: dict) -> list:
    """Runs a shard_map on concrete arguments, one body per device, on each
    device's own buffer; returns placed Arrays."""
    from pyjax._src.sharding import spmd_data  # (imports placed Arrays)

    partial = shard_map_partial.leaves_explicit_axes(params)
    if partial:  # (partitioned over the axes left Explicit)
        outs = shard_map_partial.run_partial(flat, params, run_eagerly)
        if outs is not None:
            return outs
    mesh = params["mesh"]
    per_device = spmd_data.device_buffers(flat, params["in_specs"], mesh)
    if _runtime[0] is None:  # (the backend registers it as it loads, on first need)
        from pyjax._src import dispatch

        dispatch.load_backend()
    outs = _runtime[0](params["jaxpr"], mesh, per_device)
    avals, specs = params["jaxpr"].out_avals, params["out_specs"]
    if any(t == AxisType.Explicit for t in mesh.axis_types):  # (the result is placed as its type says: full rank)
        specs = [joined_spec(s, a, with_body_type=False) for s, a in zip(specs, avals)]
    outs = spmd_data.place_outputs(outs, avals, specs, mesh)
    return shard_map_partial.placed_as_typed(outs, avals, params["out_specs"], mesh) if partial else outs



shard_map_p.run_whole = run_eagerly  # (a jit whose program is one shard_map runs it as this)


def _install_data_collectives() -> None:
    global _DATA_COLLECTIVES
    _DATA_COLLECTIVES = (parallel_comm.all_gather_p, parallel_comm.reduce_scatter_p, parallel_comm.ppermute_p,
                         parallel_comm.all_to_all_p, parallel_comm.pbroadcast_p)


_install_data_collectives()
# What checks re-typing the body (jax_enable_checks) enter first.
shard_map_p.body_context = lambda params: body_context(params["mesh"], params["newly_manual_axes"],
                                                       params["check_vma"])
from pyjax._src import shard_map_ad  # noqa: E402,F401  (its autodiff rules)
from pyjax._src import shard_map_partial  # noqa: E402  (partial-manual bodies; partition rules)
from pyjax._src import shard_map_remat  # noqa: E402,F401  (its rule under a remat policy)
from pyjax._src import spmd_jit  # noqa: E402,F401  (sharded jit runs per device through shard_map)




def smap(f: Callable | None = None, /, *, in_axes: Any = _Infer, out_axes: Any, axis_name: Any) -> Callable:
    """shard_map over the one mesh axis `axis_name` of the context mesh (JAX's
    `jax.smap`): `in_axes`/`out_axes` say which array axis each argument and
    result is split along (None: not split); by default the arguments'
    shardings say."""
    if f is None:
        return lambda g: smap(g, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)

    def spec(ax):
        from pyjax._src.sharding.partition_spec import PartitionSpec
        return PartitionSpec() if ax is None else PartitionSpec(*([None] * ax), axis_name)

    def to_specs(axes):
        return tuple(spec(a) for a in axes) if isinstance(axes, (tuple, list)) else spec(axes)

    in_specs = _Infer if in_axes is _Infer else to_specs(in_axes)
    return lambda *args: shard_map(f, in_specs=in_specs, out_specs=to_specs(out_axes),
                                   axis_names=frozenset({axis_name}))(*args)
