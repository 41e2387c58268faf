"""Products and contractions against NumPy: dot, vdot, vecdot, inner, outer,
matmul (and @), matvec / vecmat, tensordot, kron, trace, cross, einsum
(explicit and implicit output, ellipses, repeated indices, the
optimize= paths, preferred_element_type) and einsum_path; the dot_general
equations JAX stages; mixed dtypes; JAX's errors; a hypothesis layer over
batched matmul shapes and random einsum specs.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close
from hypothesis import given, settings
from hypothesis import strategies as st

import pyjax
import pyjax.numpy as jnp

RNG = np.random.default_rng(17)


def rand(*shape, dtype=np.float32):
    values = RNG.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * RNG.normal(size=shape)
    if np.dtype(dtype).kind in "iu":
        values = RNG.integers(-3, 4, size=shape)
    return values.astype(dtype)


TOL = {"rtol": 1e-5, "atol": 1e-5}


@pytest.mark.parametrize("a_shape,b_shape", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                                             ((2, 3, 4), (4,)), ((2, 3, 4), (5, 4, 2)), ((), (3,)), ((2, 3), ())])
def test_dot(a_shape, b_shape):
    a, b = rand(*a_shape), rand(*b_shape)
    check_close(jnp.dot(a, b), np.dot(a, b), **TOL)


@pytest.mark.parametrize("a_shape,b_shape", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((5, 2, 3), (3, 4)),
                                             ((1, 2, 3), (6, 3, 4)), ((6, 1, 2, 3), (5, 3, 4))])
def test_matmul(a_shape, b_shape):
    a, b = rand(*a_shape), rand(*b_shape)
    check_close(jnp.matmul(a, b), np.matmul(a, b), **TOL)
    check_close(jnp.asarray(a) @ b, a @ b, **TOL)


def test_matmul_errors():
    with pytest.raises(ValueError, match="matmul input operand 0 must have ndim at least 1, but it has ndim 0"):
        jnp.matmul(np.float32(1), np.ones(3))
    with pytest.raises(TypeError, match=r"dot_general requires contracting dimensions to have the same shape, "
                       r"got \(3,\) and \(4,\)."):
        jnp.matmul(np.ones((2, 3)), np.ones((4, 2)))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.float16, np.float32, np.complex64, bool])
def test_dtypes_of_products(dtype):
    a, b = rand(2, 3, dtype=dtype), rand(3, 4, dtype=dtype)
    out = jnp.matmul(a, b)
    want = np.matmul(a.astype(np.int32) if dtype is bool else a, b.astype(np.int32) if dtype is bool else b)
    assert out.dtype == np.dtype(dtype)
    tol = {"rtol": 2e-2, "atol": 2e-2} if dtype == np.float16 else TOL
    check_close(out, (want > 0 if dtype is bool else want).astype(dtype), **tol)
    if np.dtype(dtype).kind != "c":
        check_close(jnp.matmul(a, b, preferred_element_type=np.float32), want.astype(np.float32), rtol=1e-3,
                    atol=1e-3)
    # Mixed dtypes promote as JAX does (int8 with float16 is float16).
    assert jnp.dot(rand(3, dtype=np.int8), rand(3, dtype=np.float16)).dtype == np.float16


def test_vector_products():
    a, b = rand(3), rand(3)
    z, w = rand(2, 3, dtype=np.complex64), rand(2, 3, dtype=np.complex64)
    check_close(jnp.vdot(z, w), np.vdot(z, w), **TOL)  # conjugates the first argument
    check_close(jnp.vecdot(z, w), np.vecdot(z, w), **TOL)
    p, q = rand(4, 2), rand(4, 5)
    check_close(jnp.vecdot(p[:, :1], q, axis=0), np.vecdot(p[:, :1], q, axis=0), **TOL)
    m = rand(2, 4, 3)
    check_close(jnp.inner(m, rand(5, 3) * 0 + b), np.inner(m, np.broadcast_to(b, (5, 3))), **TOL)
    check_close(jnp.inner(a, b), np.inner(a, b), **TOL)
    check_close(jnp.outer(a, b), np.outer(a, b), **TOL)
    check_close(jnp.outer(m, b), np.outer(m, b), **TOL)  # flattens its inputs
    mat, vec = rand(4, 2, 3), rand(4, 3)
    check_close(jnp.matvec(mat, vec), np.matvec(mat, vec), **TOL)
    row = rand(4, 2)
    check_close(jnp.vecmat(row, mat), np.vecmat(row, mat), **TOL)


@pytest.mark.parametrize("axes", [0, 1, 2, ([1, 0], [0, 1]), ((2,), (1,))])
def test_tensordot(axes):
    a, b = rand(3, 4, 5), rand(4, 3, 5)
    if axes == 2:
        a, b = rand(3, 4, 5), rand(4, 5, 2)
    elif axes == 1:
        b = rand(5, 2)
    elif axes == ((2,), (1,)):
        b = rand(2, 5)
    check_close(jnp.tensordot(a, b, axes), np.tensordot(a, b, axes), **TOL)


def test_tensordot_errors():
    with pytest.raises(TypeError, match="tensordot requires axes lists to have equal length, got"):
        jnp.tensordot(np.ones((2, 3)), np.ones((3, 2)), ([0, 1], [0]))
    with pytest.raises(TypeError, match="Number of tensordot axes"):
        jnp.tensordot(np.ones((2, 3)), np.ones((3, 2)), 3)


def test_kron_trace_cross():
    a, b = rand(2, 3), rand(3, 2, 2)
    check_close(jnp.kron(a, b), np.kron(a, b), **TOL)
    check_close(jnp.kron(rand(2) * 0 + 1, a), np.kron(np.ones(2, np.float32), a), **TOL)
    t = rand(3, 4, 5)
    check_close(jnp.trace(t, 1, 0, 2), np.trace(t, 1, 0, 2), **TOL)
    u, v = rand(4, 3), rand(4, 3)
    check_close(jnp.cross(u, v), np.cross(u, v), **TOL)
    check_close(jnp.cross(u[:, :2], v), np.cross(np.pad(u[:, :2], ((0, 0), (0, 1))), v), **TOL)
    check_close(jnp.cross(u.T, v.T, axisa=0, axisb=0, axisc=0), np.cross(u.T, v.T, axisa=0, axisb=0, axisc=0), **TOL)
    with pytest.raises(ValueError, match="Dimension must be either 2 or 3 for cross product"):
        jnp.cross(rand(4), rand(4))


EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]),
    ("ij->", [(2, 3)]), ("ij->ji", [(2, 3)]), ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]), ("i,i", [(3,), (3,)]),
    ("i,j->ij", [(3,), (4,)]), ("...ij,...jk->...ik", [(2, 5, 2, 3), (5, 3, 4)]), ("ij...,jk...->ik...",
                                                                                [(2, 3, 5), (3, 4, 5)]),
    ("iij->j", [(3, 3, 2)]), ("ijk,kl,lm->im", [(2, 3, 4), (4, 5), (5, 2)]), ("a,b,c->abc", [(2,), (3,), (2,)]),
    ("ab,ab->", [(3, 4), (3, 4)]), ("abc,cb->a", [(2, 3, 4), (4, 3)]), ("i,i,i->i", [(4,), (4,), (4,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]), ("...,...", [(2, 3), (3,)]), ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
]


@pytest.mark.parametrize("optimize", ["auto", "greedy", "optimal", False, True])
@pytest.mark.parametrize("spec,shapes", EINSUM)
def test_einsum(spec, shapes, optimize):
    operands = [rand(*s) for s in shapes]
    check_close(jnp.einsum(spec, *operands, optimize=optimize),
                np.einsum(spec, *[o.astype(np.float64) for o in operands]).astype(np.float32), **TOL)


def test_einsum_interleaved_and_options():
    a, b = rand(2, 3), rand(3, 4)
    check_close(jnp.einsum(a, [0, 1], b, [1, 2], [0, 2]), np.einsum(a, [0, 1], b, [1, 2], [0, 2]), **TOL)
    ints = rand(2, 3, dtype=np.int8)
    out = jnp.einsum("ij,ij->i", ints, ints, preferred_element_type=np.int32)
    assert out.dtype == np.int32
    check_close(out, np.einsum("ij,ij->i", ints.astype(np.int32), ints.astype(np.int32)))
    check_close(pyjax.jit(lambda x, y: jnp.einsum("ij,jk->ki", x, y))(a, b), np.einsum("ij,jk->ki", a, b), **TOL)
    # The contraction order opt_einsum chooses, and its report.
    path, info = jnp.einsum_path("ij,jk,kl->il", rand(2, 3), rand(3, 4), rand(4, 5), optimize="greedy")
    assert len(path) == 2 and all(len(step) == 2 for step in path)
    assert "Complete contraction:  ij,jk,kl->il" in str(info)


def test_einsum_stages_dot_general():
    jaxpr = pyjax.make_jaxpr(lambda x, y: jnp.einsum("bij,bjk->bik", x, y))(rand(5, 2, 3), rand(5, 3, 4))
    text = str(jaxpr)
    assert "dot_general" in text
    assert "dimension_numbers=(([2], [1]), ([0], [0]))" in text
    assert "name=_einsum" not in text  # JAX's jitted helper is inlined


def test_einsum_errors():
    with pytest.raises(ValueError, match="Size of label 'j' for operand 1 \\(3\\) does not match previous terms "
                       "\\(4\\)."):
        jnp.einsum("ij,jk", np.ones((2, 3)), np.ones((4, 5)))
    with pytest.raises(ValueError, match="Einstein sum subscript 'ijk' does not contain the correct number of indices for "
                       "operand 0."):
        jnp.einsum("ijk", np.ones((2, 3)))
    with pytest.raises(TypeError, match="einsum\\(\\) got an unexpected keyword argument 'bogus'"):
        jnp.einsum("ij", np.ones((2, 3)), bogus=1)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=0, max_size=2), st.integers(1, 4), st.integers(1, 4), st.integers(1, 4),
       st.booleans())
def test_hypothesis_batched_matmul(batch, n, k, m, broadcast_b):
    a = rand(*batch, n, k)
    b = rand(*([1] * len(batch) if broadcast_b else batch), k, m)
    check_close(jnp.matmul(a, b), np.matmul(a, b), **TOL)


@st.composite
def einsum_specs(draw):
    letters = "abcde"
    sizes = {c: draw(st.integers(1, 3)) for c in letters}
    n_ops = draw(st.integers(1, 3))
    terms = [draw(st.lists(st.sampled_from(letters), min_size=0, max_size=3, unique=True)) for _ in range(n_ops)]
    used = sorted({c for t in terms for c in t})
    out = draw(st.lists(st.sampled_from(used), unique=True, max_size=len(used))) if used else []
    spec = ",".join("".join(t) for t in terms) + "->" + "".join(out)
    return spec, [tuple(sizes[c] for c in t) for t in terms]


@settings(max_examples=100, deadline=None)
@given(einsum_specs(), st.sampled_from(["auto", "greedy", False]))
def test_hypothesis_einsum(case, optimize):
    spec, shapes = case
    operands = [rand(*s) for s in shapes]
    check_close(jnp.einsum(spec, *operands, optimize=optimize),
                np.asarray(np.einsum(spec, *[o.astype(np.float64) for o in operands])).astype(np.float32), **TOL)


@pytest.mark.parametrize("lhs_shape,rhs_shape,dims", [
    ((5, 3), (5, 4), (((), ()), ((0,), (0,)))),           # vmap's per-example outer products
    ((2, 5, 3), (5, 2, 4), (((), ()), ((1, 0), (0, 1)))),  # two batch dims, transposed
    ((5, 3, 1), (5, 1, 4), (((2,), (1,)), ((0,), (0,)))),  # a contracting axis of size 1
    ((3,), (4,), (((), ()), ((), ()))),                    # a plain outer product
])
def test_dot_general_without_a_sum_is_an_exact_product(lhs_shape, rhs_shape, dims):
    from pyjax import lax

    rng = np.random.default_rng(0)
    a = rng.standard_normal(lhs_shape).astype(np.float32)
    b = rng.standard_normal(rhs_shape).astype(np.float32)
    out = np.asarray(lax.dot_general(jnp.asarray(a), jnp.asarray(b), dims))
    (lc, rc), (lb, rb) = dims
    letters = "abcdefgh"
    lhs_sub = [letters[i] for i in range(len(lhs_shape))]
    rhs_sub = ["xyzw"[i] for i in range(len(rhs_shape))]
    for i, j in zip(lb + lc, rb + rc, strict=True):
        rhs_sub[j] = lhs_sub[i]
    free_l = [lhs_sub[i] for i in range(len(lhs_shape)) if i not in lb + lc]
    free_r = [rhs_sub[j] for j in range(len(rhs_shape)) if j not in rb + rc]
    spec = f"{''.join(lhs_sub)},{''.join(rhs_sub)}->{''.join([lhs_sub[i] for i in lb] + free_l + free_r)}"
    np.testing.assert_array_equal(out, np.einsum(spec, a, b))
