"""The per-device runtime of shard_map bodies.

A body runs on every device of the mesh in lockstep: the jaxpr is
interpreted equation by equation, each value held as one NumPy buffer per
device. An ordinary equation runs its impl once per device on that
device's buffers; a collective is one exchange between the buffers of the
devices that share its axes (the others' mesh coordinates fixed); a call
whose body holds collectives (jit, remat, custom derivatives) is entered in
lockstep too, and so is control flow holding collectives (spmd_control.py). Nothing is ever concatenated into the global array, except
what a collective itself gathers (all_gather).

Under jit the shard_map equation's impl receives global buffers (pyjax's
compiled programs hold global values): it slices them per device, runs the
same lockstep interpreter and joins the per-device results as out_specs
says.
"""

from __future__ import annotations

import contextlib
import functools
import math
from typing import Callable, Iterator, Sequence

import numpy as np

from pyjax._src import dispatch, multihost_utils
from pyjax._src import shard_map as shard_map_mod
from pyjax._src.backends.numpy.impls import spmd_mpi, spmd_p2p
from pyjax._src.backends.numpy.impls.spmd_control import RULES as _CONTROL
from pyjax._src.backends.numpy.impls import spmd_runs
from pyjax._src.backends.numpy.parallel import split
from pyjax._src.backends.numpy.impls.standard import IMPLS as _IMPLS
from pyjax._src.interpreters.batching import params_hold_collectives
from pyjax._src.jaxpr import Literal
from pyjax._src.lax import parallel, parallel_comm, parallel_ragged
from pyjax._src.lax.parallel_vma import psum_invariant_p, pvary_p
from pyjax._src.rules import missing_rule_error
from pyjax._src.sharding.devices import process_count, process_index
from pyjax._src.sharding.named import NamedSharding
from pyjax._src.sharding.spmd_data import global_aval


class Mesh:
    """The devices' coordinates on the mesh, and the groups a collective over
    some axes exchanges within."""

    def __init__(self, mesh) -> None:
        self.names = tuple(mesh.axis_names)
        self.sizes = tuple(mesh.shape[n] for n in self.names)
        self.n = int(np.prod(self.sizes))
        self.coords = [np.unravel_index(i, self.sizes) for i in range(self.n)]
        self._groups: dict = {}
        # Which process owns each device; this process's devices (all of
        # them, with one process). Another process's slot holds None.
        self.me = process_index()
        self.owner = [d.process_index for d in mesh.devices.flat]
        self.local = [d for d in range(self.n) if self.owner[d] == self.me]
        self.spans = len(self.local) < self.n

    def index(self, device: int, axes: tuple) -> int:
        """The device's row-major index over `axes` (the last varies fastest)."""
        out = 0
        for a in axes:
            k = self.names.index(a)
            out = out * self.sizes[k] + int(self.coords[device][k])
        return out

    def groups(self, axes: tuple) -> list[list[int]]:
        """The devices grouped by their coordinates off `axes`, each group
        ordered by the index over `axes`."""
        found = self._groups.get(axes)
        if found is None:
            others = [k for k, n in enumerate(self.names) if n not in axes]
            by_key: dict = {}
            for d in range(self.n):
                by_key.setdefault(tuple(int(self.coords[d][k]) for k in others), []).append(d)
            found = [sorted(g, key=lambda d: self.index(d, axes)) for g in by_key.values()]
            self._groups[axes] = found
        return found


def _named(axes) -> tuple:
    return tuple(a for a in parallel.axes_tuple(axes) if not parallel.is_positional(a))


def _each_group(mesh: Mesh, axes: tuple, xs: list, fn: Callable, how: Callable | None = None,
                name: str = "collective") -> list:
    # fn(values of one group, in axis order) -> that group's results, in the same order
    if mesh.spans:  # (groups crossing processes go over MPI: `how`, else gathered)
        return spmd_mpi.each_group(mesh, axes, xs, fn, how, name)
    out = [None] * mesh.n
    for group in mesh.groups(axes):
        for d, r in zip(group, fn([xs[d] for d in group])):
            out[d] = r
    return out


_NAMES = {np.add: "psum", np.maximum: "pmax", np.minimum: "pmin"}


def _reduction(ufunc):
    def rule(mesh, xs, *, axes, axis_index_groups=None):
        positional = tuple(int(a) for a in parallel.axes_tuple(axes) if parallel.is_positional(a))
        if positional:
            xs = [None if x is None else ufunc.reduce(np.asarray(x), axis=positional).astype(np.asarray(x).dtype)
                  for x in xs]
        named = _named(axes)
        if not named:
            return xs

        def reduce(values):
            return [_fold(ufunc, values)] * len(values)

        return _each_group(mesh, named, xs, reduce, spmd_mpi.reduction(ufunc, _fold), _NAMES[ufunc])

    return rule


