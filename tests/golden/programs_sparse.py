"""jax.experimental.sparse (issue 26): BCOO and its primitives under jit,
grad and vmap, sparsify, BCSR, the legacy COO/CSR/CSC formats and
sparse.linalg, recorded from JAX 0.11.0 in ``sparse.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py sparse
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, _program = program_set()

# Each program imports the sparse package of the implementation under test.
_HEAD = """
import importlib
sparse = importlib.import_module(jax.__name__ + '.experimental.sparse')
x = jnp.array([[1., 0., 2.], [0., 3., 0.]])
M = sparse.BCOO.fromdense(x)
"""


def program(name: str, expect: str, source: str) -> None:
    _program(name, expect, _HEAD + source)


# -- BCOO: construction, attributes, reprs
program("bcoo_repr", "text", "result = repr(M)")
program("bcoo_attrs", "text", """
result = str((M.shape, M.nse, M.n_batch, M.n_sparse, M.n_dense, M.indices_sorted, M.unique_indices,
              str(M.dtype), M.ndim, M.data.tolist(), M.indices.tolist()))
""")
program("bcoo_repr_batched_dense", "text",
        "result = repr(sparse.BCOO.fromdense(jnp.ones((2, 3, 4)), n_batch=1, n_dense=1))")
program("bcoo_batched_buffers", "text", """
B = sparse.BCOO.fromdense(jnp.arange(24.).reshape(2, 3, 4), n_batch=1)
result = str((B.data.tolist(), B.indices.tolist()))
""")
program("bcoo_fromdense_nse_padding", "text", """
B = sparse.bcoo_fromdense(x, nse=5)
result = str((repr(B), B.data.tolist(), B.indices.tolist()))
""")
program("bcoo_todense_value", "value", "result = M.todense()")
program("bcoo_transpose_repr", "text", "result = repr(M.T) + ' ' + str(M.T.indices_sorted)")
program("bcoo_transpose_value", "value", "result = M.T.todense()")
program("bcoo_fromdense_under_jit_error", "error", "result = jax.jit(lambda x: sparse.BCOO.fromdense(x))(x)")
# -- jaxprs of the primitives
program("jaxpr_todense", "jaxpr", "result = jax.make_jaxpr(lambda M: M.todense())(M)")
program("jaxpr_matvec", "jaxpr", "result = jax.make_jaxpr(lambda M, v: M @ v)(M, jnp.ones(3))")
program("jaxpr_dot_general_explicit", "jaxpr", """
result = jax.make_jaxpr(lambda M, v: sparse.bcoo_dot_general(M, v, dimension_numbers=(((1,), (0,)), ((), ()))))(
    M, jnp.ones((3, 2)))
