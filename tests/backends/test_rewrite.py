"""The NumPy backend's jaxpr rewrites and fast impls keep results exact."""

import numpy as np

import pyjax as jax
import pyjax.numpy as jnp
from pyjax._src.backends.numpy.impls import IMPLS
from pyjax._src.backends.numpy.impls.standard import _select_n
from pyjax._src.backends.numpy.xla.rewrite import simplify
from pyjax._src.lax import elementwise as ew


def test_transposed_matmul_becomes_one_swapped_dot_general():
    jaxpr = jax.make_jaxpr(lambda a, b: (a.T @ b).T)(jnp.ones((4, 3)), jnp.ones((4, 5)))
    assert [e.primitive.name for e in jaxpr.eqns] == ["transpose", "dot_general", "transpose"]
    rewritten = simplify(jaxpr)
    assert [e.primitive.name for e in rewritten.eqns] == ["transpose", "dot_general"]
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    b = np.arange(20, dtype=np.float32).reshape(4, 5) / 7
    out = jax.jit(lambda a, b: (a.T @ b).T)(a, b)
    np.testing.assert_allclose(np.asarray(out), (a.T @ b).T, rtol=1e-6)
    assert np.asarray(out).flags.c_contiguous


def test_rewrite_leaves_shared_products_alone():
    def f(a, b):
        d = a @ b
        return d.T, d  # the product is used twice: it must stay

    jaxpr = jax.make_jaxpr(f)(jnp.ones((2, 3)), jnp.ones((3, 4)))
    assert simplify(jaxpr) is jaxpr


def test_bitwise_select_matches_where_exactly():
    rng = np.random.default_rng(0)
    which = rng.standard_normal((64, 128)) > 0
    for dtype in (np.float32, np.float16, np.int32, np.int8, np.float64, np.complex64):
        a = (rng.standard_normal((64, 128)) * 10).astype(dtype)
        b = np.broadcast_to(np.array(np.nan if np.issubdtype(dtype, np.inexact) else 3, dtype), (64, 128))
        fast = IMPLS[ew.select_n_p](which, b, a)
        slow = _select_n(which, b, a)
        assert fast.dtype == slow.dtype
        np.testing.assert_array_equal(fast, slow)
    signed_zero = IMPLS[ew.select_n_p](np.ones(5000, bool), np.zeros(5000, np.float32), np.full(5000, -0.0, np.float32))
    assert np.signbit(signed_zero).all()


def test_select_between_two_single_values_matches_where_exactly():
    # relu's derivative mask: select_n(x > 0, 0.0, 1.0) over broadcast scalars,
    # computed as b ^ which * (a ^ b) on the bit patterns.
    rng = np.random.default_rng(1)
    which = rng.standard_normal((64, 128)) > 0
    pairs = [(0.0, 1.0), (-0.0, np.nan), (np.inf, -np.inf), (3, -7), (1e-40, -2.5)]
    for dtype in (np.float32, np.float64, np.float16, np.int8, np.int32, np.uint64, np.bool_):
        for lo, hi in pairs:
            with np.errstate(all="ignore"):
                b, a = np.array(lo).astype(dtype), np.array(hi).astype(dtype)
            for shape in ((64, 128), (1, 128), ()):
                fast = IMPLS[ew.select_n_p](which, np.broadcast_to(b, shape), np.broadcast_to(a, shape))
                slow = np.where(which, a, b)
                assert fast.dtype == slow.dtype and fast.shape == slow.shape
                assert fast.tobytes() == slow.tobytes(), (dtype, lo, hi, shape)


def _names(jaxpr) -> list[str]:
    return [e.primitive.name for e in jaxpr.eqns]


def test_rewrite_reaches_into_loop_and_branch_bodies():
    from pyjax import lax

    def f(a, b, p):
        step = lambda c, _: (c + (a.T @ b).T, None)
        c = lax.scan(step, jnp.zeros((5, 3)), None, length=2)[0]
        c = lax.while_loop(lambda c: c[0, 0] < 0, lambda c: c + (a.T @ b).T, c)
        return lax.cond(p, lambda c: (a.T @ b).T * c, lambda c: c, c)

    a = np.arange(12, dtype=np.float32).reshape(4, 3) / 5
    b = np.arange(20, dtype=np.float32).reshape(4, 5) / 7
    jaxpr = jax.make_jaxpr(f)(a, b, True)
    scan, loop, cond = (e for e in jaxpr.eqns if e.primitive.name in ("scan", "while", "cond"))
    assert "transpose" in _names(scan.params["jaxpr"])
    rewritten = simplify(jaxpr)
    new_scan, new_loop, new_cond = (e for e in rewritten.eqns if e.primitive.name in ("scan", "while", "cond"))
    assert _names(new_scan.params["jaxpr"]).count("transpose") == _names(scan.params["jaxpr"]).count("transpose") - 1
    assert _names(new_loop.params["body_jaxpr"]).count("transpose") == 1
    assert new_loop.params["cond_jaxpr"] is loop.params["cond_jaxpr"]  # nothing to rewrite: kept
    assert new_cond.params["branches"][0] is cond.params["branches"][0]
    assert _names(new_cond.params["branches"][1]).count("transpose") == 1
    prod = (a.T @ b).T
    want = 2 * prod
    np.testing.assert_allclose(np.asarray(jax.jit(f)(a, b, True)), prod * want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.jit(f)(a, b, False)), want, rtol=1e-6)


def test_rewrite_leaves_loops_without_rewrites_as_they_are():
    from pyjax import lax

    jaxpr = jax.make_jaxpr(lambda c, xs: lax.scan(lambda c, x: (c * x, c), c, xs))(jnp.float32(1), jnp.ones(3))
    assert simplify(jaxpr) is jaxpr