def _all_gather(mesh, xs, *, all_gather_dimension, axis_name, axis_index_groups, axis_size, tiled):
    join = np.concatenate if tiled else np.stack
    return _each_group(mesh, _named(axis_name), xs,
                       lambda vs: [join(vs, axis=all_gather_dimension)] * len(vs), name="all_gather")


def _reduce_scatter(mesh, xs, *, scatter_dimension, axis_name, axis_index_groups, axis_size, tiled):
    def part(total, k, n):
        p = np.split(total, n, axis=scatter_dimension)[k]
        return p if tiled else np.squeeze(p, scatter_dimension)

    def scatter(values):
        total = _sum(values)
        return [part(total, k, len(values)) for k in range(len(values))]

    def finish(block):  # (this member's block, as part() shapes it)
        return block if tiled else np.squeeze(block, scatter_dimension)

    across = spmd_mpi.reduce_scatter(_fold, part, scatter_dimension, finish)
    return _each_group(mesh, _named(axis_name), xs, scatter, across, "psum_scatter")


def _fold(ufunc, values):
    # In device order, as one all-reduce would; into one fresh buffer.
    acc = np.asarray(values[0])
    if len(values) == 1:
        return acc
    dtype = acc.dtype
    acc = np.asarray(ufunc(acc, values[1]))
    if acc.dtype != dtype:  # (a ufunc that promotes: fold as before, cast back each step)
        acc = acc.astype(dtype)
        for v in values[2:]:
            acc = ufunc(acc, v).astype(dtype)
        return acc
    for v in values[2:]:
        ufunc(acc, v, out=acc)
    return acc


def _sum(values):
    return _fold(np.add, values)


def _ppermute(mesh, xs, *, axis_name, perm):
    def permute(values):
        out = [np.zeros_like(np.asarray(v)) for v in values]
        for src, dst in perm:
            out[dst] = np.asarray(values[src])
        return out

    return _each_group(mesh, _named(axis_name), xs, permute, spmd_mpi.permute(tuple(perm)), "ppermute")


def _pbroadcast(mesh, xs, *, axis_name, source):
    return _each_group(mesh, _named(axis_name), xs, lambda vs: [np.asarray(vs[source])] * len(vs),
                       name="pbroadcast")


def _all_to_all(mesh, xs, *, split_axis, concat_axis, axis_name, axis_index_groups, tiled):
    def exchange(values):
        n = len(values)
        chunks = [np.split(np.asarray(v), n, axis=split_axis) for v in values]
        return [np.concatenate([chunks[i][j] for i in range(n)], axis=concat_axis) for j in range(n)]

    return _each_group(mesh, _named(axis_name), xs, exchange, spmd_mpi.all_to_all(split_axis, concat_axis),
                       "all_to_all")


def _ragged_all_to_all(mesh, ins, *, axis_name, axis_index_groups):
    operand, output, in_offsets, send_sizes, out_offsets, _ = ins
    if mesh.spans:
        raise NotImplementedError("ragged_all_to_all over a mesh spanning several processes is not supported")
    out = [np.array(o, copy=True) for o in output]  # (a device in none of axis_index_groups receives nothing)
    for group in _index_groups(mesh.groups(_named(axis_name)), axis_index_groups):
        pick = lambda xs: [xs[d] for d in group]  # noqa: E731
        results = parallel_ragged.ragged_exchange(pick(operand), pick(out_offsets), pick(send_sizes),
                                                  pick(in_offsets), pick(output))
        for d, r in zip(group, results):
            out[d] = r
    return out


def _index_groups(groups: list, axis_index_groups) -> list:
    # Each axis group split by axis_index_groups, as JAX forms replica groups
    # when lowering (with its checks there).
    if axis_index_groups is None:
        return groups
    split = [[tuple(group)[i] for i in indices] for group in groups for indices in axis_index_groups]
    if any(len(g) != len(split[0]) for g in split):
        raise ValueError("Replica groups must be equally sized")
    return split


def _axis_index(mesh, *, axis_name):
    axes = parallel.axes_tuple(axis_name)
    return [np.int32(mesh.index(d, axes)) for d in range(mesh.n)]