""")
program("jaxpr_transpose_todense", "jaxpr", "result = jax.make_jaxpr(lambda M: M.T.todense())(M)")
program("jaxpr_spdot", "jaxpr", "result = jax.make_jaxpr(lambda M: M @ M.T)(M)")
program("jaxpr_vmap_todense", "jaxpr", """
B = sparse.BCOO.fromdense(jnp.ones((2, 3, 4)), n_batch=1)
result = jax.make_jaxpr(jax.vmap(lambda M: M.todense()))(B)
""")
program("jaxpr_todense_generic", "jaxpr", "result = jax.make_jaxpr(lambda M: sparse.todense(M))(M)")
# -- products
program("matvec_value", "value", "result = M @ jnp.array([1., 2., 3.])")
program("matmat_value", "value", "result = M @ jnp.arange(6.).reshape(3, 2)")
program("dense_matmul_sparse_value", "value", "result = jnp.arange(4.).reshape(2, 2) @ M")
program("spdot_repr_buffers", "text", """
P = M @ M.T
result = str((repr(P), P.data.tolist(), P.indices.tolist()))
""")
program("batched_dot_general_value", "value", """
B = sparse.BCOO.fromdense(jnp.arange(24.).reshape(2, 3, 4) % 3, n_batch=1)
result = sparse.bcoo_dot_general(B, jnp.arange(8.).reshape(2, 4), dimension_numbers=(((2,), (1,)), ((0,), (0,))))
""")
program("dot_general_sampled_value", "value", """
A, Bm = jnp.arange(6.).reshape(2, 3), jnp.arange(12.).reshape(3, 4)
idx = jnp.array([[0, 1], [1, 3], [0, 0]])
result = sparse.bcoo_dot_general_sampled(A, Bm, idx, dimension_numbers=(((1,), (0,)), ((), ())))
""")
# -- autodiff
program("grad_data_and_rhs", "value", """
f = lambda d, v: (sparse.BCOO((d, M.indices), shape=(2, 3)) @ v).sum()
result = jnp.concatenate([t.ravel() for t in jax.grad(f, argnums=(0, 1))(M.data, jnp.arange(6.).reshape(3, 2))])
""")
program("grad_todense", "value", """
result = jax.grad(lambda d: (sparse.BCOO((d, M.indices), shape=(2, 3)).todense() ** 2).sum())(M.data)
""")
program("grad_fromdense", "value", "result = jax.grad(lambda x: (sparse.bcoo_fromdense(x, nse=3).data ** 2).sum())(x)")
program("jvp_transpose", "value", """
f = lambda d: sparse.bcoo_transpose(sparse.BCOO((d, M.indices), shape=(2, 3)), permutation=(1, 0)).todense()
result = jax.jvp(f, (M.data,), (jnp.ones(3),))[1]
""")
program("sparse_grad_repr", "text", """
g = sparse.grad(lambda M: (M @ jnp.ones(3)).sum())(M)
result = repr(g) + ' ' + str(g.data.tolist())
""")
program("sparse_value_and_grad_docstring", "text", """
X = sparse.BCOO.fromdense(jnp.arange(6.))
result = repr(sparse.value_and_grad(lambda X, y: X @ y)(X, jnp.ones(6)))
""")
# -- jit and vmap
program("jit_matvec", "value", "result = jax.jit(lambda M, v: M @ v)(M, jnp.array([1., 2., 3.]))")
program("vmap_transpose_repr", "text", """
B = sparse.BCOO.fromdense(jnp.arange(24.).reshape(2, 3, 4), n_batch=1)
result = repr(jax.vmap(lambda M: M.T)(B))
""")
program("vmap_matvec_over_vectors", "value", "result = jax.vmap(lambda v: M @ v)(jnp.arange(12.).reshape(4, 3))")
# -- sparsify
program("sparsify_jaxpr", "jaxpr", """
result = jax.make_jaxpr(sparse.sparsify(lambda M, v: jnp.sin(M) @ v + 1))(M, jnp.ones(3))
""")
program("sparsify_add_same_indices_jaxpr", "jaxpr", "result = jax.make_jaxpr(sparse.sparsify(lambda M: M + M))(M)")
program("sparsify_reprs", "text", """
fs = [lambda M: M * 2, lambda M: M + M, lambda M: -M, lambda M: M.sum(0), lambda M: M[0], lambda M: M * M,
      lambda M: M.reshape(3, 2), lambda M: M[:, 1:], lambda M: M / 2.]
