"""Control flow whose body holds collectives, run in lockstep over devices.

A collective pairs up the devices of its group, so every device must reach
it together: a `scan` (its trip count is static) always can; a `while` or a
`cond` can when its predicate is the same on every device. A predicate
typed device-invariant (no `{V:...}` in its type) is so by construction; one
that may vary is refused with an error naming the fix (JAX itself hangs in
the collective's rendezvous there). Without `check_vma` the predicates are
compared when the loop runs. A batched predicate (a vmap of the loop) runs
while any lane of any device holds, each lane keeping its carry once done,
as the unsharded vmap computes.

Control flow without collectives never comes here: it runs per device.
Control flow whose only "collectives" exchange nothing (the `pvary` cast,
`axis_index`) comes here but may diverge: with a varying predicate each
device runs it alone, seeing its own coordinates.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from pyjax._src.backends.numpy.impls import spmd_mpi

__all__ = ["RULES"]

_LOCAL = ("pvary", "axis_index")  # collectives that exchange no data


def _communicates(jaxprs) -> bool:
    for jaxpr in jaxprs:
        for eqn in jaxpr.eqns:
            if getattr(eqn.primitive, "is_collective", False) and eqn.primitive.name not in _LOCAL:
                return True
            subs = [s for v in eqn.params.values() for s in (v if type(v) in (tuple, list) else (v,))
                    if hasattr(s, "eqns")]
            if _communicates(subs):
                return True
    return False


class _OneDevice:
    """One device of the mesh seen alone (by a body that exchanges nothing)."""

    n = 1
    local = [0]
    spans = False

    def __init__(self, mesh, device: int) -> None:
        self.mesh, self.device = mesh, device

    def index(self, device: int, axes: tuple) -> int:
        return self.mesh.index(self.device, axes)

    def groups(self, axes: tuple) -> list[list[int]]:
        return [[0]]


def _each_device(rule: Callable, run: Callable, eqn, mesh, ins: list[list], impls: dict) -> list[list]:
    # The devices go their own ways: each runs the equation alone.
    results = [rule(run, eqn, _OneDevice(mesh, d), [[x[d]] for x in ins], impls) if d in mesh.local else None
               for d in range(mesh.n)]
    return [[None if r is None else r[k][0] for r in results] for k in range(len(eqn.outvars))]


def _varying_error(what: str, aval) -> ValueError:
    return ValueError(
        f"shard_map: a {what} whose body holds collectives has a predicate that may differ between devices "
        f"(its type is {aval.str_short(False)}): the devices would not reach the "
        "collectives together. Make the predicate device-invariant (e.g. reduce it with lax.pmax/psum over "
        "those axes first) or move the collectives out of the loop or branches.")


def _disagree_error(what: str, values) -> ValueError:
    return ValueError(
        f"shard_map: a {what} whose body holds collectives got different predicates on different devices "
        f"({[v.tolist() for v in values]}): the devices would not reach the collectives together. Make the "
        "predicate device-invariant (e.g. reduce it with lax.pmax/psum first) or move the collectives out.")


def _agreed(what: str, values: list, mesh=None) -> np.ndarray:
    values = [np.asarray(v) for v in values if v is not None]  # (None: another process's device)
    if any(not np.array_equal(values[0], v) for v in values[1:]):
        raise _disagree_error(what, values)
    if getattr(mesh, "spans", False):
        return spmd_mpi.agree(mesh, what, values[0])
    return values[0]


def _cond(run: Callable, eqn, mesh, ins: list[list], impls: dict) -> list[list]:
    branches = eqn.params["branches"]
    index_aval = eqn.invars[0].aval
    if not _communicates(branches):
        preds = [ins[0][d] for d in mesh.local]
        if any(not np.array_equal(preds[0], k) for k in preds[1:]) or getattr(mesh, "spans", False):
            return _each_device(_cond, run, eqn, mesh, ins, impls)
    elif getattr(index_aval, "vma", ()):
        raise _varying_error("cond", index_aval)
    k = int(_agreed("cond", ins[0], mesh))
    branch = branches[k if 0 <= k < len(branches) else len(branches) - 1]  # XLA clamps the index
    return run(branch, mesh, ins[1:], impls)


def _while(run: Callable, eqn, mesh, ins: list[list], impls: dict) -> list[list]:
    p = eqn.params
    cond_jaxpr, body_jaxpr = p["cond_jaxpr"], p["body_jaxpr"]
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    pred_aval = cond_jaxpr.out_avals[0]
    if mesh.n > 1 and not _communicates([cond_jaxpr, body_jaxpr]):
        return _each_device(_while, run, eqn, mesh, ins, impls)
    if getattr(pred_aval, "vma", ()):
        raise _varying_error("while_loop", pred_aval)
    cond_consts, body_consts, carry = ins[:nc], ins[nc:nc + nb], list(ins[nc + nb:])
    batched = bool(pred_aval.shape)
    while True:
        preds = [None if v is None else np.asarray(v) for v in run(cond_jaxpr, mesh, cond_consts + carry, impls)[0]]
        if not batched:
            if not _agreed("while_loop", preds, mesh):
                return carry
            carry = run(body_jaxpr, mesh, body_consts + carry, impls)
            continue
        live = any(pr.any() for pr in preds if pr is not None)
        if getattr(mesh, "spans", False):
            live = spmd_mpi.any_process(mesh, live)
        if not live:
            return carry
        new = run(body_jaxpr, mesh, body_consts + carry, impls)
        # Lanes whose predicate is false keep their carry (the predicate's
        # shape is a prefix of every carry's shape).
        carry = [[None if pr is None else np.where(pr.reshape(pr.shape + (1,) * (np.ndim(c) - pr.ndim)), n, c)
                  for pr, n, c in zip(preds, ns, cs)] for ns, cs in zip(new, carry)]


def _scan(run: Callable, eqn, mesh, ins: list[list], impls: dict) -> list[list]:
    p = eqn.params
    consts, carry, _ = p["ft_in"].unpack()
    nc, nk = len(consts), len(carry)
    length, body = p["length"], p["jaxpr"]
    const_ins, carry_ins, xs = ins[:nc], list(ins[nc:nc + nk]), ins[nc + nk:]
    xs = [[None if b is None else np.asarray(b) for b in x] for x in xs]
    ny = len(body.outvars) - nk
    ys: list = [[None] * length for _ in range(ny)]
    steps = range(length - 1, -1, -1) if p["reverse"] else range(length)
    for i in steps:
        outs = run(body, mesh, const_ins + carry_ins + [[None if b is None else b[i] for b in x] for x in xs], impls)
        carry_ins = outs[:nk]
        for k in range(ny):
            ys[k][i] = outs[nk + k]
    stacked = []
    for k, aval in enumerate(body.out_avals[nk:]):
        stacked.append([None if d not in mesh.local else np.stack([np.asarray(ys[k][i][d]) for i in range(length)])
                        if length else np.empty((0, *aval.shape), aval.dtype) for d in range(mesh.n)])
    return carry_ins + stacked


# primitive name -> rule(run_lockstep, eqn, mesh, per-device inputs, impls) -> per-device outputs
RULES: dict = {"cond": _cond, "while": _while, "scan": _scan}
