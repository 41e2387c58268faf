"""`fft` as `stablehlo.fft` (JAX's jnp.fft functions call it inside a
jitted `fft`, which lowers to a private `@fft` as every nested jit does).

IREE 3.13 legalizes `stablehlo.fft` for a few shapes only (a 1-D transform
of a power-of-two length); for IREE (`xla_ops` off) the transform is
spelled out as the discrete Fourier transform: one matrix product per
transformed axis with the constant DFT matrix. An axis longer than
`DENSE_MAX` is split as Cooley and Tukey do (length n1 * n2: n2 transforms
of length n1, a twiddle product, n1 transforms of length n2, each split
again if still too long), so that no matrix has more than DENSE_MAX ** 2
entries; a length with a prime factor above DENSE_MAX is refused by name
(its matrix alone would take gigabytes from about 16384)."""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.stablehlo.builder import print_with_attr, print_with_attr_same
from pyjax._src.backends.stablehlo.ir import TensorType, int_list
from pyjax._src.backends.stablehlo.lowering import LoweringError, register_lowering

# The longest axis transformed by one DFT matrix product (two real matrices of 1024 x 1024).
DENSE_MAX = 1024


def _fft(ctx, x, *, fft_type, fft_lengths):
    from pyjax._src.lax.fft import FftType

    kind = FftType(fft_type)
    if any(type(n) is not int for n in fft_lengths) or any(hasattr(d, "get_vars") for d in x.shape):
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
        if n <= DENSE_MAX:
            re, im = _complex_matmul(b, x, None, _dft_matrix(n, n // 2 + 1, n, -1.0, 1.0), axes[-1], real)
        else:
            re, im = (_cut(b, v, axes[-1], n // 2 + 1) for v in _dft_axis(b, x, None, axes[-1], -1.0, 1.0, real))
        axes = axes[:-1]
    else:
        re = b.elementwise("stablehlo.real", [x], TensorType(x.shape, real))
        im = b.elementwise("stablehlo.imag", [x], TensorType(x.shape, real))
    inverse = kind in ("IFFT", "IRFFT")
    for axis in (axes[:-1] if kind == "IRFFT" else axes):
        n = x.shape[axis]
        re, im = _dft_axis(b, re, im, axis, 1.0 if inverse else -1.0, 1.0 / n if inverse else 1.0, real)
    if kind != "IRFFT":
        # (the barrier keeps IREE from fusing the products into the complex op: its vectorizer
        # then fails, "vector.transfer_read op requires valid padding vector elemental type")
        re, im = b.emit("stablehlo.optimization_barrier", [re, im], [re.type, im.type], _print_barrier)
        return b.complex(re, im, cdtype)
    n, m = lengths[-1], x.shape[-1]
    if n > DENSE_MAX:  # the whole spectrum from its Hermitian half, then a complex inverse transform
        re, im = _hermitian(b, re, im, n)
        return _dft_axis(b, re, im, rank - 1, 1.0, 1.0 / n, real)[0]
    # complex-to-real on the last axis: Re(sum_k w_k X_k e^{2 pi i k t / n}) / n, w_k = 2 but for
    # k = 0 and the Nyquist term (their imaginary parts ignored, as by NumPy and XLA)
    weights = np.full(m, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[n // 2] = 1.0
    matrix = _dft_matrix(m, n, n, 1.0, 1.0 / n) * weights[:, None]
    return _complex_matmul(b, re, im, matrix, rank - 1, real)[0]


def _dft_axis(b, re, im, axis: int, sign: float, scale: float, real):
    """The complex DFT of (re + i im) along `axis`, times `scale`: one matrix
    product up to DENSE_MAX, else split into n1 * n2 (input position
    j1 * n2 + j2, output position k1 + n1 * k2): X = DFT_n2(T * DFT_n1(x)),
    twiddles T[k1, j2] = e^(sign 2 pi i k1 j2 / n)."""
    n = re.shape[axis]
    if n <= DENSE_MAX:
        return _complex_matmul(b, re, im, _dft_matrix(n, n, n, sign, scale), axis, real)
    n1 = _factor(n)
    n2 = n // n1
    split = list(re.shape[:axis]) + [n1, n2] + list(re.shape[axis + 1:])
    re, im = b.reshape(re, split), (None if im is None else b.reshape(im, split))
    re, im = _dft_axis(b, re, im, axis, sign, 1.0, real)
    k1, j2 = np.meshgrid(np.arange(n1), np.arange(n2), indexing="ij")
    twiddle = np.exp(sign * 2j * np.pi * ((k1 * j2) % n) / n) * scale
    tr, ti = (b.broadcast_in_dim(b.constant(t.astype(real)), split, [axis, axis + 1])
              for t in (twiddle.real, twiddle.imag))
    mul = lambda u, v: b.elementwise("stablehlo.multiply", [u, v])  # noqa: E731
    re, im = (b.elementwise("stablehlo.subtract", [mul(re, tr), mul(im, ti)]),
              b.elementwise("stablehlo.add", [mul(re, ti), mul(im, tr)]))
    re, im = _dft_axis(b, re, im, axis + 1, sign, 1.0, real)
    perm = list(range(len(split)))
    perm[axis], perm[axis + 1] = axis + 1, axis
    whole = list(re.shape[:axis]) + [n] + list(re.shape[axis + 2:])
    return b.reshape(b.transpose(re, perm), whole), b.reshape(b.transpose(im, perm), whole)


def _factor(n: int) -> int:
    """n's divisor nearest below its square root; a prime above DENSE_MAX is refused."""
    for d in range(int(np.sqrt(n)), 1, -1):
        if n % d == 0:
            return d
    raise LoweringError(
        f"primitive 'fft' of length {n} is not lowered for IREE: {n} is a prime above {DENSE_MAX}, and its "
        f"DFT matrix ({n} x {n}) would be too large; lengths whose prime factors are at most {DENSE_MAX} run")


def _cut(b, x, axis: int, size: int):
    limit = list(x.shape)
    limit[axis] = size
    return b.slice(x, [0] * len(limit), limit)


def _hermitian(b, re, im, n: int):
    """The last axis's n terms from its first n // 2 + 1, X[n - k] = conj(X[k])."""
    axis, m = len(re.shape) - 1, re.shape[-1]
    start = [0] * len(re.shape)
    start[axis] = 1
    limit = list(re.shape)
    limit[axis] = n - m + 1

    def mirrored(v):
        tail = b.slice(v, start, limit)
        return b.emit1("stablehlo.reverse", [tail], [tail.type], print_with_attr_same, text=f"dims = [{axis}]")

    shape = list(re.shape[:axis]) + [n]
    tail_im = b.elementwise("stablehlo.negate", [mirrored(im)])
    return [b.emit1("stablehlo.concatenate", [v, t], [TensorType(shape, v.dtype)], print_with_attr,
                    text=f"dim = {axis}") for v, t in ((re, mirrored(re)), (im, tail_im))]


def _print_barrier(op, p, indent, in_func):
    return f"stablehlo.optimization_barrier {p.vs(op.operands)} : {', '.join(str(v.type) for v in op.operands)}"


def register(prims: dict) -> None:
    register_lowering(prims["fft"], _fft)
