"""jax.numpy.linalg decompositions, solves and inverses, on lax.linalg.

(Determinants and ranks are in linalg_det.py, norms and products in
linalg_norms.py; pyjax.numpy.linalg gathers all three.)

Every function works on the trailing two axes and maps over the leading
ones. Functions that JAX jits are jitted here under the same names and with
the same static arguments, so they show up in jaxprs as JAX's do (one
`jit[name=svd]`, `jit[name=norm]`, ...); det and slogdet are custom_jvp
functions whose derivative does not go through the LU factorization.

Known difference: JAX's solve (and inv, which calls it) wraps its LU solve
in `custom_linear_solve`, a control-flow primitive pyjax does not have yet;
here the solve is staged directly (same numbers, different jaxpr).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import numpy as np

from pyjax._src import dtypes
from pyjax._src.cache_key import typed_key
from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.jit import jit
from pyjax._src.lax import dot as lax_dot
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import gather_scatter as lax_gather
from pyjax._src.lax import linalg as lax_linalg
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.util import (
    aval_of,
    check_arraylike,
    ensure_array,
    promote_dtypes,
)
from pyjax._src.scipy import jnp_pending as jnp

__all__ = [
    "EigResult", "EighResult", "QRResult", "SVDResult", "SlogdetResult", "cholesky", "eig", "eigh", "eigvals",
    "eigvalsh", "inv", "lstsq", "pinv", "qr", "solve", "svd", "svdvals",
]


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class EigResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class QRResult(NamedTuple):
    Q: object
    R: object


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


# ---------------------------------------------------------------------------
# Helpers


def _arrays(name: str, *args):
    check_arraylike(name, *args)
    return [ensure_array(a) for a in args]


def _promote_inexact(*args):
    """promote_dtypes_inexact: a common dtype, floating point; no rank promotion."""
    args = promote_dtypes("linalg", *args) if len(args) > 1 else list(args)
    dtype = aval_of(args[0]).dtype
    if dtype.kind not in "fc" and dtype != dtypes.bfloat16:
        target = dtypes.to_inexact_dtype(dtype)
        args = [lax_ew._convert_element_type(a, target, aval_of(a).weak_type) for a in args]
    return [ensure_array(a) for a in args]


def _shape(x) -> tuple:
    return aval_of(x).shape


def _is_complex(x) -> bool:
    return aval_of(x).dtype.kind == "c"


def _T(x):
    nd = len(_shape(x))
    return lax_shapes.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def _H(x):
    """The conjugate transpose of the trailing matrices."""
    t = jnp.matrix_transpose(x)
    return lax_ew.conj(t) if _is_complex(t) else t


def _check_square(name: str, a) -> None:
    shape = _shape(a)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"Argument to {name} must have shape [..., n, n], got {shape}.")


# ---------------------------------------------------------------------------
# Decompositions


@partial(jit, static_argnames=("upper", "symmetrize_input"))
def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    """Cholesky factor of a Hermitian positive-definite matrix: ``a = L L^H``.

    Args:
      a: (..., n, n) Hermitian positive-definite matrices.
      upper: return the upper factor ``U = L^H`` (``a = U^H U``) instead.
      symmetrize_input: use ``(a + a^H) / 2``, so only round-off asymmetry is ignored.

    Returns:
      The triangular factor; NaN where `a` is not positive definite.
    """
    (a,) = _promote_inexact(*_arrays("jnp.linalg.cholesky", a))
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _H(L) if upper else L


@partial(jit, static_argnames=("full_matrices", "compute_uv", "hermitian", "subset_by_index"))
def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False, subset_by_index=None):
    """Singular value decomposition: ``a = U @ diag(S) @ Vh``.

    Args:
      a: (..., m, n) matrices.
      full_matrices: U is (m, m) and Vh (n, n) rather than (m, k) and (k, n), k = min(m, n).
      compute_uv: return U and Vh too (otherwise only S).
      hermitian: `a` is Hermitian, so the decomposition comes from eigh.
      subset_by_index: (start, end) indices of the singular values to compute.

    Returns:
      ``SVDResult(U, S, Vh)``, or S alone; S is real and sorted descending.
    """
    (a,) = _promote_inexact(*_arrays("jnp.linalg.svd", a))
    if hermitian:
        v, w = lax_linalg.eigh(a, subset_by_index=subset_by_index)
        s = lax_ew.abs(w)
        last = len(_shape(s)) - 1
        if not compute_uv:
            from pyjax._src.lax import sorting as lax_sorting

            return lax_shapes.rev(lax_sorting.sort(s, dimension=-1), (last,))
        return _hermitian_svd(v, w, s, last)
    if compute_uv:
        u, s, vh = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=True, subset_by_index=subset_by_index)
        return SVDResult(u, s, vh)
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=False, subset_by_index=subset_by_index)


def _hermitian_svd(v, w, s, last: int):
    # Singular values are |eigenvalues|, sorted descending; each singular
    # vector pair is the eigenvector and the eigenvector times sign(eigenvalue).
    from pyjax._src.lax import sorting as lax_sorting

    sign = lax_ew.sign(w)
    n = _shape(s)[last]
    index_dtype = np.uint8 if n <= np.iinfo(np.uint8).max else (np.uint16 if n <= np.iinfo(np.uint16).max
                                                                 else np.uint32)
    idxs = lax_shapes.broadcasted_iota(index_dtype, _shape(s), last)
    s, idxs, sign = lax_sorting.sort((s, idxs, sign), dimension=-1, num_keys=1)
    s, idxs, sign = (lax_shapes.rev(t, (last,)) for t in (s, idxs, sign))
    u = jnp.take_along_axis(v, idxs[..., None, :], axis=-1)
    vh = _H(u * sign[..., None, :].astype(aval_of(u).dtype))
    return SVDResult(u, s, vh)


@partial(jit, static_argnames=("mode",))
def qr(a, mode: str = "reduced"):
    """QR decomposition: ``a = Q @ R``, Q with orthonormal columns, R upper triangular.

    Args:
      a: (..., m, n) matrices.
      mode: ``"reduced"`` (Q is (m, k), R (k, n), k = min(m, n)), ``"complete"``
        (Q is (m, m), R (m, n)), ``"r"`` (only R) or ``"raw"`` (LAPACK's
        Householder form: the transposed factor and the reflector scales).
    """
    (a,) = _promote_inexact(*_arrays("jnp.linalg.qr", a))
    if mode == "raw":
        a, taus = lax_linalg.geqrf(a)
        return QRResult(_T(a), taus)
    if mode in ("reduced", "r", "full"):
        full_matrices = False
    elif mode == "complete":
        full_matrices = True
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(a, pivoting=False, full_matrices=full_matrices)
    return r if mode == "r" else QRResult(q, r)


def eig(a):
    """Eigenvalues and right eigenvectors of general square matrices.

    Both results are complex. Computed on the host by LAPACK's geev; not
    differentiable with respect to the eigenvectors unless the lax primitive
    is asked for it.

    Returns:
      ``EigResult(eigenvalues, eigenvectors)``, eigenvectors in columns.
    """
    (a,) = _promote_inexact(*_arrays("jnp.linalg.eig", a))
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


@jit
def eigvals(a):
    """Eigenvalues of general square matrices (complex)."""
    (a,) = _promote_inexact(*_arrays("jnp.linalg.eigvals", a))
    return lax_linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]


@partial(jit, static_argnames=("UPLO", "symmetrize_input"))
def eigh(a, UPLO: str | None = None, symmetrize_input: bool = True):
    """Eigenvalues (ascending, real) and eigenvectors of Hermitian matrices.

    Args:
      a: (..., n, n) Hermitian matrices.
      UPLO: which triangle LAPACK reads, ``"L"`` (default) or ``"U"``.
      symmetrize_input: use ``(a + a^H) / 2``.

    Returns:
      ``EighResult(eigenvalues, eigenvectors)``, eigenvectors in columns.
    """
    if UPLO is None or UPLO == "L":
        lower = True
    elif UPLO == "U":
        lower = False
    else:
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    (a,) = _promote_inexact(*_arrays("jnp.linalg.eigh", a))
    v, w = lax_linalg.eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


@partial(jit, static_argnames=("UPLO", "symmetrize_input"))
def eigvalsh(a, UPLO: str | None = "L", *, symmetrize_input: bool = True):
    """Eigenvalues (ascending, real) of Hermitian matrices."""
    (a,) = _promote_inexact(*_arrays("jnp.linalg.eigvalsh", a))
    w, _ = eigh(a, UPLO, symmetrize_input=symmetrize_input)
    return w


def svdvals(x, /):
    """Singular values (descending) of the trailing matrices."""
    (x,) = _arrays("jnp.linalg.svdvals", x)
    return svd(x, compute_uv=False, hermitian=False)


# ---------------------------------------------------------------------------
# Solves and inverses


def _take_rows(x, rows):
    """x[..., rows, :] for a batch of row permutations (a batched gather)."""
    *batch, _, k = _shape(x)
    nb = len(batch)
    indices = lax_shapes.expand_dims(rows, (nb + 1,))
    batch_dims = tuple(range(nb))
    dnums = lax_gather.GatherDimensionNumbers(
        offset_dims=(nb + 1,), collapsed_slice_dims=(nb,), start_index_map=(nb,),
        operand_batching_dims=batch_dims, start_indices_batching_dims=batch_dims)
    return lax_gather.gather(x, indices, dnums, (1,) * nb + (1, k), mode=lax_gather.GatherScatterMode.PROMISE_IN_BOUNDS)


def _lu_solve_matrix(a, b):
    """a^-1 b for (..., m, m) `a` and (..., m, k) `b` of equal batch shape."""
    lu, _, permutation = lax_linalg.lu(a)
    x = _take_rows(b, permutation)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    return lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)


@jit
def solve(a, b):
    """Solves ``a @ x = b`` for x.

    Args:
      a: (..., m, m) matrices.
      b: (..., m) vectors or (..., m, n) matrices; batch dimensions broadcast.

    Returns:
      x, shaped like the broadcast of `b`.
    """
    a, b = _promote_inexact(*_arrays("jnp.linalg.solve", a, b))
    a_shape, b_shape = _shape(a), _shape(b)
    if len(a_shape) < 2:
        raise ValueError(f"left hand array must be at least two dimensional; got a.shape={a_shape}")
    if (len(b_shape) > 1 and len(a_shape) == len(b_shape) + 1 and a_shape[-1] == b_shape[-1]
            and a_shape[-1] != b_shape[-2]):
        raise ValueError(
            f"Invalid shapes for solve: {a_shape}, {b_shape}. Prior to JAX v0.5.0, this would have been treated "
            "as a batched 1-dimensional solve. To recover this behavior, use solve(a, b[..., None]).squeeze(-1).")
    if a_shape[-1] != a_shape[-2]:
        raise ValueError(f"The arguments to solve must have shapes a=[..., m, m] and b=[..., m, k] or b=[..., m]; "
                         f"got a={a_shape} and b={b_shape}")
    vector = len(b_shape) == 1
    if vector:
        b = lax_shapes.expand_dims(b, (1,))
    if _shape(b)[-2] != a_shape[-1]:
        raise ValueError(f"The arguments to solve must have shapes a=[..., m, m] and b=[..., m, k] or b=[..., m]; "
                         f"got a={a_shape} and b={b_shape}")
    batch = tuple(np.broadcast_shapes(a_shape[:-2], _shape(b)[:-2]))
    a = jnp.broadcast_to(a, batch + a_shape[-2:])
    b = jnp.broadcast_to(b, batch + _shape(b)[-2:])
    x = _lu_solve_matrix(a, b)
    return lax_shapes.squeeze(x, (len(batch) + 1,)) if vector else x


@jit
def inv(a):
    """The inverse of each (..., n, n) matrix of `a`."""
    (a,) = _arrays("jnp.linalg.inv", a)
    shape = _shape(a)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"Argument to inv must have shape [..., n, n], got {shape}.")
    eye = jnp.eye(shape[-1], dtype=aval_of(a).dtype)
    return solve(a, lax_shapes.broadcast(eye, shape[:-2]))


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    """Moore-Penrose pseudo-inverse, from the SVD.

    Args:
      a: (..., m, n) matrices.
      rtol: singular values at or below ``rtol * largest`` count as zero
        (default ``10 * max(m, n) * eps``).
      hermitian: `a` is Hermitian (the SVD then comes from eigh).
      rcond: a NumPy-compatible alias of `rtol`.
    """
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    return _pinv_function(hermitian, rtol is None)(a, *([] if rtol is None else [rtol]))


_PINV_CACHE: dict = {}


def _pinv_function(hermitian: bool, default_rtol: bool):
    # JAX's _pinv is custom_jvp with (rtol, hermitian) as non-differentiable
    # arguments; one custom_jvp per (hermitian, rtol given) keeps them out of
    # the differentiated arguments here.
    key = typed_key((hermitian, default_rtol))  # (hermitian=1 is not hermitian=True's entry)
    if key not in _PINV_CACHE:
        def _pinv(a, *rtol):
            return _pinv_impl(a, rtol[0] if rtol else None, hermitian=hermitian)

        fn = custom_jvp(_pinv)

        def _pinv_jvp(primals, tangents):
            a, *rtol = primals
            return _pinv_jvp_rule(rtol[0] if rtol else None, hermitian, a, tangents[0])

        fn.defjvp(_pinv_jvp)
        _PINV_CACHE[key] = fn
    return _PINV_CACHE[key]


@partial(jit, static_argnames=("hermitian",))
def _pinv_impl(a, rtol=None, hermitian: bool = False):
    (a,) = _arrays("jnp.linalg.pinv", a)
    (arr,) = _promote_inexact(a)
    m, n = _shape(arr)[-2:]
    if m == 0 or n == 0:
        return jnp.empty(_shape(arr)[:-2] + (n, m), aval_of(arr).dtype)
    arr = lax_ew.conj(arr) if _is_complex(arr) else arr
    if rtol is None:
        rtol = 10.0 * max(m, n) * jnp.array(jnp.finfo(aval_of(arr).dtype).eps)
    rtol = jnp.asarray(rtol)
    u, s, vh = svd(arr, full_matrices=False, hermitian=hermitian)
    rtol = lax_shapes.expand_dims(rtol[..., None], range(aval_of(s).ndim - aval_of(rtol).ndim - 1))
    cutoff = rtol * s[..., 0:1]
    s = jnp.where(s > cutoff, s, np.inf).astype(aval_of(u).dtype)
    res = jnp.matmul(_T(vh), jnp.divide(_T(u), s[..., None]), precision=lax_dot.Precision.HIGHEST)
    return lax_ew._convert_element_type(res, aval_of(arr).dtype, False)


def _pinv_jvp_rule(rtol, hermitian, a, a_dot):
    # The derivative of the pseudo-inverse (Golub & Pereyra, 1973), with the
    # products ordered for the cheaper side.
    p = pinv(a, rtol=rtol, hermitian=hermitian)
    if hermitian:
        a = (a + _H(a)) / 2
        a_dot = (a_dot + _H(a_dot)) / 2
    m, n = _shape(a)[-2:]
    if m >= n:
        s = (p @ _H(p)) @ _H(a_dot)
        t = (_H(a_dot) @ _H(p)) @ p
        p_dot = -(p @ a_dot) @ p + s - (s @ a) @ p + t - (p @ a) @ t
    else:
        s = p @ (_H(p) @ _H(a_dot))
        t = _H(a_dot) @ (_H(p) @ p)
        p_dot = -p @ (a_dot @ p) + s - s @ (a @ p) + t - p @ (a @ t)
    return p, p_dot


def _lstsq(a, b, rcond, *, numpy_resid: bool = False):
    a, b = _promote_inexact(a, b)
    if _shape(a)[0] != _shape(b)[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    b_ndim = len(_shape(b))
    if b_ndim == 1:
        b = b[:, None]
    if len(_shape(a)) != 2:
        raise TypeError(f"{len(_shape(a))}-dimensional array given. Array must be two-dimensional")
    if len(_shape(b)) != 2:
        raise TypeError(f"{len(_shape(b))}-dimensional array given. Array must be one or two-dimensional")
    m, n = _shape(a)
    dtype = aval_of(a).dtype
    if m * n == 0:
        s = jnp.empty(0, dtype=dtype)
        rank = jnp.array(0, dtype=dtypes.default_int_dtype())
        x = jnp.zeros((n, *_shape(b)[1:]), dtype=dtype)
    else:
        if rcond is None:
            rcond = float(jnp.finfo(dtype).eps) * max(n, m)
        else:
            rcond = jnp.where(rcond < 0, jnp.finfo(dtype).eps, rcond)
        u, s, vt = svd(a, full_matrices=False)
        mask = (s > 0) & (s >= jnp.array(rcond, dtype=aval_of(s).dtype) * s[0])
        rank = jnp.sum(mask)
        safe_s = jnp.where(mask, s, 1).astype(dtype)
        s_inv = jnp.where(mask, 1 / safe_s, 0)[:, None]
        highest = lax_dot.Precision.HIGHEST
        utb = jnp.matmul(_H(u), b, precision=highest)
        x = jnp.matmul(_H(vt), s_inv * utb, precision=highest)
    if numpy_resid and (int(rank) < n or m <= n):
        resid = jnp.asarray([])
    else:
        estimate = jnp.matmul(a, x, precision=lax_dot.Precision.HIGHEST)
        from pyjax._src.numpy.linalg_norms import norm

        resid = norm(b - estimate, axis=0) ** 2
    if b_ndim == 1:
        x = jnp.ravel(x)
    return x, resid, rank, s


_jit_lstsq = jit(partial(_lstsq, numpy_resid=False))


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """Least-squares solution of ``a @ x = b`` (minimum norm when underdetermined).

    Args:
      a: (m, n) matrix.
      b: (m,) or (m, k).
      rcond: singular values below ``rcond * largest`` count as zero
        (default ``eps * max(m, n)``).
      numpy_resid: return NumPy's residuals (empty unless a has full column
        rank and m > n); needs concrete values, so cannot be jitted.

    Returns:
      ``(x, residuals, rank, singular_values)``.
    """
    a, b = _arrays("jnp.linalg.lstsq", a, b)
    if numpy_resid:
        return _lstsq(a, b, rcond, numpy_resid=True)
    return _jit_lstsq(a, b, rcond)