result = ' '.join(repr(sparse.sparsify(f)(M)) for f in fs)
""")
program("sparsify_values", "value", """
fs = [lambda M: M * 2, lambda M: M + M, lambda M: -M, lambda M: M * M, lambda M: M.T.T, lambda M: M / 2.]
result = jnp.stack([sparse.sparsify(f)(M).todense() for f in fs])
""")
program("sparsify_sum_all", "value", "result = sparse.sparsify(lambda M: M.sum())(M)")
program("sparsify_exp_error", "error", "result = sparse.sparsify(jnp.exp)(M)")
program("sparsify_add_dense_error", "error", "result = sparse.sparsify(lambda M: M + 1)(M)")
program("sparsify_div_by_sparse_error", "error", "result = sparse.sparsify(lambda M: 2. / M)(M)")
# -- BCOO operations
program("slice_buffers", "text", """
r = sparse.bcoo_slice(M, start_indices=(0, 1), limit_indices=(2, 3))
result = str((repr(r), r.data.tolist(), r.indices.tolist(), r.indices_sorted, r.unique_indices))
""")
program("reduce_sum_buffers", "text", """
r = sparse.bcoo_reduce_sum(M, axes=(0,))
result = str((repr(r), r.data.tolist(), r.indices.tolist(), r.indices_sorted, r.unique_indices))
""")
program("reshape_buffers", "text", """
r = sparse.bcoo_reshape(M, new_sizes=(3, 2))
result = str((repr(r), r.data.tolist(), r.indices.tolist()))
""")
program("concatenate_buffers", "text", """
r = sparse.bcoo_concatenate([M, M], dimension=0)
result = str((repr(r), r.data.tolist(), r.indices.tolist()))
""")
program("multiply_dense_value", "value", "result = sparse.bcoo_multiply_dense(M, jnp.ones((2, 3)) * 2)")
program("multiply_sparse_repr", "text", "result = repr(sparse.bcoo_multiply_sparse(M, M))")
program("broadcast_in_dim_reprs", "text", """
result = ' '.join(repr(sparse.bcoo_broadcast_in_dim(M, shape=s, broadcast_dimensions=d))
                  for s, d in [((4, 2, 3), (1, 2)), ((2, 3, 1), (0, 1)), ((2, 1, 3), (0, 2))])
