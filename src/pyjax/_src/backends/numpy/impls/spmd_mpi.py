"""Collectives whose device groups cross processes, on MPI.

The lockstep runtime (spmd.py) holds this process's devices' buffers only
(another process's slot is None). A collective's groups that lie within
this process exchange buffers directly, as with one process; the groups
that cross processes are bucketed by the set of processes they span, and
each bucket runs on the communicator of those processes
(`distributed.sub_comm`), in one agreed order, after a check that every
process is at the same collective (`distributed.check_signature`).

Results equal one process's bit for bit: a reduction folds the devices'
values in the group's order, as spmd.py does, so MPI's own reductions
(whose association is theirs) are used only where the order cannot change
a bit: integers, or a float sum of two values (IEEE addition commutes).
Otherwise the running fold is handed from process to process along the
group (`_chain`) and broadcast from the last. all_gather, psum_scatter,
all_to_all and pbroadcast gather the members' buffers (Allgatherv) and
compute as one process does; ppermute sends each pair's buffer
point to point.
"""

from __future__ import annotations

import sys
from typing import Callable

import numpy as np

from pyjax._src import distributed

# dtypes MPI's predefined reductions take (mpi4py maps these from NumPy's codes)
_MPI_REDUCIBLE = frozenset("fdFDbhilqBHILQ")


# Result buffers of large reductions, kept for reuse once nothing else
# refers to them (the Array holding the last result was dropped): MPI then
# writes into memory already mapped, rather than a fresh allocation's
# pages being faulted in during the exchange.
_POOL: dict = {}
_POOL_MIN_BYTES = 1 << 20
_POOL_PER_SHAPE = 3


def _result_buffer(shape: tuple, dtype) -> np.ndarray:
    bucket = _POOL.setdefault((shape, np.dtype(dtype)), [])
    for i in range(len(bucket)):
        if sys.getrefcount(bucket[i]) == 2:  # (the pool's reference and the call's: free)
            return bucket[i]
    buf = np.empty(shape, dtype)
    if buf.nbytes >= _POOL_MIN_BYTES and len(bucket) < _POOL_PER_SHAPE:
        bucket.append(buf)
    return buf


def clear_pool() -> None:
    _POOL.clear()


def _bytes(a: np.ndarray) -> np.ndarray:
    # A contiguous buffer as bytes sharing its memory (0-d arrays too).
    return a.reshape(-1).view(np.uint8)


def _contiguous(x) -> np.ndarray:
    return np.asarray(x, order="C")  # (np.ascontiguousarray would make a 0-d value 1-d)


def each_group(mesh, axes: tuple, xs: list, fn: Callable, how: Callable | None, name: str) -> list:
    """`spmd._each_group` when the mesh spans processes: `fn` on the groups
    within this process, `how(comm, procs, mesh, groups, xs, fn, out)` on
    each bucket of groups crossing processes (default: gather then `fn`)."""
    me = mesh.me
    out = [None] * mesh.n
    buckets: dict = {}
    for group in mesh.groups(axes):
        procs = tuple(sorted({mesh.owner[d] for d in group}))
        if procs == (me,):
            for d, r in zip(group, fn([xs[d] for d in group])):
                out[d] = r
        elif me in procs:
            buckets.setdefault(procs, []).append(group)
    for procs in sorted(buckets):  # (the same order on every process)
        groups = buckets[procs]
        comm = distributed.sub_comm(procs)
        sample = np.asarray(xs[next(d for d in groups[0] if mesh.owner[d] == me)])
        distributed.check_signature(comm, f"{name} over mesh axes {axes} of a {sample.dtype}{list(sample.shape)} "
                                          f"value per device, {len(groups)} group(s) of {len(groups[0])}")
        (how or gathered)(comm, procs, mesh, groups, xs, fn, out)
    return out


