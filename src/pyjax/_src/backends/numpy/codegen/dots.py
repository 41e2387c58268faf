"""Products the compiled code calls BLAS for directly, without the dot_general impl.

The impl (impls/standard.py `_dot_general`) sorts out any dimension numbers
in Python: ~15 us a call before BLAS starts, as much as a 64x64x64 product
takes. For the common layouts the code generator (compile.py `_direct_dot`)
writes the BLAS call itself, on the same operand views the impl would pass,
so the results are bitwise the impl's:

- a matrix/vector product (no batch axes): `a.dot(b)` on transposed views
  where the contracting axes ask for them (`ndarray.dot` skips even
  `np.matmul`'s dispatch, ~0.5 us: it matters in a loop body run thousands
  of times), or `split.matmul` when the product is large enough to share;
- a product without batch axes of N-d operands or over several axes (a
  projection of (batch, seq, features) activations, a weight's gradient):
  the impl's transposes and (1, M, K) @ (1, K, N) reshapes (views where
  the axes merge, else the same copies) and its `split.matmul` call;
- a product of two rank-3 operands batched over their leading axes (vmapped
  attention heads, per-head products inside a tiled block): `np.matmul` on
  (batch, M, K) and (batch, K, N) views, or `split.matmul`, as the impl
  calls it (`out=` a tiled block's output slot). Products with nothing to
  sum (K = 1: the impl multiplies) or an empty axis keep the impl;
- a product batched over several axes (attention's (batch, heads) products,
  their operands strided head views): the views are the impl's own
  (`transposed_views`, decided on each call's strides), with the transposes
  and sizes fixed here, then `np.matmul` or `split.matmul`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from pyjax._src.backends.numpy.impls.standard import transposed_views

# dtypes ndarray.dot and np.matmul hand to BLAS alike.
BLAS_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))


def direct_dot(builder, eqn, in_avals: list) -> Callable | None:
    """The render function (compile.py's `_Instr`) of `eqn`'s product as a
    direct BLAS call, or None where the impl must run."""
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lhs, rhs = in_avals
    out_aval = eqn.outvars[0].aval
    if not lc or not lhs.dtype == rhs.dtype == out_aval.dtype or lhs.dtype not in BLAS_DTYPES:
        return None
    if not lb and lhs.ndim in (1, 2) and rhs.ndim in (1, 2) and len(lc) == 1:
        return _matrix_dot(builder, lhs, rhs, lc[0], rc[0])
    if not lb:
        return _flat_dot(builder, lhs, rhs, tuple(lc), tuple(rc), out_aval.shape)
    if len(lb) > 1:
        return _multi_batch_dot(builder, lhs, rhs, (tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)), out_aval.shape)
    if len(lc) != 1:
        return None
    if tuple(lb) != (0,) or tuple(rb) != (0,) or lhs.ndim != 3 or rhs.ndim != 3:
        return None
    if 0 in lhs.shape or 0 in rhs.shape or lhs.shape[lc[0]] == 1:
        return None
    # The impl's views: (batch, M, K) and (batch, K, N), transposed in place
    # where the contracting axis is elsewhere.
    lhs_t, rhs_t = lc[0] != 2, rc[0] != 1
    rows, contract, cols = lhs.shape[3 - lc[0]], lhs.shape[lc[0]], rhs.shape[3 - rc[0]]
    split = builder.tiers.split.matmul(rows, contract, cols, lhs.shape[0]) if builder.tiers.split else None
    fn = builder._function(split if split is not None else np.matmul, "split_matmul" if split else "np_matmul")

    def render(in_names, out_names, out_target=None):
        a, b = (f"{n}.transpose(0, 2, 1)" if t else n for n, t in zip(in_names, (lhs_t, rhs_t), strict=True))
        out = f", out={out_target}" if out_target is not None else ""
        return [f"{out_names[0]} = {fn}({a}, {b}{out})"]

    # np.matmul writes a block's output straight into its slice of the
    # region's result (compile.py `_write_outputs_in_place`: a C-contiguous
    # slot, so BLAS stores the same values there).
    render.writes_target = split is None
    return render


def _matrix_dot(builder, lhs, rhs, lc: int, rc: int) -> Callable:
    # Transposed views let BLAS read the operands in place, as the impl does.
    lhs_t = lc != lhs.ndim - 1
    rhs_t = rc != 0
    # A product large enough is split across the cores (parallel/split.py);
    # the shapes are static, so the choice is made here, once.
    matmul = (builder.tiers.split.matmul(lhs.shape[1 - lc], lhs.shape[lc], rhs.shape[1 - rc])
              if lhs.ndim == rhs.ndim == 2 and builder.tiers.split else None)
    split = matmul is not None
    split_fn = builder._function(matmul, "split_matmul") if split else None

    def render(in_names, out_names):
        # Operands of rank >= 1 are ndarrays here (inputs, consts and
        # results; only scalars are NumPy scalars or literals).
        a, b = (f"{n}.T" if t else n for n, t in zip(in_names, (lhs_t, rhs_t), strict=True))
        return [f"{out_names[0]} = {split_fn}({a}, {b})" if split else f"{out_names[0]} = {a}.dot({b})"]

    return render


def _flat_dot(builder, lhs, rhs, lc: tuple, rc: tuple, out_shape: tuple) -> Callable | None:
    # No batch axes, N-d operands or several contracting axes (a projection
    # of (batch, seq, features) activations, a weight's gradient summed over
    # batch and sequence): the impl's general path, its transposes and its
    # (1, M, K) @ (1, K, N) reshapes (views where the axes merge, else the
    # same copies), then `split.matmul` as the impl calls it.
    if 0 in lhs.shape or 0 in rhs.shape:
        return None
    lhs_free = [d for d in range(lhs.ndim) if d not in lc]
    rhs_free = [d for d in range(rhs.ndim) if d not in rc]
    contract = math.prod(lhs.shape[d] for d in lc)
    if contract == 1:
        return None  # (the impl multiplies)
    rows, cols = math.prod(lhs.shape[d] for d in lhs_free), math.prod(rhs.shape[d] for d in rhs_free)
    lhs_perm, rhs_perm = (*lhs_free, *lc), (*rc, *rhs_free)
    split = builder.tiers.split.matmul(rows, contract, cols, 1) if builder.tiers.split else None
    fn = builder._function(split if split is not None else np.matmul, "split_matmul" if split else "np_matmul")

    def operand(name: str, perm: tuple, shape: tuple) -> str:
        moved = f"{name}.transpose({perm})" if perm != tuple(range(len(perm))) else name
        return f"{moved}.reshape({shape})"

    def render(in_names, out_names):
        a = operand(in_names[0], lhs_perm, (1, rows, contract))
        b = operand(in_names[1], rhs_perm, (1, contract, cols))
        return [f"{out_names[0]} = {fn}({a}, {b}).reshape({tuple(out_shape)})"]

    return render


def _multi_batch_dot(builder, lhs, rhs, contracting: tuple, batching: tuple, out_shape: tuple) -> Callable | None:
    # Several batch axes: the impl's transposes to (*batch, M, K) and
    # (*batch, K, N), its views of them (apart where the batch axes do not
    # merge, chosen on each call's strides) or its (batch, M, K) reshapes.
    (lc, rc), (lb, rb) = contracting, batching
    if 0 in lhs.shape or 0 in rhs.shape:
        return None
    lhs_free = [d for d in range(lhs.ndim) if d not in lc and d not in lb]
    rhs_free = [d for d in range(rhs.ndim) if d not in rc and d not in rb]
    contract = math.prod(lhs.shape[d] for d in lc)
    if contract == 1:
        return None  # (the impl multiplies)
    batch_shape = tuple(lhs.shape[d] for d in lb)
    rows, cols = math.prod(lhs.shape[d] for d in lhs_free), math.prod(rhs.shape[d] for d in rhs_free)
    lhs_perm, rhs_perm, batch = (*lb, *lhs_free, *lc), (*rb, *rc, *rhs_free), math.prod(batch_shape)

    def views(lhs, rhs):
        a, b = lhs.transpose(lhs_perm), rhs.transpose(rhs_perm)
        apart = transposed_views(a, b, batch_shape, batch, rows, contract, cols)
        return apart if apart is not None else (a.reshape(batch, rows, contract), b.reshape(batch, contract, cols))

    split = builder.tiers.split.matmul(rows, contract, cols, batch) if builder.tiers.split else None
    fn = builder._function(split if split is not None else np.matmul, "split_matmul" if split else "np_matmul")
    views_fn = builder._function(views, "head_views")

    def render(in_names, out_names):
        return [f"{out_names[0]} = {fn}(*{views_fn}({in_names[0]}, {in_names[1]})).reshape({tuple(out_shape)})"]

    return render
