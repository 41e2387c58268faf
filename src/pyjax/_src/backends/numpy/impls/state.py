"""Mutable array references on NumPy: a reference's buffer is a RefBuffer
whose array the write primitives overwrite in place."""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src import ref_primitives as rp
from pyjax._src.ref_types import RefBuffer, indexer_numpy_index

IMPLS: dict = {}


def _array(x) -> np.ndarray:
    if type(x) in (bool, int, float, complex):  # a weak Python scalar: its canonical dtype
        return np.array(x, dtypes.canonicalize_dtype(dtypes.python_scalar_types_to_dtypes[type(x)]))
    return np.array(x, copy=True)


def _index(tree, idx) -> tuple:
    return (...,) if tree is None else indexer_numpy_index(tree, idx)


def _get(buf: RefBuffer, *idx, tree):
    return np.array(buf.value[_index(tree, idx)], copy=True)


def _swap(buf: RefBuffer, value, *idx, tree):
    where = _index(tree, idx)
    old = np.array(buf.value[where], copy=True)
    buf.value[where] = value
    return old


def _addupdate(buf: RefBuffer, value, *idx, tree):
    where = _index(tree, idx)
    if any(isinstance(i, np.ndarray) for i in where):
        np.add.at(buf.value, where, value)  # repeated indices accumulate, as a scatter-add does
    else:
        buf.value[where] += value
    return []


IMPLS[rp.new_ref_p] = lambda x, *, memory_space, kind: RefBuffer(_array(x))
IMPLS[rp.freeze_p] = lambda buf: np.array(buf.value, copy=True)
IMPLS[rp.get_p] = _get
IMPLS[rp.swap_p] = _swap
IMPLS[rp.addupdate_p] = _addupdate
IMPLS[rp.free_ref_p] = lambda buf: []
# An empty reference's contents are unspecified: zeros here (JAX's eager
# empty_ref has no evaluation rule; under jit its buffer is uninitialised).
IMPLS[rp.empty_ref_p] = lambda *, ty, memory_space: RefBuffer(np.zeros(ty.shape, ty.dtype))
