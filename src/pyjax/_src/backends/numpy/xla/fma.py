"""The NumPy backend's fused multiply-add: ``a * b + c`` with one rounding.

XLA's CPU compiler lets LLVM contract a multiply whose only use (inside one
fused loop) is an add or subtract into a fused multiply-add (rewrite.py
`_contract_multiply_adds` decides where). NumPy has no such ufunc, so the
rewrite puts the backend-private primitive `fma` in the jaxpr it compiles;
it never appears in a user's jaxpr and needs only an abstract evaluation
(for the compiler's bookkeeping) and an impl.

The impl is exact, elementwise and vectorised:

- float32: the product of two float32 values is exact in float64, so
  ``p + c`` in float64 is the true sum rounded once. Rounding that to
  float32 rounds a second time; the two agree except when the float64 sum
  lands exactly on a float32 tie it was not (about one sum in 2**29 on
  random inputs, far more often on whole numbers). Those elements are
  rounded to odd first (the float64 sum nudged towards the exact one, whose
  error Knuth's two-sum gives), which makes the second rounding the single
  correct one.
- float64: xla_math's error-free emulation (Dekker's product, Knuth's sum).

Also XLA's orders of other products: sums along rows (`row_dot`), tiny
dots (`tiny_dot`), and integer_pow's squarings (`by_squaring`, which the
impl and native code share).
"""

from __future__ import annotations

import math
import threading

import numpy as np

from pyjax._src.avals import ShapedArray
from pyjax._src.backends.numpy.xla import xla_math
from pyjax._src.core import Primitive

__all__ = ["by_squaring", "complex_multiply", "fma_f32", "fma_p", "fused_multiply_add", "row_dot", "row_dot_p", "tiny_dot", "tiny_dot_p"]

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)

# The low 29 of float64's 52 mantissa bits are the ones float32 drops; a
# float64 value is a float32 tie when they read 1 followed by zeros.
_DROPPED = np.uint64((1 << 29) - 1)
_TIE = np.uint64(1 << 28)
# Up to _SMALL elements: one pass per operation, the fewest NumPy calls.
# Larger: by blocks of _BLOCK elements, whose two float64 buffers (2 MB)
# stay in cache (10M float32 values: 12 ms, against 7.6 for NumPy's two
# roundings; 16K-element blocks: 17 ms, whole-array passes: 35 ms).
_SMALL = 1 << 14
_BLOCK = 1 << 17
_local = threading.local()

# Elementwise, broadcasting (NumPy arithmetic), and a fusion consumer as the
# multiply-adds it replaces were.
fma_p = Primitive("fma").declare(elementwise=True, broadcasting=True, fusible=True, cost="cheap")


def _fma_abstract_eval(a, b, c, **params):
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape)
    return ShapedArray(shape, c.dtype if c.shape == shape else a.dtype)


fma_p.def_abstract_eval(_fma_abstract_eval)


def fma_f32(a, b, c) -> np.ndarray:
    """``a * b + c`` of float32 values (broadcast), rounded once to float32."""
    a, b, c = (np.asarray(v, _F32) for v in (a, b, c))
    shapes = {a.shape, b.shape, c.shape}
    shapes.discard(())
    shape = shapes.pop() if len(shapes) == 1 else () if not shapes else np.broadcast_shapes(a.shape, b.shape, c.shape)
    if math.prod(shape) <= _SMALL:
        return _fma_f32_small(a, b, c)
    out = np.empty(shape, _F32)
    # Flat operands (a 0-d one a float64 scalar), by blocks whose float64
    # temporaries stay in cache. Not split across cores (split.py): like an
    # add, it is bound by memory traffic (10M elements: no faster split in
    # two, and a 400K-element one slower).
    # (An operand of one element, a scalar or lax's size-1 broadcast, is one value.)
    flat = [v.astype(_F64).reshape(())[()] if v.size == 1 else np.broadcast_to(v, shape).reshape(-1)
            for v in (a, b, c)]
    _fma_f32_blocks(*flat, out.reshape(-1))
    return out


def _fma_f32_small(a, b, c):
    # One pass per operation; the ties (few, but in a fifth of the calls of
    # an ODE step on whole-ish numbers) rounded to odd over the whole, small,
    # array, the same arithmetic as `_round_ties_to_odd` on the ties alone.
    p = np.multiply(a, b, dtype=_F64)  # exact: 24 + 24 significant bits
    total = np.add(p, c, dtype=_F64)
    bits = np.asarray(total).view(np.uint64)
    ties = np.equal(np.bitwise_and(bits, _DROPPED), _TIE)
    if ties.any():
        with np.errstate(all="ignore"):
            c_part = total - p
            error = (p - (total - c_part)) + (c - c_part)
        nudge = ties & np.isfinite(total) & (error != 0)
        total = np.where(nudge, np.nextafter(total, np.where(error > 0, np.inf, -np.inf)), total)
    return np.asarray(total).astype(_F32)[()]