def gathered(comm, procs: tuple, mesh, groups: list, xs: list, fn: Callable, out: list) -> None:
    """Every process gets every member's buffer (one Allgatherv), then
    computes each group's results as one process would."""
    me = mesh.me
    by_proc = [[d for g in groups for d in g if mesh.owner[d] == p] for p in procs]
    sample = np.asarray(xs[by_proc[procs.index(me)][0]])
    dtype, shape, nbytes = sample.dtype, sample.shape, sample.nbytes
    mine = by_proc[procs.index(me)]
    send = np.empty(len(mine) * nbytes, np.uint8)
    for k, d in enumerate(mine):
        send[k * nbytes:(k + 1) * nbytes] = _bytes(_contiguous(xs[d]))
    counts = [len(m) * nbytes for m in by_proc]
    recv = np.empty(sum(counts), np.uint8)
    comm.Allgatherv(send, [recv, counts])
    values: dict = {}
    offset = 0
    for p, members in zip(procs, by_proc):
        for d in members:
            values[d] = xs[d] if p == me else recv[offset:offset + nbytes].view(dtype).reshape(shape)
            offset += nbytes
    for g in groups:
        for d, r in zip(g, fn([values[d] for d in g])):
            if mesh.owner[d] == me:
                out[d] = r


def reduction(ufunc, fold: Callable) -> Callable:
    """The bucket handler of psum/pmax/pmin: MPI's Allreduce where its order
    cannot matter, else the ordered chain."""
    def how(comm, procs, mesh, groups, xs, fn, out):
        me = mesh.me
        local = [[d for d in g if mesh.owner[d] == me] for g in groups]
        dtype = np.asarray(xs[local[0][0]]).dtype
        one_each = all(len(g) == len(procs) for g in groups)
        exact = dtype.kind in "iu" or (ufunc is np.add and dtype.kind in "fc" and one_each and len(procs) == 2)
        if exact and dtype.char in _MPI_REDUCIBLE:
            mpi = distributed.mpi()
            op = {np.add: mpi.SUM, np.maximum: mpi.MAX, np.minimum: mpi.MIN}[ufunc]
            partial = [fold(ufunc, [xs[d] for d in m]) for m in local]
            send = _contiguous(partial[0])[None] if len(partial) == 1 else np.stack(partial)
            recv = _result_buffer(send.shape, send.dtype)
            comm.Allreduce(send, recv, op=op)
            for m, r in zip(local, recv):
                for d in m:
                    out[d] = r
            return
        for g, m in zip(groups, local):
            result = _chain(comm, procs, mesh, g, xs, ufunc, fold)
            for d in m:
                out[d] = result

    return how


def reduce_scatter(fold: Callable, part: Callable, scatter_dimension: int, finish: Callable) -> Callable:
    """The bucket handler of psum_scatter: MPI's Reduce_scatter where its
    order cannot matter (one member per process, in rank order; integers or
    a float sum of two; `finish` shapes the block), else the sum as psum
    computes it across processes, each member then keeping its part,
    `part(total, k, n)`."""
    reduce = reduction(np.add, fold)

    def how(comm, procs, mesh, groups, xs, fn, out):
        sample = np.asarray(xs[next(d for d in groups[0] if mesh.owner[d] == mesh.me)])
        in_order = all([mesh.owner[d] for d in g] == list(procs) for g in groups)
        exact = sample.dtype.kind in "iu" or (sample.dtype.kind in "fc" and len(procs) == 2)
        if in_order and exact and sample.dtype.char in _MPI_REDUCIBLE and sample.ndim:
            for g in groups:
                d = next(d for d in g if mesh.owner[d] == mesh.me)
                out[d] = finish(_reduce_scatter_block(comm, np.asarray(xs[d]), len(g), scatter_dimension))
            return
        totals = [None] * mesh.n
        reduce(comm, procs, mesh, groups, xs, fn, totals)
        for g in groups:
            for k, d in enumerate(g):
                if mesh.owner[d] == mesh.me:
                    out[d] = part(totals[d], k, len(g))

    return how


_CHUNK_BYTES = 1 << 22  # the ordered fold moves in pieces this large, so that its steps overlap
_FINAL_TAG = 16384


