"""jax.experimental.sparse against dense NumPy: every format's conversions and
products, the BCOO operations, sparsify, and the primitives under jit, grad
and vmap (docs/sparse.md). JAX's own outputs are in tests/golden/sparse.json."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax.experimental import sparse
from pyjax.experimental.sparse import linalg as splinalg

RNG = np.random.default_rng(0)


def rand_sparse(shape, density=0.4, dtype=np.float32):
    x = RNG.standard_normal(shape).astype(dtype)
    return x * (RNG.random(shape) < density)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


@pytest.mark.parametrize("shape,n_batch,n_dense", [((5, 4), 0, 0), ((3, 5, 4), 1, 0), ((5, 4, 2), 0, 1),
                                                   ((2, 3, 4, 2), 1, 1), ((6,), 0, 0), ((2, 3, 4), 2, 0)])
def test_fromdense_todense_round_trip(shape, n_batch, n_dense):
    x = rand_sparse(shape)
    M = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense)
    assert (M.n_batch, M.n_dense, M.shape) == (n_batch, n_dense, shape)
    close(M.todense(), x)
    close(jax.jit(lambda M: M.todense())(M), x)
    close(sparse.bcoo_fromdense(x, nse=M.nse + 2, n_batch=n_batch, n_dense=n_dense).todense(), x)  # padding


def test_attributes_and_repr():
    M = sparse.BCOO.fromdense(np.array([[1., 0, 2], [0, 3, 0]], np.float32))
    assert repr(M) == "BCOO(float32[2, 3], nse=3)"
    assert (M.nse, M.ndim, M.dtype, M.indices_sorted, M.unique_indices) == (3, 2, np.float32, True, True)
    assert repr(M.T) == "BCOO(float32[3, 2], nse=3)" and not M.T.indices_sorted
    assert M.astype(jnp.int32).dtype == np.int32
    B = jax.tree_util.tree_unflatten(*reversed(jax.tree_util.tree_flatten(M)))
    close(B.todense(), M.todense())


@pytest.mark.parametrize("lhs_shape,n_batch,n_dense,rhs_shape,dn", [
    ((4, 5), 0, 0, (5, 3), (((1,), (0,)), ((), ()))),
    ((4, 5), 0, 0, (3, 4), (((0,), (1,)), ((), ()))),
    ((4, 5), 0, 0, (5,), (((1,), (0,)), ((), ()))),
    ((2, 4, 5), 1, 0, (2, 5, 3), (((2,), (1,)), ((0,), (0,)))),
    ((2, 4, 5), 1, 0, (5, 3), (((2,), (0,)), ((), ()))),
    ((2, 4, 5), 1, 0, (2, 5), (((0, 2), (0, 1)), ((), ()))),
    ((4, 5, 3), 0, 1, (3, 2), (((2,), (0,)), ((), ()))),
    ((4, 5, 3), 0, 1, (5, 3), (((1, 2), (0, 1)), ((), ()))),
])
def test_dot_general_against_dense(lhs_shape, n_batch, n_dense, rhs_shape, dn):
    x, y = rand_sparse(lhs_shape), RNG.standard_normal(rhs_shape).astype(np.float32)
    M = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense)
    want = jax.lax.dot_general(jnp.asarray(x), jnp.asarray(y), dn)
    close(sparse.bcoo_dot_general(M, y, dimension_numbers=dn), want)
    close(jax.jit(lambda M, y: sparse.bcoo_dot_general(M, y, dimension_numbers=dn))(M, y), want)
    # Reverse mode against the dense product's, restricted to the stored elements.
    f = lambda d, y: (sparse.bcoo_dot_general(sparse.BCOO((d, M.indices), shape=M.shape), y,
                                              dimension_numbers=dn) ** 2).sum()
    g_data, g_y = jax.grad(f, argnums=(0, 1))(M.data, y)
    gx, gy = jax.grad(lambda x, y: (jax.lax.dot_general(x, y, dn) ** 2).sum(), argnums=(0, 1))(jnp.asarray(x), y)
    close(g_y, gy, 1e-4)
    stored = sparse.BCOO((jnp.ones_like(M.data), M.indices), shape=M.shape).todense() != 0  # dense blocks too
    close(sparse.BCOO((g_data, M.indices), shape=M.shape).todense(), np.where(stored, gx, 0), 1e-4)


def test_dense_times_sparse_and_sparse_times_sparse():
    x, y = rand_sparse((4, 5)), rand_sparse((5, 3))
    M, N = sparse.BCOO.fromdense(x), sparse.BCOO.fromdense(y)
    close(jnp.asarray(y.T) @ M.T, y.T @ x.T)
    P = M @ N
    assert isinstance(P, sparse.BCOO)
    close(P.todense(), x @ y)
    close(sparse.bcoo_multiply_sparse(M, M).todense(), x * x)
    close(sparse.bcoo_multiply_dense(M, np.full((4, 5), 2., np.float32)), M.data * 2)


def test_dot_general_sampled_and_its_gradient():
    A, B = RNG.standard_normal((3, 4)).astype(np.float32), RNG.standard_normal((4, 5)).astype(np.float32)
    idx = jnp.array([[0, 1], [2, 4], [1, 1]])
    dn = (((1,), (0,)), ((), ()))
    out = sparse.bcoo_dot_general_sampled(A, B, idx, dimension_numbers=dn)
    close(out, (A @ B)[idx[:, 0], idx[:, 1]])
    gA = jax.grad(lambda A: sparse.bcoo_dot_general_sampled(A, B, idx, dimension_numbers=dn).sum())(A)
    close(gA, jax.grad(lambda A: (A @ B)[idx[:, 0], idx[:, 1]].sum())(A))


def test_vmap_adds_a_batch_dimension():
    x = rand_sparse((3, 4, 5))
    B = sparse.BCOO.fromdense(x, n_batch=1)
    close(jax.vmap(lambda M: M.todense())(B), x)
    T = jax.vmap(lambda M: M.T)(B)
    assert (T.shape, T.n_batch) == ((3, 5, 4), 1)
    close(T.todense(), x.transpose(0, 2, 1))
    v = RNG.standard_normal((3, 5)).astype(np.float32)
    close(jax.vmap(lambda M, v: M @ v)(B, v), np.einsum("bij,bj->bi", x, v))
    M = sparse.BCOO.fromdense(x[0])
    close(jax.vmap(lambda v: M @ v)(v), v @ x[0].T)
    close(jax.vmap(lambda m: sparse.bcoo_fromdense(m, nse=20).todense())(x), x)


def test_fromdense_transpose_extract_grads():
    x = rand_sparse((3, 4))
    g = jax.grad(lambda x: (sparse.bcoo_fromdense(x, nse=12).data ** 2).sum())(jnp.asarray(x))
    close(g, 2 * x)
    M = sparse.BCOO.fromdense(x)
    t = jax.jvp(lambda d: sparse.bcoo_transpose(sparse.BCOO((d, M.indices), shape=M.shape),
                                                permutation=(1, 0)).todense(), (M.data,), (jnp.ones(M.nse),))[1]
    close(t, (x != 0).T.astype(np.float32))
    close(sparse.bcoo_extract(M, x * 3).data, M.data * 3)


def test_sort_and_sum_duplicates():
    D = sparse.BCOO((jnp.array([1., 2., 3., 4.]), jnp.array([[1, 0], [0, 1], [1, 0], [0, 0]])), shape=(2, 2))
    S = sparse.bcoo_sort_indices(D)
    assert S.indices.tolist() == [[0, 0], [0, 1], [1, 0], [1, 0]]
    close(S.todense(), D.todense())
    U = sparse.bcoo_sum_duplicates(D)
    assert U.nse == 3 and U.unique_indices
    close(U.todense(), [[4., 2.], [4., 0.]])
    close(jax.jit(lambda D: sparse.bcoo_sum_duplicates(D, nse=4).todense())(D), D.todense())


@pytest.mark.parametrize("name", ["slice", "dynamic_slice", "reduce_sum", "reshape", "concatenate", "rev",
                                  "squeeze", "broadcast_in_dim", "update_layout"])
def test_bcoo_operations_against_dense(name):
    x = rand_sparse((4, 6))
    M = sparse.BCOO.fromdense(x)
    xb = rand_sparse((2, 4, 6))
    B = sparse.BCOO.fromdense(xb, n_batch=1)
    cases = {
        "slice": lambda: [(sparse.bcoo_slice(M, start_indices=(1, 0), limit_indices=(4, 5), strides=(1, 2)),
                           x[1:4, 0:5:2]),
                          (sparse.bcoo_slice(B, start_indices=(1, 1, 2), limit_indices=(2, 3, 6)), xb[1:2, 1:3, 2:6])],
        "dynamic_slice": lambda: [(sparse.bcoo_dynamic_slice(M, (1, 3), (2, 3)), x[1:3, 3:6]),
                                  (sparse.bcoo_dynamic_slice(B, (1, 2, 5), (1, 2, 2)), xb[1:2, 2:4, 4:6])],
        "reduce_sum": lambda: [(sparse.bcoo_reduce_sum(M, axes=(0,)), x.sum(0)),
                               (sparse.bcoo_reduce_sum(B, axes=(0, 2)), xb.sum((0, 2)))],
        "reshape": lambda: [(sparse.bcoo_reshape(M, new_sizes=(3, 8)), x.reshape(3, 8)),
                            (sparse.bcoo_reshape(B, new_sizes=(2, 24)), xb.reshape(2, 24))],
        "concatenate": lambda: [(sparse.bcoo_concatenate([M, M], dimension=1), np.concatenate([x, x], 1)),
                                (sparse.bcoo_concatenate([B, B], dimension=0), np.concatenate([xb, xb], 0))],
        "rev": lambda: [(sparse.bcoo_rev(M, (0, 1)), x[::-1, ::-1]), (sparse.bcoo_rev(B, (0, 2)), xb[::-1, :, ::-1])],
        "squeeze": lambda: [(sparse.bcoo_squeeze(sparse.BCOO.fromdense(x[None]), dimensions=(0,)), x)],
        "broadcast_in_dim": lambda: [
            (sparse.bcoo_broadcast_in_dim(M, shape=(3, 4, 6), broadcast_dimensions=(1, 2)), np.broadcast_to(x, (3, 4, 6))),
            (sparse.bcoo_broadcast_in_dim(M, shape=(4, 6, 1), broadcast_dimensions=(0, 1)), x[:, :, None])],
        "update_layout": lambda: [(sparse.bcoo_update_layout(M, n_batch=1, on_inefficient=None), x),
                                  (sparse.bcoo_update_layout(B, n_batch=0), xb)],
    }
    for out, want in cases[name]():
        assert out.shape == want.shape
        close(out.todense(), want)


def test_sparsify_rules():
    x = rand_sparse((3, 4))
    M = sparse.BCOO.fromdense(x)
    v = RNG.standard_normal(4).astype(np.float32)
    f = sparse.sparsify(lambda M, v: jnp.sin(M) @ v + (M * 2).sum(0).sum() - (M.T.T - M).sum())
    close(f(M, v), np.sin(x) @ v + 2 * x.sum())
    close(jax.jit(f)(M, v), np.sin(x) @ v + 2 * x.sum())
    close(sparse.sparsify(lambda M: sparse.todense(M[1:] + M[:2]))(M), x[1:] + x[:2])
    close(sparse.sparsify(lambda M: jnp.abs(-M) ** 2 / 4.)(M).todense(), np.abs(x) ** 2 / 4)
    close((M * M).todense(), x * x)
    with pytest.raises(NotImplementedError, match="sparse rule for cos"):
        sparse.sparsify(jnp.cos)(M)
    with pytest.raises(NotImplementedError, match="Subtraction between sparse and dense"):
        sparse.sparsify(lambda M: M - jnp.ones((3, 4)))(M)
    with pytest.raises(NotImplementedError, match="sparse rule for sort"):
        sparse.sparsify(lambda M: jnp.sort(M))(M)


def test_sparse_autodiff_wrappers():
    x = rand_sparse((3, 4))
    M = sparse.BCOO.fromdense(x)
    v = jnp.arange(4.)
    g = sparse.grad(lambda M: (M @ v).sum())(M)
    assert isinstance(g, sparse.BCOO)
    close(g.todense(), np.where(x != 0, np.broadcast_to(v, x.shape), 0))
    val, (gM, gv) = sparse.value_and_grad(lambda M, v: (M @ v).sum(), argnums=(0, 1))(M, v)
    close(val, (x @ np.arange(4.)).sum())
    close(gv, x.sum(0))
    J = sparse.jacrev(lambda M: M @ v)(M)
    close(J.todense(), jax.jacrev(lambda x: x @ v)(jnp.asarray(x)) * (x != 0))
    close(sparse.jacfwd(lambda M: M @ v)(M).todense(), J.todense())


def test_constructors():
    assert repr(sparse.empty((2, 3))) == "BCOO(float32[2, 3], nse=0)"
    close(sparse.eye(4, 3, k=1).todense(), np.eye(4, 3, 1))
    for fmt in ("coo", "csr", "csc"):
        close(sparse.eye(3, k=-1, sparse_format=fmt).todense(), np.eye(3, k=-1))
    R = sparse.random_bcoo(jax.random.key(1), (5, 6), nse=0.3, n_batch=0)
    assert R.nse == 9 and len({tuple(i) for i in R.indices.tolist()}) == 9
    with pytest.raises(ValueError, match="sparse_format"):
        sparse.empty((2,), sparse_format="nope")


def test_bcsr():
    x = rand_sparse((4, 5))
    C = sparse.BCSR.fromdense(x)
    close(C.todense(), x)
    close(C.to_bcoo().todense(), x)
    close(sparse.BCSR.from_bcoo(sparse.BCOO.fromdense(x)).todense(), x)
    v = RNG.standard_normal(5).astype(np.float32)
    close(C @ v, x @ v)
    dn = (((1,), (0,)), ((), ()))
    close(sparse.bcsr_dot_general(C, v, dimension_numbers=dn), x @ v)
    g = jax.grad(lambda d: sparse.bcsr_dot_general(sparse.BCSR((d, C.indices, C.indptr), shape=C.shape), v,
                                                   dimension_numbers=dn).sum())(C.data)
    close(sparse.BCSR((g, C.indices, C.indptr), shape=C.shape).todense(), np.where(x != 0, v, 0))
    close(sparse.bcsr_extract(C.indices, C.indptr, x * 2), C.data * 2)
    xb = rand_sparse((2, 3, 4))
    close(sparse.BCSR.fromdense(xb, n_batch=1).todense(), xb)
    close(jax.jit(lambda C: C.todense())(C), x)


@pytest.mark.parametrize("cls", ["COO", "CSR", "CSC"])
def test_legacy_formats(cls):
    x = rand_sparse((4, 5))
    fmt = getattr(sparse, cls)
    m = fmt.fromdense(x)
    close(m.todense(), x)
    close(m.T.todense(), x.T)
    v, B = RNG.standard_normal(5).astype(np.float32), RNG.standard_normal((5, 2)).astype(np.float32)
    close(m @ v, x @ v)
    close(m @ B, x @ B)
    close(jax.jit(lambda m, v: m @ v)(m, v), x @ v)
    close(jax.vmap(lambda v: m @ v)(B.T), (x @ B).T)
    bufs, tree = jax.tree_util.tree_flatten(m)
    g = jax.grad(lambda d: (jax.tree_util.tree_unflatten(tree, [d, *bufs[1:]]) @ v).sum())(bufs[0])
    close(jax.tree_util.tree_unflatten(tree, [g, *bufs[1:]]).todense(), np.where(x != 0, v, 0))


def test_legacy_primitives_transpose_flag():
    x = rand_sparse((4, 5))
    c = sparse.CSR.fromdense(x)
    u = RNG.standard_normal(4).astype(np.float32)
    close(sparse.csr_matvec(c, u, transpose=True), x.T @ u)
    o = sparse.COO.fromdense(x)
    close(sparse.coo_matmat(o, np.ones((4, 2), np.float32), transpose=True), x.T @ np.ones((4, 2)))


def test_todense_generic():
    x = rand_sparse((3, 4))
    for m in (sparse.BCOO.fromdense(x), sparse.BCSR.fromdense(x), sparse.COO.fromdense(x), sparse.CSR.fromdense(x)):
        close(sparse.todense(m), x)
    close(sparse.todense(jnp.asarray(x)), x)
    M = sparse.BCOO.fromdense(x)
    g = jax.grad(lambda d: (sparse.todense(sparse.BCOO((d, M.indices), shape=M.shape)) ** 2).sum())(M.data)
    close(g, 2 * M.data)


def test_vmap_of_sparse_times_sparse():
    # bcoo_spdot_general's batching rule: either operand, or both, batched.
    x = rand_sparse((3, 4, 5))
    y = rand_sparse((5, 6))
    Y = sparse.BCOO.fromdense(y)
    prod = lambda a: (sparse.bcoo_fromdense(a, nse=20) @ Y).todense()
    close(jax.vmap(prod)(x), x @ y)
    close(jax.jit(jax.vmap(prod))(x), x @ y)
    ys = rand_sparse((3, 5, 6))
    both = lambda a, b: (sparse.bcoo_fromdense(a, nse=20) @ sparse.bcoo_fromdense(b, nse=30)).todense()
    close(jax.vmap(both)(x, ys), np.einsum("bij,bjk->bik", x, ys))


def test_vmap_of_spsolve_raises_jaxs_missing_rule_error():
    C = sparse.CSR.fromdense(np.eye(3, dtype=np.float32))
    b = np.ones((2, 3), np.float32)
    with pytest.raises(NotImplementedError, match="^Batching rule for 'spsolve' not implemented$"):
        jax.vmap(lambda b: splinalg.spsolve(C.data, C.indices, C.indptr, b))(b)


def test_spsolve_against_numpy():
    A = np.array([[4., 1, 0, 0], [1, 3, 1, 0], [0, 1, 5, 2], [0, 0, 2, 6]], np.float32)
    C = sparse.CSR.fromdense(A)
    b = np.arange(1., 5., dtype=np.float32)
    close(splinalg.spsolve(C.data, C.indices, C.indptr, b), np.linalg.solve(A, b))
    close(jax.jit(splinalg.spsolve)(C.data, C.indices, C.indptr, b), np.linalg.solve(A, b))
    gb = jax.grad(lambda b: splinalg.spsolve(C.data, C.indices, C.indptr, b).sum())(b)
    close(gb, np.linalg.solve(A.T, np.ones(4)))
    gd = jax.grad(lambda d: splinalg.spsolve(d, C.indices, C.indptr, b).sum())(C.data)
    dense = jax.grad(lambda A: jnp.linalg.solve(A, b).sum())(jnp.asarray(A))
    close(gd, np.asarray(dense)[np.nonzero(A)], 1e-4)


def test_lobpcg_standard_finds_top_eigenvalues():
    A = RNG.standard_normal((30, 30)).astype(np.float32)
    A = (A @ A.T) / 30
    theta, U, i = splinalg.lobpcg_standard(jnp.asarray(A), jnp.asarray(RNG.standard_normal((30, 3)), jnp.float32))
    close(theta, np.linalg.eigvalsh(A)[::-1][:3], 1e-3)
    close(jnp.abs(U.T @ U), np.eye(3), 1e-3)
    with pytest.raises(ValueError, match="search dim"):
        splinalg.lobpcg_standard(jnp.eye(10), jnp.ones((10, 2)))


def test_sparse_primitives_lower_to_stablehlo():
    M = sparse.BCOO.fromdense(np.array([[1., 0, 2], [0, 3, 0]], np.float32))
    text = jax.jit(lambda M, v: M @ v).lower(M, jnp.ones(3)).as_text()
    assert "stablehlo" in text and "bcoo" not in text


def test_gather_by_integer_indexing():
    x = rand_sparse((5, 4))
    M = sparse.BCOO.fromdense(x)
    idx = jnp.array([[4, 0], [1, 1]])
    out = sparse.sparsify(lambda M, i: M[i])(M, idx)
    assert isinstance(out, sparse.BCOO) and out.n_batch == 2
    close(out.todense(), x[np.asarray(idx)])
    close(jax.jit(sparse.sparsify(lambda M, i: M[i]))(M, idx[0]).todense(), x[[4, 0]])


@pytest.mark.parametrize("use_tracer", [False, True])
def test_sparsify_both_forms_and_full_reduction_gradient(use_tracer):
    x = rand_sparse((3, 4))
    M = sparse.BCOO.fromdense(x)
    v = RNG.standard_normal(4).astype(np.float32)
    f = sparse.sparsify(lambda M, v: jnp.sin(M) @ v + (M * M).sum(), use_tracer=use_tracer)
    close(f(M, v), np.sin(x) @ v + (x * x).sum())
    close(jax.jit(f)(M, v), np.sin(x) @ v + (x * x).sum())
    g = jax.grad(lambda d: f(sparse.BCOO((d, M.indices), shape=M.shape), v).sum())(M.data)
    close(g, 3 * 2 * M.data + np.cos(M.data) * v[M.indices[:, 1]], 1e-4)
    if use_tracer:
        seen = []
        sparse.sparsify(lambda M: seen.append(M) or M, use_tracer=True)(M)
        assert isinstance(seen[0], sparse.SparseTracer) and seen[0].shape == (3, 4)


@pytest.mark.parametrize("padding", ["VALID", "SAME", [(2, 1)]])
def test_conv_1d_against_dense(padding):
    x, k = rand_sparse((1, 1, 9)), RNG.standard_normal((1, 1, 3)).astype(np.float32)
    want = jax.lax.conv_general_dilated(jnp.asarray(x), jnp.asarray(k), (1,), padding)
    X, K = sparse.BCOO.fromdense(x), sparse.BCOO.fromdense(k)
    close(sparse.bcoo_conv_general_dilated(X, k, window_strides=(1,), padding=padding).todense(), want)
    close(sparse.bcoo_conv_general_dilated(x, K, window_strides=(1,), padding=padding).todense(), want)
    conv = sparse.sparsify(lambda X: jax.lax.conv_general_dilated(X, k, (1,), padding))
    close(conv(X).todense(), want)
