"""psend and precv in the per-device runtime of shard_map bodies.

JAX 0.11 lowers them for GPUs only; pyjax runs them as a matched send and
receive. A psend exchanges at once, as ppermute does (each destination of
`perm` gets its source's buffer), and leaves the received buffers in the
run's mailbox under its (axes, perm); a precv with the same axes and perm
takes the earliest such delivery not yet taken. Devices no pair names as a
destination receive zeros. A precv with nothing to take raises: on devices
it would wait forever. One mailbox serves a whole shard_map run, nested
calls and loops included.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections import deque
from typing import Callable, Iterator

import numpy as np

from pyjax._src.avals import ShapedArray
from pyjax._src.lax import parallel_p2p
from pyjax._src.tokens import TOKEN_BUFFER

__all__ = ["IMPLS", "mailbox", "rules"]

_mailbox: contextvars.ContextVar = contextvars.ContextVar("p2p_mailbox", default=None)


@contextlib.contextmanager
def mailbox() -> Iterator[None]:
    """The deliveries of one shard_map run (a run nested in another shares its
    enclosing run's)."""
    if _mailbox.get() is not None:
        yield
        return
    token = _mailbox.set({})
    try:
        yield
    finally:
        _mailbox.reset(token)


def _group_perm(mesh, axis_name: tuple, perm: tuple, op_name: str) -> tuple:
    # XLA's reading of the pairs: indices modulo the group size, each source
    # and each destination at most once (JAX's message when lowering).
    size = len(mesh.groups(axis_name)[0])
    pairs = tuple((src % size, dst % size) for src, dst in perm)
    srcs, dsts = [p[0] for p in pairs], [p[1] for p in pairs]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(f"{op_name} sources and destinations must be unique, got {perm}.")
    return pairs


def rules(permute: Callable) -> dict:
    """psend's and precv's lockstep rules; `permute(mesh, xs, axis_name=,
    perm=)` is ppermute's exchange."""

    def psend(mesh, xs, *, axis_name, perm):
        pending = _mailbox.get()
        if pending is None:
            raise NotImplementedError("psend is currently only implemented on GPU")
        received = permute(mesh, xs, axis_name=axis_name, perm=_group_perm(mesh, axis_name, perm, "psend"))
        sent = set(d for group in mesh.groups(axis_name) for d in _destinations(group, mesh, axis_name, perm))
        pending.setdefault((axis_name, perm), deque()).append((received, sent))
        return [TOKEN_BUFFER] * mesh.n

    def precv(mesh, tokens, *, out_shape, axis_name, perm):
        pending = _mailbox.get()
        queue = None if pending is None else pending.get((axis_name, perm))
        if not queue:
            raise ValueError(
                f"precv over axes {axis_name} with perm {perm}: no psend over the same axes with the same perm "
                "ran before it, so on devices it would wait forever")
        _group_perm(mesh, axis_name, perm, "precv")
        received, sent = queue.popleft()
        out = []
        for d, buffer in enumerate(received):
            if buffer is None:  # (another process's device)
                out.append(None)
                continue
            buffer = np.asarray(buffer)
            if d in sent and (buffer.shape != out_shape.shape or buffer.dtype != out_shape.dtype):
                sent_type = ShapedArray(buffer.shape, buffer.dtype).str_short()
                raise TypeError(f"precv expects {out_shape.str_short()} but the matching psend sent {sent_type}")
            out.append(buffer if d in sent else np.zeros(out_shape.shape, out_shape.dtype))
        return out

    return {parallel_p2p.psend_p: psend, parallel_p2p.precv_p: precv}


def _destinations(group: list, mesh, axis_name: tuple, perm: tuple) -> list:
    size = len(group)
    return [group[dst % size] for _, dst in perm]


def _outside_shard_map(name: str):
    # What JAX 0.11 raises lowering them for CPU, outside a shard_map too.
    def impl(*args, **params):
        raise NotImplementedError(f"{name} is currently only implemented on GPU")

    return impl


IMPLS = {parallel_p2p.psend_p: _outside_shard_map("psend"), parallel_p2p.precv_p: _outside_shard_map("precv")}
