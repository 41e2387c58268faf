"""Control flow under transformations: JVP, linearize/grad (partial
evaluation and transpose), vmap, and their compositions with jit.

Derivatives are checked against finite differences (check_grads) and
against the derivative of the same computation written as a Python loop;
batched results against a Python loop over the examples.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.test_util import check_grads

W = np.array([[0.5, -0.2, 0.1], [0.3, 0.4, -0.6], [-0.1, 0.2, 0.7]], np.float32)
XS = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(4, 3)


def rnn(w, h, xs):
    h, ys = lax.scan(lambda h, x: (jnp.tanh(w @ h + x), h.sum()), h, xs)
    return h.sum() + (ys * ys).sum()


def rnn_python(w, h, xs):
    total = 0.0
    for x in xs:
        y = h.sum()
        h = jnp.tanh(w @ h + x)
        total = total + y * y
    return h.sum() + total


def _loop_and_scan_agree(f_scan, f_loop, args):
    check_close(pyjax.grad(f_scan, argnums=tuple(range(len(args))))(*args)[0],
                np.asarray(pyjax.grad(f_loop, argnums=tuple(range(len(args))))(*args)[0]), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------
# scan


def test_scan_grad_matches_the_unrolled_loop():
    args = (W, np.ones(3, np.float32) * 0.1, XS)
    got = pyjax.grad(rnn, argnums=(0, 1, 2))(*args)
    want = pyjax.grad(rnn_python, argnums=(0, 1, 2))(*args)
    for g, w in zip(got, want, strict=True):
        check_close(g, np.asarray(w), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_check_grads(reverse):
    def f(c, xs):
        c, ys = lax.scan(lambda c, x: (jnp.sin(c) * x + c, (c * x, jnp.cos(x))), c, xs, reverse=reverse)
        return c, ys

    check_grads(f, (np.float32(0.3), np.linspace(0.1, 1.0, 5, dtype=np.float32)), order=2, modes=("fwd", "rev"))


def test_scan_check_grads_with_consts_and_pytree_carry():
    def f(w, h, xs):
        (h, n), ys = lax.scan(lambda c, x: ((jnp.tanh(w @ c[0] + x), c[1] * 1.1), c[0] * c[1]), (h, 2.0), xs)
        return h, n, ys

    check_grads(f, (W, np.full(3, 0.1, np.float32), XS), order=1, modes=("fwd", "rev"))


def test_grad_of_scan_saves_residuals_as_stacked_outputs():
    jaxpr = pyjax.make_jaxpr(pyjax.grad(rnn))(W, np.ones(3, np.float32), XS)
    scans = [e for e in jaxpr.eqns if e.primitive.name == "scan"]
    assert len(scans) == 2
    forward, backward = scans
    assert not forward.params["reverse"] and backward.params["reverse"]
    # The forward scan returns per-iteration residuals (stacked, length 4)
    # that the backward scan reads as xs.
    residuals = [v for v in backward.invars if v in forward.outvars]
    assert len(residuals) >= 2 and all(v.aval.shape[0] == 4 for v in residuals)


def test_jit_of_grad_and_grad_of_jit_of_scan():
    args = (W, np.full(3, 0.2, np.float32), XS)
    want = pyjax.grad(rnn)(*args)
    check_close(pyjax.jit(pyjax.grad(rnn))(*args), np.asarray(want), rtol=1e-6, atol=1e-6)
    check_close(pyjax.grad(pyjax.jit(rnn))(*args), np.asarray(want), rtol=1e-6, atol=1e-6)


def test_scan_jvp_and_linearize_agree():
    primals = (W, np.full(3, 0.1, np.float32), XS)
    tangents = (np.ones_like(W), np.ones(3, np.float32), np.zeros_like(XS))
    out, tangent = pyjax.jvp(rnn, primals, tangents)
    out2, f_jvp = pyjax.linearize(rnn, *primals)
    check_close(out2, np.asarray(out))
    check_close(f_jvp(*tangents), np.asarray(tangent), rtol=1e-5)


def test_fori_loop_static_bounds_differentiates_in_reverse():
    f = lambda x: lax.fori_loop(0, 4, lambda i, c: jnp.sin(c) * x + i, x)
    check_grads(f, (np.float32(0.7),), order=2, modes=("fwd", "rev"))


# ---------------------------------------------------------------------------
# while_loop: forward mode only


def test_while_loop_jvp():
    def f(x):
        return lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, jnp.sin(c[1]) * x), (0, x))[1]

    check_grads(f, (np.float32(0.8),), order=2, modes=("fwd",))


def test_while_loop_reverse_mode_raises_jax_error():
    message = ("Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic "
               "start/stop values. Try using lax.scan, or using fori_loop with static start/stop.")
    with pytest.raises(ValueError) as info:
        pyjax.grad(lambda x: lax.while_loop(lambda c: c < 3, lambda c: c * 2, x))(1.0)
    assert str(info.value) == message
    with pytest.raises(ValueError) as info:
        pyjax.jit(pyjax.grad(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 2, x)))(1.0, 3)
    assert str(info.value) == message


def test_while_loop_linearize_runs_forward():
    f = lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * x, 1.0)
    out, f_jvp = pyjax.linearize(f, jnp.float32(2.0))
    check_close(out, np.float32(16.0))
    check_close(f_jvp(jnp.float32(1.0)), np.float32(32.0))  # d/dx x**4 at 2


# ---------------------------------------------------------------------------
# cond and switch


def test_cond_check_grads_both_branches():
    def f(x, y):
        return lax.cond(x > 0, lambda a, b: (jnp.sin(a) * b, a), lambda a, b: (a * 3 + b, jnp.exp(a)), x, y)

    for x in (0.5, -0.5):
        check_grads(f, (np.float32(x), np.float32(1.5)), order=2, modes=("fwd", "rev"))


def test_switch_check_grads_every_branch():
    branches = [jnp.sin, jnp.cos, lambda x: x * x, jnp.exp]
    for i in range(4):
        check_grads(lambda x, i=i: lax.switch(i, branches, x), (np.float32(0.3),), order=1, modes=("fwd", "rev"))


def test_grad_of_cond_merges_residuals_with_empty_fillers():
    jaxpr = pyjax.make_jaxpr(pyjax.grad(lambda x: lax.cond(x > 0, jnp.sin, lambda v: v * 3, x)))(1.0)
    conds = [e for e in jaxpr.eqns if e.primitive.name == "cond"]
    assert len(conds) == 2
    primal_branches = conds[0].params["branches"]
    assert [e.primitive.name for e in primal_branches[0].eqns] == ["mul", "empty2"]
    assert [e.primitive.name for e in primal_branches[1].eqns] == ["sin", "cos", "empty2"]
    check_close(pyjax.grad(lambda x: lax.cond(x > 0, jnp.sin, lambda v: v * 3, x))(1.0), np.float32(np.cos(1.0)))
    check_close(pyjax.grad(lambda x: lax.cond(x > 0, jnp.sin, lambda v: v * 3, x))(-1.0), np.float32(3.0))


def test_grad_through_cond_with_closed_over_array():
    w = jnp.asarray(W)
    f = lambda x: lax.cond(x.sum() > 0, lambda v: (w @ v).sum(), lambda v: v.sum(), x)
    check_close(pyjax.grad(f)(jnp.ones(3)), W.sum(axis=0))
    check_close(pyjax.grad(f)(-jnp.ones(3)), np.ones(3, np.float32))


# ---------------------------------------------------------------------------
# vmap


def test_vmap_cond_batched_predicate_is_a_select():
    f = lambda x: lax.cond(x > 0, lambda v: v * 10, lambda v: v - 10, x)
    xs = jnp.arange(-2.0, 2.0)
    check_close(pyjax.vmap(f)(xs), np.where(np.arange(-2.0, 2.0) > 0, np.arange(-2.0, 2.0) * 10,
                                              np.arange(-2.0, 2.0) - 10).astype(np.float32))
    names = [e.primitive.name for e in pyjax.make_jaxpr(pyjax.vmap(f))(xs).eqns]
    assert "cond" not in names and names[-1] == "select_n"


def test_vmap_cond_unbatched_predicate_stays_a_cond():
    f = lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x)
    xs = np.linspace(0, 1, 4, dtype=np.float32)
    check_close(pyjax.vmap(f, in_axes=(None, 0))(True, xs), np.sin(xs))
    jaxpr = pyjax.make_jaxpr(pyjax.vmap(f, in_axes=(None, 0)))(True, xs)
    assert [e.primitive.name for e in jaxpr.eqns] == ["convert_element_type", "cond"]


def test_vmap_while_batched_predicate_runs_until_every_lane_is_done():
    def count(x):
        return lax.while_loop(lambda c: c[1] < 100.0, lambda c: (c[0] + 1, c[1] * 2), (0, x))

    xs = jnp.array([1.0, 7.0, 60.0, 200.0])
    steps, values = pyjax.vmap(count)(xs)
    check_close(steps, np.array([7, 4, 1, 0], np.int32))
    check_close(values, np.array([128.0, 112.0, 120.0, 200.0], np.float32))
    j_steps, _ = pyjax.jit(pyjax.vmap(count))(xs)
    check_close(j_steps, np.array([7, 4, 1, 0], np.int32))
    (eqn,) = pyjax.make_jaxpr(pyjax.vmap(count))(xs).eqns[-1:]
    assert eqn.params["cond_jaxpr"].out_avals[0].shape == (4,)


def test_vmap_while_unbatched_predicate_batched_carry():
    f = lambda x, y: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * y), (0, x))
    _, out = pyjax.vmap(f, in_axes=(0, None))(jnp.arange(1.0, 4.0), 2.0)
    check_close(out, np.arange(1.0, 4.0, dtype=np.float32) * 8)


def test_nested_vmap_of_while_with_batched_predicates():
    f = lambda x: lax.while_loop(lambda c: c < 50.0, lambda c: c * 3, x)
    xs = jnp.array([[1.0, 2.0, 60.0], [10.0, 40.0, 5.0]])
    want = np.array([[81, 54, 60], [90, 120, 135]], np.float32)
    check_close(pyjax.vmap(pyjax.vmap(f))(xs), want)
    check_close(pyjax.jit(pyjax.vmap(pyjax.vmap(f)))(xs), want)


def test_vmap_fori_loop_with_batched_trip_count():
    f = lambda n: lax.fori_loop(0, n, lambda i, c: c + i, 0)
    check_close(pyjax.vmap(f)(jnp.array([0, 1, 4, 6], jnp.int32)), np.array([0, 0, 6, 15], np.int32))


@pytest.mark.parametrize("in_axes", [(0, 0), (None, 0), (0, None), (0, 1)])
def test_vmap_scan_batched_carry_and_xs(in_axes):
    def f(c, xs):
        return lax.scan(lambda c, x: (c * 0.5 + x, c * x), c, xs)

    cs = np.array([1.0, 2.0, 3.0], np.float32)
    xss = np.arange(15.0, dtype=np.float32).reshape(3, 5)
    args = (cs if in_axes[0] == 0 else np.float32(1.5), xss if in_axes[1] == 0 else xss.T if in_axes[1] == 1 else xss[0])
    c, ys = pyjax.vmap(f, in_axes=in_axes)(*args)
    for b in range(3):
        cb = args[0][b] if in_axes[0] == 0 else args[0]
        xb = args[1] if in_axes[1] is None else np.take(args[1], b, axis=in_axes[1])
        want_c, want_ys = f(cb, xb)
        check_close(c[b], np.asarray(want_c))
        check_close(ys[b], np.asarray(want_ys))


def test_vmap_scan_batched_consts_only_batch_the_carry():
    ws = np.stack([W, W * 0.5])
    out = pyjax.vmap(lambda w: lax.scan(lambda h, x: (jnp.tanh(w @ h + x), None), jnp.zeros(3), XS)[0])(ws)
    for b in range(2):
        body = lambda h, x, w=ws[b]: (jnp.tanh(w @ h + x), None)
        check_close(out[b], np.asarray(lax.scan(body, jnp.zeros(3), XS)[0]))


def test_vmap_of_grad_and_grad_of_vmap_of_scan():
    hs = np.stack([np.full(3, 0.1, np.float32), np.full(3, -0.2, np.float32)])
    per_example = pyjax.vmap(pyjax.grad(rnn, argnums=1), in_axes=(None, 0, None))(W, hs, XS)
    for b in range(2):
        check_close(per_example[b], np.asarray(pyjax.grad(rnn, argnums=1)(W, hs[b], XS)), rtol=1e-6, atol=1e-6)
    total = lambda w: pyjax.vmap(rnn, in_axes=(None, 0, None))(w, hs, XS).sum()
    want = sum(np.asarray(pyjax.grad(rnn)(W, hs[b], XS)) for b in range(2))
    check_close(pyjax.grad(total)(W), want, rtol=1e-5, atol=1e-6)


def test_vmap_of_grad_of_cond():
    f = pyjax.vmap(pyjax.grad(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)))
    xs = jnp.array([-1.0, 1.0, 2.0])
    check_close(f(xs), np.where(np.array([-1.0, 1.0, 2.0]) > 0, np.cos([-1.0, 1.0, 2.0]),
                                -np.sin([-1.0, 1.0, 2.0])).astype(np.float32))


# --- issue 7: scan under grad


def test_grad_of_scan_inlines_custom_jvp_in_the_known_body():
    @pyjax.custom_jvp
    def f(x):
        return jnp.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), 2.0 * t[0]))
    loss = lambda x: lax.scan(lambda c, _: (f(c) * c, None), x, None, length=2)[0]
    jaxpr = pyjax.make_jaxpr(pyjax.grad(loss))(1.0)
    primal_scan = jaxpr.eqns[0]
    assert primal_scan.primitive.name == "scan"
    names = [e.primitive.name for e in primal_scan.params["jaxpr"].eqns]
    assert "custom_jvp_call" not in names and "sin" in names
    # the custom rule (2 t) is still the one differentiated
    c1 = np.sin(np.float32(1.0))
    expected = (2.0 * 1.0 + c1) * (2.0 * c1 + np.sin(c1))
    check_close(pyjax.grad(loss)(1.0), np.float32(expected), rtol=1e-6)


def test_grad_of_scan_with_weak_carry_made_strong_is_strong():
    g = pyjax.grad(lambda x: lax.scan(lambda c, y: (c * y, None), x, jnp.arange(1.0, 3.0))[0])(1.0)
    assert not pyjax.typeof(g).weak_type and float(g) == 2.0
    jaxpr = pyjax.make_jaxpr(pyjax.grad(lambda x: lax.scan(lambda c, y: (c * y, None), x, jnp.arange(1.0, 3.0))[0]))(1.0)
    transposed = jaxpr.eqns[-1].params["jaxpr"]
    assert [e.primitive.name for e in transposed.eqns] == ["mul"]  # no convert back to weak
    # a carry that stays weak keeps a weak gradient
    g = pyjax.grad(lambda x: lax.scan(lambda c, _: (c * 2.0, None), x, None, length=2)[0])(1.0)
    assert pyjax.typeof(g).weak_type and float(g) == 4.0
