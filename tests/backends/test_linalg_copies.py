"""The column-major copies around LAPACK's potrf and BLAS's trsm
(impls/linalg.py `_reorder`): made by bands of rows, handed to the routine
as its own (SciPy's f2py wrapper then copies nothing), and the results back
to C order the same way; bitwise what the wrappers' own copies give, the
caller's arrays untouched."""

from __future__ import annotations

import numpy as np
import pytest

from pyjax._src.backends.numpy.impls import linalg as linalg_impl
from pyjax._src.backends.numpy.impls.lazy_scipy import blas, lapack

rng = np.random.default_rng(23)


@pytest.mark.parametrize("shape", [(600, 500), (7, 9), (300, 1)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_banded_copies_are_copies(shape, order):
    x = rng.standard_normal(shape).astype(np.float32)
    x = np.asarray(x, order="F" if order == "C" else "C")
    out = linalg_impl._reorder(x, order)
    assert out.flags[{"C": "C_CONTIGUOUS", "F": "F_CONTIGUOUS"}[order]] and not np.shares_memory(out, x)
    assert np.array_equal(out, x)


def _spy(monkeypatch, table, key, real, seen):
    def spy(*args, **kwargs):
        seen.append((args, kwargs))
        return real(*args, **kwargs)
    monkeypatch.setitem(table, key, spy)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("transpose_a", [True, False])
def test_trsm_gets_column_major_operands_it_may_overwrite(dtype, left_side, transpose_a, monkeypatch):
    n, k = 400, 300
    a = np.tril(rng.standard_normal((n, n)) + n * np.eye(n)).astype(dtype)
    b = rng.standard_normal((n, k) if left_side else (k, n)).astype(dtype)
    a0, b0 = a.copy(), b.copy()
    trsm = blas.get_blas_funcs("trsm", (a, b))
    want = np.ascontiguousarray(trsm(1.0, a, b, side=0 if left_side else 1, lower=1, trans_a=int(transpose_a)))
    seen = []
    _spy(monkeypatch, linalg_impl._TRSM, (a.dtype.char, b.dtype.char), trsm, seen)
    # (a split float32 solve's blocks call strsm by pointer, without the GIL: here, through f2py)
    monkeypatch.setattr(linalg_impl, "_strsm", [None])
    got = linalg_impl._triangular_solve(a, b, left_side=left_side, lower=True, transpose_a=transpose_a,
                                        conjugate_a=False, unit_diagonal=False)
    assert seen and all(args[1].flags.f_contiguous and args[2].flags.f_contiguous and kw["overwrite_b"] == 1
                        for args, kw in seen)
    assert got.flags.c_contiguous and got.tobytes() == want.tobytes()
    assert a.tobytes() == a0.tobytes() and b.tobytes() == b0.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_potrf_gets_a_column_major_copy_it_may_overwrite(dtype, monkeypatch):
    n = 400
    x = rng.standard_normal((n, n))
    k = (x @ x.T + n * np.eye(n)).astype(dtype)
    k0 = k.copy()
    potrf = lapack.get_lapack_funcs("potrf", (k,))
    want = np.ascontiguousarray(potrf(k, lower=1, clean=0)[0])
    seen = []
    _spy(monkeypatch, linalg_impl._POTRF, k.dtype.char, potrf, seen)
    got = linalg_impl._cholesky(k)
    assert seen and seen[0][0][0].flags.f_contiguous and seen[0][1]["overwrite_a"] == 1
    assert got.flags.c_contiguous and got.tobytes() == want.tobytes() and k.tobytes() == k0.tobytes()
