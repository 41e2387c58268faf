"""NumPy impl of conv_general_dilated, and the window helpers the windowed
reductions share.

A convolution is computed as XLA defines it, vectorised, with the features
as the minor axis (as XLA:CPU's Eigen convolution lays them out):

1. put the input in (N, spatial..., C) and the kernel in (O, I, spatial...)
   order (the dimension numbers' permutations);
2. dilate and pad the input in one copy (`dilate_and_pad`: holes and padding
   are zeros, negative padding crops);
3. view every window (`window_view`: a strided view; window strides and rhs
   dilation are steps of that view, nothing is copied);
4. per feature group or batch group, one matmul of the flattened windows
   (im2col, taps major and features minor: the copy reads runs of adjacent
   taps' features, contiguous after step 2) with the flattened kernel. The
   result comes out as (N, spatial..., O), which is the output itself for
   the feature-last layouts (NHWC) and their gradients.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

from pyjax._src import dtypes
from pyjax._src.backends.numpy.parallel import split as split_lib
from pyjax._src.lax import convolution as conv_lax

IMPLS: dict = {}


# ---------------------------------------------------------------------------
# Window helpers (shared with the windowed reductions)


def dilate_and_pad(x: np.ndarray, dilation: Sequence[int], padding: Sequence[tuple[int, int]], fill) -> np.ndarray:
    """`x` with `dilation - 1` holes between elements and (low, high) padding
    on every axis, holes and padding set to `fill`; negative padding removes
    elements (XLA's Pad with interior padding, in one copy)."""
    if all(r == 1 for r in dilation) and all(lo == 0 and hi == 0 for lo, hi in padding):
        return x
    dilated = [0 if d == 0 else (d - 1) * r + 1 for d, r in zip(x.shape, dilation, strict=True)]
    final = [d + lo + hi for d, (lo, hi) in zip(dilated, padding, strict=True)]
    if all(r == 1 for r in dilation) and all(lo >= 0 and hi >= 0 for lo, hi in padding) and x.size:
        # No holes: fill only the borders around the copy (one pass, not two).
        out = np.empty(final, dtype=x.dtype)
        out[tuple(slice(lo, lo + d) for d, (lo, _) in zip(x.shape, padding, strict=True))] = x
        for axis, (lo, hi) in enumerate(padding):
            if lo:
                out[(slice(None),) * axis + (slice(0, lo),)] = fill
            if hi:
                out[(slice(None),) * axis + (slice(final[axis] - hi, final[axis]),)] = fill
        return out
    out = np.full(final, fill, dtype=x.dtype)
    source, target = [], []
    for size, r, (lo, _), length in zip(x.shape, dilation, padding, final, strict=True):
        # Input element j lands at lo + j * r; keep the j that land inside.
        first = max(0, -(lo // r)) if lo < 0 else 0
        last = min(size - 1, (length - 1 - lo) // r) if length > 0 else -1
        if last < first:
            return out
        source.append(slice(first, last + 1))
        target.append(slice(lo + first * r, lo + last * r + 1, r))
    out[tuple(target)] = x[tuple(source)]
    return out


def window_view(x: np.ndarray, axes: Sequence[int], window: Sequence[int], strides: Sequence[int],
                window_dilation: Sequence[int]) -> np.ndarray | None:
    """A read-only strided view of every window of `x` over `axes`: shape
    (x's shape with each of `axes` replaced by its number of windows, then
    the window's sizes). None when some axis holds no window at all."""
    effective = [(w - 1) * r + 1 for w, r in zip(window, window_dilation, strict=True)]
    if any(x.shape[a] < e for a, e in zip(axes, effective, strict=True)):
        return None
    # (as_strided directly: sliding_window_view then a strided slice made the
    # same view with several times the Python work, per convolution call)
    shape, steps = list(x.shape), list(x.strides)
    for a, e, s in zip(axes, effective, strides, strict=True):
        shape[a], steps[a] = (x.shape[a] - e) // s + 1, x.strides[a] * s
    shape += window
    steps += [x.strides[a] * r for a, r in zip(axes, window_dilation, strict=True)]
    return as_strided(x, tuple(shape), tuple(steps), writeable=False)


# ---------------------------------------------------------------------------
# conv_general_dilated


def _compute_dtype(input_dtype: np.dtype, out_dtype: np.dtype) -> np.dtype:
    # Accumulate as XLA does on the CPU: half floats in float32, integers in a
    # wide integer (the final cast wraps exactly as a narrow accumulator would).
    if out_dtype == np.bool_:
        return np.dtype(np.bool_)
    if dtypes.issubdtype(out_dtype, np.integer):
        return np.dtype(np.int64)
    if dtypes.issubdtype(out_dtype, np.floating) and np.dtype(out_dtype).itemsize < 4:
        return np.dtype(np.float32)
    return np.dtype(out_dtype)


def _conv_general_dilated(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                          feature_group_count, batch_group_count, precision, preferred_element_type,
                          out_sharding):
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    out_dtype = np.dtype(preferred_element_type) if preferred_element_type is not None else lhs.dtype
    compute = _compute_dtype(lhs.dtype, out_dtype)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    spatial = lhs.ndim - 2
    if feature_group_count == batch_group_count == 1 and _batch_minor(lhs_spec):
        return _conv_batch_minor(lhs.astype(compute, copy=False), rhs.astype(compute, copy=False),
                                 dimension_numbers, window_strides, padding, lhs_dilation, rhs_dilation
                                 ).astype(out_dtype, copy=False)
    # (N, spatial..., C): the features minor, so that padding writes and the
    # im2col copy reads them contiguously.
    x = np.transpose(lhs, (lhs_spec[0], *lhs_spec[2:], lhs_spec[1])).astype(compute, copy=False)
    kernel = np.transpose(rhs, rhs_spec).astype(compute, copy=False)
    out_shape = _output_shape(lhs.shape, rhs.shape, tuple(window_strides), tuple(map(tuple, padding)),
                              tuple(lhs_dilation), tuple(rhs_dilation), dimension_numbers, batch_group_count)
    if math.prod(out_shape) == 0:
        return np.zeros(out_shape, out_dtype)
    result = None
    if feature_group_count == batch_group_count == 1 and _native_geometry(x, lhs_dilation, padding):
        out_space = tuple(out_shape[i] for i in out_spec[2:])
        geometry = (kernel.shape[2:], out_space, tuple(window_strides), tuple(rhs_dilation), tuple(map(tuple, padding)))
        result = _native_conv(x, kernel, geometry)
    if result is None:
        x = dilate_and_pad(x, (1, *lhs_dilation, 1), ((0, 0), *padding, (0, 0)), 0)
        windows = window_view(x, tuple(range(1, 1 + spatial)), kernel.shape[2:], window_strides, rhs_dilation)
        if windows is None:
            return np.zeros(out_shape, out_dtype)
        result = _grouped_matmul(windows, kernel, feature_group_count, batch_group_count)
    # result is (N, spatial..., O); the logical (N, O, spatial...) order is
    # `feature_last`, and out_spec's inverse places it.
    return result.transpose(_placing((0, spatial + 1, *range(1, spatial + 1)), tuple(out_spec))).astype(
        out_dtype, copy=False)


@functools.lru_cache(maxsize=64)
def _placing(axis_of: tuple, out_spec: tuple) -> tuple:
    # The transpose putting a result whose logical axis k is `axis_of[k]`
    # where out_spec says (~4 us a call through np.argsort: cached).
    return tuple(axis_of[i] for i in np.argsort(out_spec))


# Up to this many bytes of batch rows per position (one or two float32
# channels), the batch-minor patch matrix is copied transposed: its runs
# would be a few elements long (docs/performance.md).
_SHORT_RUN_BYTES = 8


def _batch_minor(lhs_spec) -> bool:
    """Whether the lhs holds its features before its batch (`_conv_batch_minor`)."""
    return lhs_spec[1] < lhs_spec[0]


def _conv_batch_minor(lhs, rhs, dimension_numbers, window_strides, padding, lhs_dilation, rhs_dilation):
    """A convolution whose lhs holds its features before its batch (a kernel's
    gradient: the input with batch and features swapped, its "kernel" the
    output's cotangent), in that order: (F, spatial..., B), the lhs's own
    layout for NHWC programs. The patch matrix Q[(f, k...), (p..., b)] =
    x[f, p * stride + k * dilation, b] is copied in runs of adjacent output
    positions' batch rows, and the result is Q^T @ R with R = rhs as
    (I, k..., O): (p..., b, O), the output itself for HWIO kernel gradients.
    No operand is transposed in memory for NHWC programs."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    spatial = lhs.ndim - 2
    x = np.transpose(lhs, (lhs_spec[1], *lhs_spec[2:], lhs_spec[0]))
    kernel = np.transpose(rhs, (rhs_spec[1], *rhs_spec[2:], rhs_spec[0]))  # (I, k..., O)
    f, b, o = x.shape[0], x.shape[-1], kernel.shape[-1]
    ks = kernel.shape[1:-1]
    dims = [((d - 1) * r + 1 if d else 0) + lo + hi for d, r, (lo, hi) in zip(x.shape[1:-1], lhs_dilation, padding)]
    out_space = tuple(max(0, (d - (k - 1) * r - 1) // s + 1)
                      for d, k, r, s in zip(dims, ks, rhs_dilation, window_strides, strict=True))
    patches = None
    direct = _direct_grad(x, kernel, out_space, ks, dimension_numbers, window_strides, padding, lhs_dilation,
                          rhs_dilation)
    if direct is not None:
        result = direct.reshape(*out_space, b, o)
        axis_of = (spatial, spatial + 1, *range(spatial))
        return result.transpose(_placing(axis_of, tuple(out_spec)))
    if math.prod(out_space) and b * x.itemsize > _SHORT_RUN_BYTES and _native_geometry(x, lhs_dilation, padding):
        # Q is the patch matrix of x with the output's positions as its kernel.
        geometry = (out_space, ks, tuple(rhs_dilation), tuple(window_strides), tuple(map(tuple, padding)))
        patches = _native_patches(x, geometry)
    if patches is not None:
        patches = patches.T
    elif math.prod(out_space):
        x = dilate_and_pad(x, (1, *lhs_dilation, 1), ((0, 0), *padding, (0, 0)), 0)
        # Windows over the output positions, one per kernel tap: (F, k..., B, p...).
        view = window_view(x, range(1, 1 + spatial), out_space, rhs_dilation, window_strides)
        view = view[(slice(None), *(slice(0, k) for k in ks))] if view is not None else None
        if view is None:
            pass
        elif b * x.itemsize <= _SHORT_RUN_BYTES:
            # A few batch rows (a first layer's one input channel): runs of
            # adjacent positions' rows would be a few floats long; Q^T is
            # copied instead, in runs along the kernel's last axis, and
            # multiplied as it is.
            order = (*range(2 + spatial, 2 + 2 * spatial), 1 + spatial, 0, *range(1, 1 + spatial))
            patches = view.transpose(order).reshape(math.prod(out_space) * b, f * math.prod(ks))
        else:
            q = view.transpose(0, *range(1, 1 + spatial), *range(2 + spatial, 2 + 2 * spatial), 1 + spatial)
            patches = q.reshape(f * math.prod(ks), math.prod(out_space) * b).T
    if patches is None:
        result = np.zeros((*out_space, b, o), np.result_type(x.dtype, kernel.dtype))
    else:
        weights = kernel.reshape(-1, o)
        product = split_lib.matmul if _split(*patches.shape, o) else np.matmul
        result = product(patches, weights).reshape(*out_space, b, o)
    # result is (p..., B, O): logical batch is axis `spatial`, features
    # `spatial + 1`, spatial dim i axis i; out_spec's inverse places them.
    axis_of = (spatial, spatial + 1, *range(spatial))
    return result.transpose(_placing(axis_of, tuple(out_spec)))


def _direct_grad(x, cot, out_space, ks, dimension_numbers, window_strides, padding, lhs_dilation,
                 rhs_dilation) -> np.ndarray | None:
    """A float32 kernel gradient (x (F, spatial..., B), cot (F, ks..., O))
    by native/directconv.py, (prod(out_space) * B, O), when it serves this
    one: the patch path's product's bits (see `_conv_batch_minor`)."""
    direct = _direct_kernel[0]
    if direct is None or x.dtype != np.float32 or cot.dtype != np.float32 or not math.prod(out_space):
        return None
    if not _native_geometry(x, lhs_dilation, padding):
        return None
    f, b, o = x.shape[0], x.shape[-1], cot.shape[-1]
    k, rows = math.prod(out_space) * b, f * math.prod(ks)
    if _split(k, rows, o) or not direct.grad_ready(k, rows, o, b * x.itemsize > _SHORT_RUN_BYTES):
        return None
    geometry = (out_space, ks, tuple(rhs_dilation), tuple(window_strides), tuple(map(tuple, padding)))
    return direct.grad(x, np.ascontiguousarray(cot).reshape(rows, o), geometry)


@functools.lru_cache(maxsize=512)
def _output_shape(lhs_shape, rhs_shape, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                  batch_group_count) -> tuple:
    # (per call it was a good part of a small convolution's Python work)
    return tuple(conv_lax.conv_output_shape(
        lhs_shape, rhs_shape, window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers, batch_group_count=batch_group_count))


# The im2col patches are copied and multiplied a block of rows at a time, each
# block small enough to stay in the cache between its copy and its matmul
# (the whole patch matrix is taps times the input; see docs/performance.md).
# A convolution big enough for split.py's threshold runs its blocks on every
# core, each core a contiguous run of them.
_BLOCK_BYTES = 1 << 20
# A convolution is split across the cores from this many flops on, well above
# split.py's threshold for one matmul: on the loaded 2-core machine splitting
# the ResNet block's 38 MFLOP convolutions slowed its step, the large CNN's
# 600 MFLOP ones did not (docs/performance.md).
SPLIT_MIN_FLOPS = 1 << 28


def _split(rows: int, k: int, cols: int, groups: int = 1) -> bool:
    return 2 * rows * k * cols * groups >= SPLIT_MIN_FLOPS and split_lib.worth_splitting(rows, k, cols, groups)


# Rows are independent in a matmul, but OpenBLAS multiplies products of up to
# 1M multiply-adds (M*N*K) with its small-matrix kernels, which sum in
# another order: blocks at least this large keep the whole product's bits.
_MIN_BLOCK_MACS = 1 << 20


# native/im2col.py's kernel, once install() sets it (the NumPy copy until it is built).
_patch_kernel: list = [None]


def set_patch_kernel(kernel) -> None:
    _patch_kernel[0] = kernel


# Below this many bytes of features a position, the direct kernel reads a
# padded copy of the input: its per-tap border checks would cost more.
_PAD_BELOW_BYTES = 128
# native/directconv.py's kernel, once install() sets it (the patch path until it is built).
_direct_kernel: list = [None]


def set_direct_kernel(kernel) -> None:
    _direct_kernel[0] = kernel


def _native_geometry(x: np.ndarray, lhs_dilation, padding) -> bool:
    """Whether native/im2col.py can make `x`'s patches: a C-contiguous NHWC
    input of two spatial axes, without holes or negative padding."""
    return (x.ndim == 4 and x.flags.c_contiguous and all(d == 1 for d in lhs_dilation)
            and all(lo >= 0 and hi >= 0 for lo, hi in padding) and x.dtype.kind in "fc")


def _native_patches(x: np.ndarray, geometry: tuple) -> np.ndarray | None:
    """The whole patch matrix of `x` by native/im2col.py, or None."""
    kernel_fn = _patch_kernel[0]
    rows = x.shape[0] * math.prod(geometry[1])
    k = math.prod(geometry[0]) * x.shape[-1]
    if kernel_fn is None or not kernel_fn.ready(rows * k * x.itemsize):
        return None
    patches = np.empty((rows, k), x.dtype)
    return patches if kernel_fn(x, patches, 0, rows, geometry) else None


def _native_conv(x: np.ndarray, kernel: np.ndarray, geometry: tuple) -> np.ndarray | None:
    """`_grouped_matmul` of one group by native/directconv.py, or with its
    patches made by native/im2col.py from the unpadded input, a block at a
    time in the same blocks (so the same products: the same bits); None
    when neither kernel is ready."""
    n, c, o = x.shape[0], x.shape[-1], kernel.shape[0]
    ks, out_space = geometry[0], geometry[1]
    taps = math.prod(ks)
    rows, k = n * math.prod(out_space), taps * c
    weights = kernel.reshape(o, c, taps).transpose(2, 1, 0).reshape(taps * c, o)
    direct = _direct_kernel[0]
    if direct is not None and x.dtype == weights.dtype == np.float32 and direct.ready(rows, k, o):
        out = _direct_conv(direct, x, np.ascontiguousarray(weights), rows, geometry)
        if out is not None:
            return out.reshape(n, *out_space, o)
    kernel_fn = _patch_kernel[0]
    if kernel_fn is None or not kernel_fn.ready(rows * k * x.itemsize):
        return None
    blocks = _blocks(n, out_space, k, o, 1, x.itemsize, weights.nbytes)
    out = np.empty((rows, o), np.result_type(x.dtype, weights.dtype))
    done = []

    def run(part):
        patches = np.empty((max(size for _, _, size in part), k), x.dtype)
        for _, first, size in part:
            if not kernel_fn(x, patches, first, first + size, geometry):
                return
            np.matmul(patches[:size], weights, out=out[first:first + size])
        done.append(len(part))

    cores = min(split_lib.num_workers(), len(blocks))
    parts = [blocks[i:j] for i, j in _even_ranges(len(blocks), cores)] if cores > 1 and _split(rows, k, o) else [blocks]
    if len(parts) > 1:
        split_lib.run_all([functools.partial(run, part) for part in parts])
    else:
        run(blocks)
    return out.reshape(n, *out_space, o) if sum(done) == len(blocks) else None


def _direct_conv(direct, x: np.ndarray, weights: np.ndarray, rows: int, geometry: tuple) -> np.ndarray | None:
    """The (rows, O) output by native/directconv.py (a contiguous run of
    rows per core when the product is split, as `_native_conv`'s blocks)."""
    out = np.empty((rows, weights.shape[1]), np.float32)
    done = []
    if x.shape[-1] * x.itemsize < _PAD_BELOW_BYTES and any(lo or hi for lo, hi in geometry[4]):
        x, geometry = direct.padded(x, geometry)

    def run(lo, hi):
        done.append(direct(x, weights, out[lo:hi], lo, hi, geometry))

    cores = min(split_lib.num_workers(), rows // 8)
    if cores > 1 and direct.shares(rows * weights.size):
        run(0, rows)  # (its rows shared among the cores inside the kernel)
    elif cores > 1 and _split(rows, *weights.shape):
        split_lib.run_all([functools.partial(run, lo, hi) for lo, hi in _even_ranges(rows, cores)])
    else:
        run(0, rows)
    return out if all(done) else None


def _grouped_matmul(windows: np.ndarray, kernel: np.ndarray, feature_groups: int, batch_groups: int) -> np.ndarray:
    """Contracts windows (N, out..., C, k...) with kernel (O, I, k...) into
    (N / batch_groups, out..., O), one matmul per group.

    Groups are the major part of the split axis, as in XLA: feature group g
    reads input features [g*I, (g+1)*I) and writes output features
    [g*O/G, (g+1)*O/G); batch group b reads batch rows [b*N/B, (b+1)*N/B)
    and writes output features [b*O/B, (b+1)*O/B).
    """
    spatial = (windows.ndim - 2) // 2
    n, c = windows.shape[0], windows.shape[1 + spatial]
    out_space = windows.shape[1:1 + spatial]
    positions = math.prod(out_space)
    kshape = kernel.shape[2:]
    taps = math.prod(kshape)
    o = kernel.shape[0]
    g, b = feature_groups, batch_groups
    groups = g * b  # at most one of them exceeds 1
    nb, cg, og = n // b, c // g, o // groups
    # (B, N/B, out..., G, C/G, k...) -> (groups, N/B, out..., k..., C/G): axes are
    # only split and permuted (a view; one of B, G is 1) before the copy.
    split = windows.reshape(b, nb, *out_space, g, cg, *kshape)
    s = spatial
    order = (0, 2 + s, 1, *range(2, 2 + s), *range(4 + s, 4 + 2 * s), 3 + s)
    view = split.transpose(order).reshape(groups, nb, *out_space, *kshape, cg)
    weights = kernel.reshape(groups, og, cg, taps).transpose(0, 3, 2, 1).reshape(groups, taps * cg, og)
    rows, k = nb * positions, taps * cg
    blocks = _blocks(nb, out_space, k, og, groups, view.itemsize, weights.nbytes)
    if len(blocks) == 1:
        out = np.matmul(view.reshape(groups, rows, k), weights)
    else:
        out = np.empty((groups, rows, og), np.result_type(view.dtype, weights.dtype))

        def run(part):
            for index, first, size in part:
                patches = view[(slice(None), *index)].reshape(groups, size, k)
                np.matmul(patches, weights, out=out[:, first:first + size])

        cores = min(split_lib.num_workers(), len(blocks))
        if cores > 1 and _split(rows, k, og, groups):
            split_lib.run_all([functools.partial(run, blocks[i:j]) for i, j in _even_ranges(len(blocks), cores)])
        else:
            run(blocks)
    out = out.reshape(groups, nb, positions, og).transpose(1, 2, 0, 3)
    return out.reshape(nb, *out_space, o)


def _blocks(nb: int, out_space: Sequence[int], k: int, og: int, groups: int, itemsize: int,
            kernel_bytes: int) -> list:
    """The row blocks (`_row_blocks`): ~_BLOCK_BYTES of patches each (one
    block when the kernel is large, as in a kernel's gradient: each block
    reads all of it), a multiple of the cores when the product is split, and
    none under _MIN_BLOCK_MACS."""
    rows = nb * math.prod(out_space)
    count = 1 if kernel_bytes > _BLOCK_BYTES // 4 else -(-rows * groups * k * itemsize // _BLOCK_BYTES)
    cores = split_lib.num_workers()
    if cores > 1 and _split(rows, k, og, groups):
        count = cores * -(-count // cores)
    count = min(count, rows * k * og // _MIN_BLOCK_MACS)
    while count > 1:
        blocks = _row_blocks(nb, out_space, count)
        if min(size for _, _, size in blocks) * k * og >= _MIN_BLOCK_MACS:
            return blocks
        count -= 1
    return _row_blocks(1, (rows,), 1)


def _even_ranges(size: int, parts: int) -> list:
    bounds = [size * i // parts for i in range(parts + 1)]
    return [(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True) if hi > lo]


def _row_blocks(nb: int, out_space: Sequence[int], count: int) -> list:
    """(index into (N/B, out...), first row, rows) of about `count` blocks
    of even size: runs of whole batch rows, or runs of the first output axis
    of each batch row when there are fewer batch rows than blocks."""
    positions = math.prod(out_space)
    if nb >= count or not out_space:
        return [((slice(lo, hi),), lo * positions, (hi - lo) * positions) for lo, hi in _even_ranges(nb, count)]
    inner = positions // out_space[0]
    return [((slice(item, item + 1), slice(lo, hi)), (item * out_space[0] + lo) * inner, (hi - lo) * inner)
            for item in range(nb) for lo, hi in _even_ranges(out_space[0], -(-count // nb))]


IMPLS[conv_lax.conv_general_dilated_p] = _conv_general_dilated
