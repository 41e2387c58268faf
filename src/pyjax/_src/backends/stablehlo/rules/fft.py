"""`fft` as `stablehlo.fft` (JAX's jnp.fft functions call it inside a
jitted `fft`, which lowers to a private `@fft` as every nested jit does).

IREE 3.13 legalizes `stablehlo.fft` for a few shapes only (a 1-D transform
of a power-of-two length); for IREE (`xla_ops` off) the transform is
spelled out as the discrete Fourier transform: one matrix product per
transformed axis with the constant DFT matrix."""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.stablehlo.builder import print_with_attr
from pyjax._src.backends.stablehlo.ir import TensorType, int_list
from pyjax._src.backends.stablehlo.lowering import register_lowering


def _fft(ctx, x, *, fft_type, fft_lengths):
    from pyjax._src.lax.fft import FftType

    kind = FftType(fft_type)
    if any(type(n) is not int for n in fft_lengths) or any(hasattr(d, "get_vars") for d in x.shape):
        from pyjax._src.backends.stablehlo.lowering import LoweringError

        raise LoweringError("primitive 'fft' over a symbolic dimension: not lowered yet")
    if not getattr(ctx.mod, "xla_ops", True):
        return [_dft(ctx.b, x, kind.name, tuple(fft_lengths), ctx.out_types[0])]
    text = f"type = {kind.name}, length = {int_list(fft_lengths)}"
    return [ctx.b.emit1("stablehlo.fft", [x], ctx.out_types, print_with_attr, text=text)]


def _matmul_axis(b, x, matrix: np.ndarray, axis: int):
    """x's `axis` contracted with the matrix's rows, the result's axis put
    back where `axis` was."""
    from pyjax._src.backends.stablehlo.rules.reductions import _print_dot

    w = b.constant(matrix)
    shape = [d for i, d in enumerate(x.shape) if i != axis] + [matrix.shape[1]]
    y = b.emit1("stablehlo.dot_general", [x, w], [TensorType(shape, x.dtype)], _print_dot,
                text=f"contracting_dims = [{axis}] x [0], precision = [DEFAULT, DEFAULT]")
    last = len(shape) - 1
    if axis == last:
        return y
    perm = list(range(axis)) + [last] + list(range(axis, last))
    return b.transpose(y, perm)


def _dft_matrix(rows: int, cols: int, period: int, sign: float, scale: float) -> np.ndarray:
    j, k = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return np.exp(sign * 2j * np.pi * ((j * k) % period) / period) * scale


def _complex_matmul(b, re, im, matrix: np.ndarray, axis: int, real):
    """(re + i im) times the complex matrix along `axis`, as real products
    (IREE 3.13 does not compile a complex dot_general); `im` None is zero."""
    mr, mi = matrix.real.astype(real), matrix.imag.astype(real)
    out_re = _matmul_axis(b, re, mr, axis)
    out_im = _matmul_axis(b, re, mi, axis)
    if im is not None:
        out_re = b.elementwise("stablehlo.subtract", [out_re, _matmul_axis(b, im, mi, axis)])
        out_im = b.elementwise("stablehlo.add", [out_im, _matmul_axis(b, im, mr, axis)])
    return out_re, out_im


def _dft(b, x, kind: str, lengths: tuple, out: TensorType):
    rank = len(x.shape)
    axes = list(range(rank - len(lengths), rank))
    cdtype = np.dtype(out.dtype if kind != "IRFFT" else x.dtype)
    real = np.dtype(f"f{cdtype.itemsize // 2}")
    if kind == "RFFT":  # the last axis real-to-complex (its first n // 2 + 1 terms), then the others
        n = lengths[-1]
        re, im = _complex_matmul(b, x, None, _dft_matrix(n, n // 2 + 1, n, -1.0, 1.0), axes[-1], real)
        axes = axes[:-1]
    else:
        re = b.elementwise("stablehlo.real", [x], TensorType(x.shape, real))
        im = b.elementwise("stablehlo.imag", [x], TensorType(x.shape, real))
    inverse = kind in ("IFFT", "IRFFT")
    for axis in (axes[:-1] if kind == "IRFFT" else axes):
        n = x.shape[axis]
        matrix = _dft_matrix(n, n, n, 1.0 if inverse else -1.0, 1.0 / n if inverse else 1.0)
        re, im = _complex_matmul(b, re, im, matrix, axis, real)
    if kind != "IRFFT":
        # (the barrier keeps IREE from fusing the products into the complex op: its vectorizer
        # then fails, "vector.transfer_read op requires valid padding vector elemental type")
        re, im = b.emit("stablehlo.optimization_barrier", [re, im], [re.type, im.type], _print_barrier)
        return b.complex(re, im, cdtype)
    # complex-to-real on the last axis: Re(sum_k w_k X_k e^{2 pi i k t / n}) / n, w_k = 2 but for
    # k = 0 and the Nyquist term (their imaginary parts ignored, as by NumPy and XLA)
    n, m = lengths[-1], x.shape[-1]
    weights = np.full(m, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[n // 2] = 1.0
    matrix = _dft_matrix(m, n, n, 1.0, 1.0 / n) * weights[:, None]
    return _complex_matmul(b, re, im, matrix, rank - 1, real)[0]


def _print_barrier(op, p, indent, in_func):
    return f"stablehlo.optimization_barrier {p.vs(op.operands)} : {', '.join(str(v.type) for v in op.operands)}"


def register(prims: dict) -> None:
    register_lowering(prims["fft"], _fft)