def _runs(procs: tuple, mesh, group: list) -> list:
    # The group's members in order, cut into runs of one process's devices.
    runs: list = []
    for d in group:
        rank = procs.index(mesh.owner[d])
        if runs and runs[-1][0] == rank:
            runs[-1][1].append(d)
        else:
            runs.append((rank, [d]))
    return runs


def _reduce_scatter_block(comm, x: np.ndarray, n: int, axis: int) -> np.ndarray:
    # The blocks along `axis` laid out one after another, reduced and
    # scattered by MPI: this rank's block (its `axis` of size 1/n).
    moved = np.ascontiguousarray(np.moveaxis(x, axis, 0))
    recv = np.empty(moved.size // n, x.dtype)
    comm.Reduce_scatter_block(moved.reshape(-1), recv, op=distributed.mpi().SUM)
    return np.moveaxis(recv.reshape((moved.shape[0] // n,) + moved.shape[1:]), 0, axis)


def _chain(comm, procs: tuple, mesh, group: list, xs: list, ufunc, fold: Callable) -> np.ndarray:
    # The fold runs along the group: each process folds its run of members
    # into the running value it receives and passes it on; the last sends
    # the result to the others. It goes piece by piece (an elementwise fold
    # gives the same bits on a piece as on the whole), so that one process
    # folds piece c + 1 while the next folds piece c. Sends and receives
    # follow one agreed order on every process: no deadlock.
    runs = _runs(procs, mesh, group)
    me, last = comm.Get_rank(), runs[-1][0]
    flat = {d: _contiguous(xs[d]).reshape(-1) for r, ds in runs if r == me for d in ds}
    sample = np.asarray(xs[next(iter(flat))])
    result = _result_buffer(sample.shape, sample.dtype)
    out = result.reshape(-1)
    step = max(1, _CHUNK_BYTES // max(1, sample.dtype.itemsize))
    pieces = [(lo, min(lo + step, out.size)) for lo in range(0, out.size, step)] or [(0, 0)]
    requests, keep = [], []
    if me != last:  # (the result's pieces, posted first)
        requests += [comm.Irecv(_bytes(out[lo:hi]), source=last, tag=_FINAL_TAG + c % _FINAL_TAG)
                     for c, (lo, hi) in enumerate(pieces)]
    for c, (lo, hi) in enumerate(pieces):
        acc = None
        for k, (rank, members) in enumerate(runs):
            if rank != me:
                continue
            values = [flat[d][lo:hi] for d in members]
            if k > 0:
                acc = np.empty(hi - lo, sample.dtype)
                comm.Recv(_bytes(acc), source=runs[k - 1][0], tag=1 + (c * len(runs) + k) % (_FINAL_TAG - 1))
                values = [acc] + values
            acc = _contiguous(fold(ufunc, values))
            if k + 1 < len(runs):
                keep.append(acc)
                requests.append(comm.Isend(_bytes(acc), dest=runs[k + 1][0],
                                           tag=1 + (c * len(runs) + k + 1) % (_FINAL_TAG - 1)))
        if me == last:
            out[lo:hi] = acc
            requests += [comm.Isend(_bytes(out[lo:hi]), dest=r, tag=_FINAL_TAG + c % _FINAL_TAG)
                         for r in range(comm.Get_size()) if r != me]
    distributed.mpi().Request.Waitall(requests)
    return result


def permute(perm: tuple) -> Callable:
    """The bucket handler of ppermute: each (source, destination) pair's
    buffer goes point to point (within a process: handed over)."""
    def how(comm, procs, mesh, groups, xs, fn, out):
        me, world, mpi = mesh.me, distributed.comm(), distributed.mpi()
        requests, keep = [], []
        for gi, g in enumerate(groups):
            sample = np.asarray(xs[next(d for d in g if mesh.owner[d] == me)])
            received = set()
            for pi, (src, dst) in enumerate(perm):
                s, t = g[src], g[dst]
                tag = (gi * len(perm) + pi) % 32000
                if mesh.owner[t] == me:
                    received.add(t)
                if mesh.owner[s] == me and mesh.owner[t] == me:
                    out[t] = np.asarray(xs[s])
                elif mesh.owner[s] == me:
                    buf = _contiguous(xs[s])
                    keep.append(buf)
                    requests.append(world.Isend(_bytes(buf), dest=mesh.owner[t], tag=tag))
                elif mesh.owner[t] == me:
                    buf = np.empty(sample.shape, sample.dtype)
                    out[t] = buf
                    requests.append(world.Irecv(_bytes(buf), source=mesh.owner[s], tag=tag))
            for d in g:
                if mesh.owner[d] == me and d not in received:
                    out[d] = np.zeros_like(sample)
        mpi.Request.Waitall(requests)

    return how


def all_to_all(split_axis: int, concat_axis: int) -> Callable:
    """The bucket handler of all_to_all: each member's chunk j goes to
    member j only (one Alltoallv; within a process the chunks are handed
    over), and each member joins what it receives in group order."""
    def how(comm, procs, mesh, groups, xs, fn, out):
        me = mesh.me
        k = len(groups[0])
        parts: dict = {}  # (source device, destination device) -> chunk
        for g in groups:
            for i in g:
                if mesh.owner[i] == me:
                    for j, chunk in zip(g, np.split(np.asarray(xs[i]), k, axis=split_axis)):
                        parts[i, j] = chunk
        sample = next(iter(parts.values()))
        nbytes = sample.nbytes

        def pairs(src_rank, dst_rank):  # the order both sides agree on
            return [(i, j) for g in groups for i in g if mesh.owner[i] == procs[src_rank]
                    for j in g if mesh.owner[j] == procs[dst_rank]]

        rank, size = comm.Get_rank(), comm.Get_size()
        sends = [pairs(rank, r) if r != rank else [] for r in range(size)]
        recvs = [pairs(q, rank) if q != rank else [] for q in range(size)]
        send = np.empty(sum(map(len, sends)) * nbytes, np.uint8)
        offset = 0
        for pr in sends:
            for key in pr:
                send[offset:offset + nbytes] = _bytes(_contiguous(parts[key]))
                offset += nbytes
        recv = np.empty(sum(map(len, recvs)) * nbytes, np.uint8)
        comm.Alltoallv([send, [len(pr) * nbytes for pr in sends]], [recv, [len(pr) * nbytes for pr in recvs]])
        offset = 0
        for pr in recvs:
            for key in pr:
                parts[key] = recv[offset:offset + nbytes].view(sample.dtype).reshape(sample.shape)
                offset += nbytes
        for g in groups:
            for j in g:
                if mesh.owner[j] == me:
                    out[j] = np.concatenate([parts[i, j] for i in g], axis=concat_axis)

    return how


def agree(mesh, what: str, value) -> np.ndarray:
    """`value` (a control-flow predicate) checked equal on every process of
    the mesh; the processes would otherwise part ways before a collective."""
    procs = tuple(sorted(set(mesh.owner)))
    comm = distributed.sub_comm(procs)
    value = _contiguous(value)
    every = comm.allgather(value)
    if any(not np.array_equal(value, v) for v in every):
        raise ValueError(f"shard_map: a {what} whose body holds collectives got different predicates on "
                         f"different processes ({[v.tolist() for v in every]}): the processes would not reach "
                         "the collectives together. Make the predicate the same everywhere (e.g. reduce it "
                         "with lax.pmax/psum first).")
    return value


def any_process(mesh, flag: bool) -> bool:
    """Whether `flag` holds on any process of the mesh."""
    comm = distributed.sub_comm(tuple(sorted(set(mesh.owner))))
    return any(comm.allgather(bool(flag)))


def gather_devices(mesh, buffers: list) -> list:
    """Every device's buffer on every process (another process's slots
    filled in): for results joined into one global value."""
    procs = tuple(sorted(set(mesh.owner)))
    comm = distributed.sub_comm(procs)
    mine = {d: np.asarray(b) for d, b in enumerate(buffers) if mesh.owner[d] == mesh.me}
    out = list(buffers)
    for part in comm.allgather(mine):
        for d, b in part.items():
            out[d] = b
    return out