""")
program("update_layout_error", "error", "result = sparse.bcoo_update_layout(M, n_batch=1)")
program("sum_duplicates_buffers", "text", """
D = sparse.BCOO((jnp.array([1., 2., 3.]), jnp.array([[0, 1], [0, 1], [1, 0]])), shape=(2, 2))
r = sparse.bcoo_sum_duplicates(D)
result = str((repr(r), r.data.tolist(), r.indices.tolist()))
""")
program("rev_value", "value", "result = sparse.bcoo_rev(M, (0,)).todense()")
# -- constructors
program("empty_eye_reprs", "text", "result = ' '.join(map(repr, [sparse.empty((2, 3)), sparse.eye(3), "
                                    "sparse.eye(3, sparse_format='csr'), sparse.eye(4, 3, k=1)]))")
program("random_bcoo_value", "value", "result = sparse.random_bcoo(jax.random.key(0), (3, 4), nse=0.5).todense()")
# -- BCSR and the legacy formats
program("bcsr_buffers", "text", """
C = sparse.BCSR.fromdense(x)
result = str((repr(C), C.data.tolist(), C.indices.tolist(), C.indptr.tolist()))
""")
program("bcsr_jaxpr_todense", "jaxpr", "result = jax.make_jaxpr(lambda C: C.todense())(sparse.BCSR.fromdense(x))")
program("bcsr_matvec_value", "value", "result = sparse.BCSR.fromdense(x) @ jnp.array([1., 2., 3.])")
program("coo_buffers_and_jaxpr", "text", """
c = sparse.COO.fromdense(x)
result = str((repr(c), c.data.tolist(), c.row.tolist(), c.col.tolist()))
result += str(jax.make_jaxpr(lambda c, v: c @ v)(c, jnp.ones(3)))
""")
program("csr_jaxprs", "text", """
c = sparse.CSR.fromdense(x)
result = str((repr(c), c.data.tolist(), c.indices.tolist(), c.indptr.tolist()))
result += str(jax.make_jaxpr(lambda c, v: c @ v)(c, jnp.ones(3))) + str(jax.make_jaxpr(lambda c: c.todense())(c))
""")
program("csr_grad_value", "value", """
c = sparse.CSR.fromdense(x)
result = jax.grad(lambda d: (sparse.CSR((d, c.indices, c.indptr), shape=(2, 3)) @ jnp.arange(3.)).sum())(c.data)
""")
program("csc_matvec_value", "value", "result = sparse.CSC.fromdense(x) @ jnp.array([1., 2., 3.])")
# -- sparse.linalg
_SOLVE = """
A = jnp.array([[4., 1, 0], [1, 3, 0], [0, 0, 2]])
C = sparse.CSR.fromdense(A)
b = jnp.array([1., 2, 3])
"""
program("spsolve_value", "value", _SOLVE + "result = sparse.linalg.spsolve(C.data, C.indices, C.indptr, b)")
program("spsolve_jaxpr", "jaxpr", _SOLVE + """
result = jax.make_jaxpr(lambda d, b: sparse.linalg.spsolve(d, C.indices, C.indptr, b))(C.data, b)
""")
program("spsolve_grad", "value", _SOLVE + """
g = jax.grad(lambda d, b: sparse.linalg.spsolve(d, C.indices, C.indptr, b).sum(), argnums=(0, 1))(C.data, b)
result = jnp.concatenate(g)
""")
program("lobpcg_eigenvalues", "value", """
A = jnp.diag(jnp.arange(1., 21.))
theta, U, i = sparse.linalg.lobpcg_standard(A, jax.random.normal(jax.random.key(0), (20, 2)))
result = theta
""")
program("lobpcg_small_error", "error", """
result = sparse.linalg.lobpcg_standard(jnp.eye(10), jnp.ones((10, 2)))
""")
# -- gather (integer-array indexing) and capped slices
program("sparsify_gather", "text", """
M3 = sparse.BCOO.fromdense(jnp.array([[1., 0, 2], [0, 3, 0], [4, 0, 0]]))
r = sparse.sparsify(lambda M: M[jnp.array([0, 2])])(M3)
result = repr(r) + str(r.todense().tolist()) + repr(sparse.sparsify(lambda M: M[1])(M3))
result += repr(sparse.bcoo_slice(M3, start_indices=(1, 1), limit_indices=(2, 2)))
""")
# -- the tracer form of sparsify; a full reduction's gradient
program("sparsify_use_tracer_jaxpr", "jaxpr", """
result = jax.make_jaxpr(sparse.sparsify(lambda M, v: jnp.sin(M) @ v + 1, use_tracer=True))(M, jnp.ones(3))
""")
program("sparsify_use_tracer_sees_tracer", "text", """
seen = []
sparse.sparsify(lambda M: seen.append(M) or M, use_tracer=True)(M)
result = type(seen[0]).__name__ + ' ' + str(seen[0].shape) + ' ' + str(seen[0].dtype)
""")
program("grad_sparsify_full_sum", "value", """
result = jax.grad(lambda d: sparse.sparsify(lambda M: (M * M).sum())(sparse.BCOO((d, M.indices), shape=(2, 3))))(M.data)
""")
# -- 1-D convolution with a sparse operand
program("conv_general_dilated", "text", """
xc = jnp.array([[[0., 1, 0, 2, 0, 0, 3]]])
kc = jnp.array([[[1., 0, 2]]])
outs = [sparse.bcoo_conv_general_dilated(sparse.BCOO.fromdense(xc), kc, window_strides=(1,), padding=p)
        for p in ['VALID', 'SAME', [(2, 1)]]]
outs.append(sparse.sparsify(lambda X: lax.conv_general_dilated(X, kc, (1,), 'SAME'))(sparse.BCOO.fromdense(xc)))
result = ' '.join(repr(o) + str(o.todense().tolist()) for o in outs)
""")
program("conv_strided_error", "error", """
result = sparse.bcoo_conv_general_dilated(sparse.BCOO.fromdense(jnp.ones((1, 1, 5))), jnp.ones((1, 1, 2)),
                                          window_strides=(2,), padding='VALID')
""")