COLLECTIVES: dict = {
    parallel.psum_p: _reduction(np.add),
    psum_invariant_p: _reduction(np.add),
    parallel.pmax_p: _reduction(np.maximum),
    parallel.pmin_p: _reduction(np.minimum),
    parallel_comm.all_gather_p: _all_gather,
    parallel_comm.reduce_scatter_p: _reduce_scatter,
    parallel_comm.ppermute_p: _ppermute,
    parallel_comm.pbroadcast_p: _pbroadcast,
    parallel_comm.all_to_all_p: _all_to_all,
    parallel_ragged.all_gather_invariant_p: lambda mesh, xs, **params: _all_gather(mesh, xs, axis_index_groups=None,
                                                                                   **params),
    pvary_p: lambda mesh, xs, *, axes: xs,  # a cast of the type only
}
COLLECTIVES.update(spmd_p2p.rules(_ppermute))  # (a psend exchanges as ppermute does)


_watchers: list = []


@contextlib.contextmanager
def watch_buffers(callback: Callable) -> Iterator[None]:
    """Within the block, `callback(device, buffer)` sees every per-device
    buffer a body's equations make (their results), device by device: what
    each device would hold."""
    _watchers.append(callback)
    try:
        yield
    finally:
        _watchers.remove(callback)


def _report(outs: list[list]) -> None:
    for out in outs:
        for d, buffer in enumerate(out):
            if buffer is None:  # (another process's device)
                continue
            for w in _watchers:
                w(d, buffer)


def run_lockstep(jaxpr, mesh: Mesh, args: list[list], impls: dict) -> list[list]:
    """Runs `jaxpr` on every device: `args[i]` is the list of device i's
    buffers of input i; returns the same per output."""
    env: dict = {}
    for v, c in zip(jaxpr.constvars, jaxpr.consts, strict=True):
        env[v] = [getattr(c, "_value", c)] * mesh.n
    env.update(zip(jaxpr.invars, args, strict=True))
    for eqn in _one_by_one(jaxpr, mesh, env, impls):
        ins = [[_literal(v)] * mesh.n if type(v) is Literal else env[v] for v in eqn.invars]
        p = eqn.primitive
        if p is parallel.axis_index_p:
            outs = [_axis_index(mesh, **eqn.params)]
        elif p in COLLECTIVES:
            outs = [COLLECTIVES[p](mesh, ins[0], **eqn.params)]
        elif p is parallel_ragged.ragged_all_to_all_p:
            outs = [_ragged_all_to_all(mesh, ins, **eqn.params)]
        elif p is shard_map_mod.shard_map_p:
            outs = _nested_shard_map(eqn, mesh, ins, impls)
        elif params_hold_collectives(eqn.params):
            outs = _call_in_lockstep(eqn, mesh, ins, impls)
        else:
            outs = _per_device(eqn, mesh, ins, impls)
        if _watchers:
            _report(outs)
        env.update(zip(eqn.outvars, outs, strict=True))
    return [[_literal(v)] * mesh.n if type(v) is Literal else env[v] for v in jaxpr.outvars]


def _one_by_one(jaxpr, mesh: Mesh, env: dict, impls: dict):
    # The body's equations run_lockstep runs one at a time. A run of
    # equations that exchange nothing is run here instead, as one compiled
    # program per device (spmd_runs.py), unless buffers are being watched
    # (the watchers see every equation's results).
    for step in spmd_runs.plan(jaxpr, _exchanges_nothing):
        if type(step) is not spmd_runs.Run:
            yield step
        elif _watchers or not spmd_runs.run(step, mesh.n, mesh.local, env, impls):
            yield from step.eqns


def _exchanges_nothing(eqn) -> bool:
    # What run_lockstep hands to _per_device: no collective, no body holding one, no effect.
    p = eqn.primitive
    return not (eqn.effects or p is parallel.axis_index_p or p in COLLECTIVES or p is shard_map_mod.shard_map_p
                or p is parallel_ragged.ragged_all_to_all_p or params_hold_collectives(eqn.params))


def _literal(v: Literal):
    # A literal as a buffer of its type (a Python 0 in a loop's carry must stay int32).
    dtype = getattr(v.aval, "dtype", None)
    return np.asarray(v.val, dtype) if isinstance(dtype, np.dtype) else v.val