def _fma_f32_blocks(a, b, c, out: np.ndarray) -> None:
    total, other = _buffers()
    for i in range(0, out.size, _BLOCK):
        j = min(i + _BLOCK, out.size)
        s, o = total[:j - i], other[:j - i]
        ai, bi, ci = (v if np.ndim(v) == 0 else v[i:j] for v in (a, b, c))
        # Casting copies, then float64 arithmetic: faster than casting ufunc loops.
        x, y = (bi, ai) if np.ndim(ai) == 0 else (ai, bi)
        np.copyto(s, x)
        if np.ndim(y):
            np.copyto(o, y)
            y = o
        np.multiply(s, y, out=s)
        z = ci
        if np.ndim(z):
            np.copyto(o, z)
            z = o
        np.add(s, z, out=s)
        _fix_ties(s, (ai, bi, ci), s.shape)
        np.copyto(out[i:j], s, casting="same_kind")


def _buffers() -> tuple[np.ndarray, np.ndarray]:
    # Two float64 blocks per thread, kept: a fresh 1 MB array is new pages
    # (the allocator maps them), whose first touch costs more than the work.
    buffers = getattr(_local, "buffers", None)
    if buffers is None:
        buffers = _local.buffers = (np.empty(_BLOCK, _F64), np.empty(_BLOCK, _F64))
    return buffers


def _fix_ties(total: np.ndarray, operands: tuple, shape: tuple) -> None:
    # `total`: the float64 sums of a * b + c (1-d, contiguous), the operands
    # broadcasting to `shape` (total's before flattening).
    ties = np.equal(np.bitwise_and(total.view(np.uint64), _DROPPED), _TIE)
    if ties.any():
        _round_ties_to_odd(total, ties, operands, shape)


def _round_ties_to_odd(total: np.ndarray, ties: np.ndarray, operands: tuple, shape: tuple) -> None:
    # Where the rounded sum is inexact, move it one float64 step towards the
    # exact sum: no longer a float32 tie, it rounds to float32 as the exact
    # sum does. (An exact sum on a tie is a true tie: round-to-even is right.)
    (where,) = np.nonzero(ties)
    a, b, c = (np.broadcast_to(v, shape).reshape(-1)[where].astype(_F64) for v in operands)
    s, p = total[where], a * b
    with np.errstate(all="ignore"):
        c_part = s - p
        error = (p - (s - c_part)) + (c - c_part)
    towards = np.where(error > 0, np.inf, -np.inf)
    total[where] = np.where(np.isfinite(s) & (error != 0), np.nextafter(s, towards), s)


def fused_multiply_add(a, b, c, *, negate_product: bool = False, negate_addend: bool = False) -> np.ndarray:
    """The `fma` impl: ``(±a) * b + (±c)`` rounded once, in the operands' float dtype."""
    dtype = _dtype_of(a, b, c)
    a, c = np.asarray(a, dtype), np.asarray(c, dtype)
    if negate_product:
        a = np.negative(a)
    if negate_addend:
        c = np.negative(c)
    if dtype == _F32:
        return fma_f32(a, b, c)
    out = xla_math.fma_f64(a, b, c)
    return out if np.ndim(out) else out[()]


def complex_multiply(x, y) -> np.ndarray:
    """``x * y`` of complex64/complex128 values as XLA's CPU code computes it.

    XLA expands the product into real arithmetic, and LLVM contracts both
    parts: ``re = fma(a, c, -(b * d))``, ``im = fma(b, c, a * d)`` for
    ``x = a + bi``, ``y = c + di`` (measured against JAX 0.11.0, eager and
    jitted; NumPy rounds every product and differs in about a third of the
    elements). Not yet the `mul` impl's (impls.py); recorded in fma.json."""
    x, y = np.asarray(x), np.asarray(y)
    dtype = np.result_type(x, y)
    x, y = x.astype(dtype, copy=False), y.astype(dtype, copy=False)
    part = np.dtype(f"f{dtype.itemsize // 2}")
    fma = fma_f32 if part == _F32 else xla_math.fma_f64
    a, b, c, d = x.real, x.imag, y.real, y.imag
    with np.errstate(all="ignore"):
        out = np.empty(np.broadcast_shapes(x.shape, y.shape), dtype)
        out.real = fma(a, c, -(b * d))
        out.imag = fma(b, c, a * d)
    return out if out.ndim else out[()]