def _per_device(eqn, mesh: Mesh, ins: list[list], impls: dict) -> list[list]:
    impl = impls.get(eqn.primitive)
    if impl is None:
        raise missing_rule_error("impl", eqn.primitive.name)
    local = mesh.local
    first = local[0]
    if len(local) > 1 and not eqn.effects and all(all(x[d] is x[first] for d in local) for x in ins):
        # Every operand is one buffer shared by all devices (a replicated
        # value: a literal, a constant, a psum's result, an input every
        # device reads whole): the result is computed once and shared too.
        results = [impl(*[x[first] for x in ins], **eqn.params)] * mesh.n
    elif len(local) > 1 and split.num_workers() > 1 and _worth_threads(eqn, ins, len(local)):
        results = _on_threads(impl, eqn, ins, local, mesh.n)
    elif mesh.spans:
        results = [impl(*[x[d] for x in ins], **eqn.params) if d in local else None for d in range(mesh.n)]
    else:
        results = [impl(*[x[d] for x in ins], **eqn.params) for d in range(mesh.n)]
    if eqn.primitive.multiple_results:
        if mesh.spans:
            results = [[None] * len(eqn.outvars) if r is None else r for r in results]
        return [list(r) for r in zip(*results)] if results and eqn.outvars else [[] for _ in eqn.outvars]
    return [results]


def _worth_threads(eqn, ins: list[list], n: int) -> bool:
    # The devices' calls run on the cores at once when their work pays for
    # the hand-offs (the thresholds of split.py's own splits).
    if eqn.primitive.name == "dot_general":
        (contract, _), _ = eqn.params["dimension_numbers"]
        k = math.prod(eqn.invars[0].aval.shape[i] for i in contract)
        return n * 2 * k * math.prod(eqn.outvars[0].aval.shape) >= split.MIN_FLOPS
    return n * max((math.prod(v.aval.shape) for v in eqn.invars), default=0) >= split.MIN_ELEMENTS


def _on_threads(impl: Callable, eqn, ins: list[list], local: list, n: int) -> list:
    # One block of devices per core, each device's call whole (unsplit: a
    # pool thread must not wait on the pool).
    results: list = [None] * n
    workers, k = split.num_workers(), len(local)
    blocks = [local[k * w // workers:k * (w + 1) // workers] for w in range(workers)]

    def run_block(devices):
        with split.unsplit():
            for d in devices:
                results[d] = impl(*[x[d] for x in ins], **eqn.params)

    split.run_all([functools.partial(run_block, b) for b in blocks if len(b)])
    return results


def _call_in_lockstep(eqn, mesh: Mesh, ins: list[list], impls: dict) -> list[list]:
    body_param = getattr(eqn.primitive, "call_body", None)
    control = _CONTROL.get(eqn.primitive.name)
    if body_param is None and control is not None:
        return control(run_lockstep, eqn, mesh, ins, impls)
    if body_param is None:
        raise NotImplementedError(
            f"shard_map: a '{eqn.primitive.name}' whose body holds collectives does not run per device yet")
    body = eqn.params[body_param]
    return run_lockstep(body, mesh, ins[:len(body.invars)], impls)


def _nested_shard_map(eqn, mesh: Mesh, ins: list[list], impls: dict) -> list[list]:
    """A shard_map inside a body, over axes the enclosing body left whole:
    each device takes its block of its own buffer along the newly manual
    axes, the inner body runs in the same lockstep (its collectives group
    the same devices by the axes they name), and the results are joined
    back along those axes within each group, as out_specs says."""
    params = eqn.params
    if tuple(params["mesh"].axis_names) != mesh.names:
        raise NotImplementedError("shard_map: a nested shard_map over a different mesh does not run per device")
    args = [_take_blocks(mesh, x, spec) for x, spec in zip(ins, params["in_specs"])]
    outs = run_lockstep(params["jaxpr"], mesh, args, impls)
    return [_join_blocks(mesh, x, spec) for x, spec in zip(outs, params["out_specs"])]


def _spec_axes(entry) -> tuple:
    return () if entry is None else tuple(entry) if isinstance(entry, tuple) else (entry,)


def _take_blocks(mesh: Mesh, xs: list, spec) -> list:
    for dim, entry in enumerate(spec):
        axes = _spec_axes(entry)
        if axes:
            parts = math.prod(mesh.sizes[mesh.names.index(a)] for a in axes)
            xs = [None if x is None else np.split(np.asarray(x), parts, axis=dim)[mesh.index(d, axes)]
                  for d, x in enumerate(xs)]
    return xs


def _join_blocks(mesh: Mesh, xs: list, spec) -> list:
    for dim, entry in enumerate(spec):
        axes = _spec_axes(entry)
        if axes:
            xs = _each_group(mesh, axes, xs, lambda vs, dim=dim: [np.concatenate(vs, axis=dim)] * len(vs),
                             name="shard_map's join")
    return xs


_MESHES: dict = {}  # a mesh -> its devices' coordinates and groups (meshes are few and hashable)


def run(jaxpr, mesh, per_device: Sequence[list]) -> list[list]:
    """The backend's shard_map runner: `per_device[d]` is device d's list of
    argument buffers (devices in `mesh.devices.flat` order); returns each
    device's list of result buffers."""
    m = _MESHES.get(mesh)
    if m is None:
        m = _MESHES[mesh] = Mesh(mesh)
    if m.spans:  # (another process's devices: no buffers here)
        per_device = [row if row is not None else [None] * len(jaxpr.invars) for row in per_device]
    columns = [list(col) for col in zip(*per_device)] if per_device and per_device[0] else \
        [[] for _ in jaxpr.invars]
    # (XLA's float mode and one-thread BLAS, as around every computation;
    # nested inside a jit's program it is already set and stays so.)
    with spmd_p2p.mailbox():  # (what the run's psends deliver to its precvs)
        outs = dispatch.fp_mode.run(run_lockstep, jaxpr, m, columns, _IMPLS)
    return [[out[d] for out in outs] if d in m.local else None for d in range(m.n)]


def _shard_map_impl(*args, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    # Under jit: global buffers in, global buffers out. Devices reading the
    # same block of an argument share one view of it; a block several
    # devices hold (replicated over an axis) is written back once.
    devices = list(mesh.devices.flat)
    me = process_index()  # (several processes: each holds the global buffers, runs its own devices)
    per_device = [[] if d.process_index == me else None for d in devices]
    for x, spec in zip(args, in_specs):
        x = np.asarray(x)
        indices = NamedSharding(mesh, spec).devices_indices_map(x.shape)
        views: dict = {}
        for k, d in enumerate(devices):
            if per_device[k] is None:
                continue
            key = _index_key(indices[d])
            if key not in views:
                views[key] = x[indices[d]]
            per_device[k].append(views[key])
    outs = run(jaxpr, mesh, per_device)
    if any(row is None for row in outs):
        outs = spmd_mpi.gather_devices(_MESHES[mesh], outs)
    results = []
    for k, (aval, spec) in enumerate(zip(jaxpr.out_avals, out_specs)):
        sharding = NamedSharding(mesh, spec)
        shape = global_aval(aval, spec, mesh).shape
        indices = sharding.devices_indices_map(shape)
        if sharding.is_fully_replicated:
            results.append(np.asarray(next(row for row in outs if row is not None)[k]))
            continue
        joined = np.empty(shape, aval.dtype)
        written: set = set()
        for i, d in enumerate(devices):
            key = _index_key(indices[d])
            if key not in written:
                written.add(key)
                joined[indices[d]] = outs[i][k]
        results.append(joined)
    return results


def _index_key(index: tuple) -> tuple:
    return tuple((s.start, s.stop, s.step) if isinstance(s, slice) else s for s in index)


def _outside_shard_map(name: str):
    def impl(*args, **params):
        raise ValueError(f"{name} should be called under jax.shard_map.")

    return impl


shard_map_mod.register_runtime(run)


def _compile_run(jaxpr):
    # A run's per-device program: the backend's code generator over the
    # impls, without XLA's rewrites (a transposed product computed with its
    # operands swapped rounds differently on some CPUs): the impls' results,
    # bit for bit.
    from pyjax._src.backends.numpy import memory
    from pyjax._src.backends.numpy.codegen import compile as codegen
    from pyjax._src.backends.numpy.impls import IMPLS

    compiled = codegen.compile_jaxpr(memory.check_jaxpr(jaxpr), IMPLS)
    return getattr(compiled, "fn", compiled)


spmd_runs.COMPILE[0] = _compile_run
IMPLS = {
    shard_map_mod.shard_map_p: _shard_map_impl,
    pvary_p: _outside_shard_map("pvary"),
    psum_invariant_p: _outside_shard_map("psum_invariant"),
    parallel_ragged.ragged_all_to_all_p: _outside_shard_map("ragged_all_to_all"),
    parallel_ragged.all_gather_invariant_p: _outside_shard_map("all_gather_invariant"),
    # One process: a host-local array is the global one (compiled code holds global values).
    multihost_utils.host_local_array_to_global_array_p: lambda x, **params: _one_process(x, "host_local"),
    multihost_utils.global_array_to_host_local_array_p: lambda x, **params: _one_process(x, "global"),
}
IMPLS.update(spmd_p2p.IMPLS)


def _one_process(x, name: str):
    if process_count() > 1:
        raise NotImplementedError(f"{name}_array_to_..._array under jit with several processes: call it "
                                  "outside jit (docs/distributed.md)")
    return x