def _dtype_of(*operands) -> np.dtype:
    # The rewrite hands over literals in the result's dtype, so any operand
    # with a float dtype names it.
    for v in operands:
        dtype = getattr(v, "dtype", None)
        if dtype is not None and dtype.kind == "f":
            return np.dtype(dtype)
    raise TypeError(f"fma: no float32/float64 operand among {[type(v).__name__ for v in operands]}")


fused_multiply_add.dtype_exact = True
fused_multiply_add.fresh_result = True

IMPLS: dict = {fma_p: fused_multiply_add}


# --- short reductions of products and tiny dots ------------------------------
#
# XLA's CPU compiler emits a reduction of a fused product over a short row,
# and a dot whose operands are tiny, as plain loops that LLVM contracts: each
# step is one fused multiply-add into the accumulator, in index order
# (measured against JAX 0.11.0: rewrite.py `_small_reductions` and
# `_tiny_dots` say for which shapes). NumPy rounds each product and sums
# pairwise or through BLAS; these primitives compute XLA's chain instead.

row_dot_p = Primitive("row_dot")
tiny_dot_p = Primitive("tiny_dot")


def _row_dot_abstract_eval(a, b, *, square):
    shape = np.broadcast_shapes(a.shape, b.shape)
    return ShapedArray(shape[:-1], a.dtype if a.shape == shape else b.dtype)


def _tiny_dot_abstract_eval(lhs, rhs, *, dimension_numbers):
    (lc, rc), _ = dimension_numbers
    free = [d for i, d in enumerate(lhs.shape) if i not in lc] + [d for i, d in enumerate(rhs.shape) if i not in rc]
    return ShapedArray(tuple(free), lhs.dtype)


row_dot_p.def_abstract_eval(_row_dot_abstract_eval)
tiny_dot_p.def_abstract_eval(_tiny_dot_abstract_eval)


def _fma_chain(a: np.ndarray, b: np.ndarray, order) -> np.ndarray:
    # sum_k a[..., k] * b[..., k], each step one fused multiply-add into the
    # accumulator (which starts at +0, XLA's reduction init value).
    dtype = np.result_type(a, b)
    fma = fma_f32 if dtype == _F32 else xla_math.fma_f64
    a, b = np.broadcast_arrays(a, b)
    acc = np.zeros(a.shape[:-1], dtype)
    for k in order:
        acc = np.asarray(fma(a[..., k], b[..., k], acc), dtype)
    return acc


def row_dot(a, b, *, square: bool) -> np.ndarray:
    """The `row_dot` impl: ``sum(a * b, axis=-1)`` as XLA's loop computes it.

    `square` (the product is ``x * x``): LLVM first folds ``0 + x0*x0`` into
    ``x0*x0`` (a square is never -0), then contracts ``x0*x0 + x1*x1`` as
    ``fma(x0, x0, round(x1*x1))``: the first two steps swap."""
    a, b = np.asarray(a), np.asarray(b)
    n = np.broadcast_shapes(a.shape, b.shape)[-1]
    order = list(range(n))
    if square and n >= 2:
        order[0], order[1] = 1, 0
    out = _fma_chain(a, b, order)
    return out if out.ndim else out[()]


def tiny_dot(lhs, rhs, *, dimension_numbers) -> np.ndarray:
    """The `tiny_dot` impl: a dot_general without batch dimensions and with
    one contracting dimension, as XLA's naive loop computes it (one fused
    multiply-add per contracting index, in order)."""
    (lc, rc), _ = dimension_numbers
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    a = np.moveaxis(lhs, lc[0], -1)
    b = np.moveaxis(rhs, rc[0], -1)
    k = a.shape[-1]
    # Output axes: lhs's free ones, then rhs's.
    a = a.reshape(a.shape[:-1] + (1,) * (b.ndim - 1) + (k,))
    out = _fma_chain(a, b, range(k))
    return out if out.ndim else out[()]


for _impl in (row_dot, tiny_dot):
    _impl.dtype_exact = True
    _impl.fresh_result = True

IMPLS.update({row_dot_p: row_dot, tiny_dot_p: tiny_dot})


def by_squaring(x, n: int, multiply):
    """x ** n (n >= 1) in XLA's order of products for integer_pow, by
    repeated squaring: `acc * x` where bit k of n is set, x squared between
    bits; `multiply(a, b)` makes each product (NumPy's multiply in the impl;
    kernel calls or C expressions in native code, native/ops.py)."""
    acc = None
    while n:
        if n & 1:
            acc = x if acc is None else multiply(acc, x)
        n >>= 1
        if n:
            x = multiply(x, x)
    return acc
