"""Property-based differential tests (issue 19): random small programs on
random inputs, each checked three ways against pyjax itself —

* eager == jit (bitwise where jit runs the same NumPy calls; to a few ulps
  where jit contracts a multiply-add into one rounding, as XLA does);
* vmap(f) over a batch == f applied to each row in a Python loop;
* grad(f) in float64 (x64 on) == central finite differences, on programs of
  smooth operations only.

A program is a list of operations applied in turn to a value `v` (an input
`x`), with a second input `y` for binary ones: elementwise unary and binary
ops, broadcasting, reductions, cumsum, reshapes, transposes, dot, where,
indexing. Hypothesis draws programs and inputs (derandomized: the same
examples every run; a failure prints the falsifying program and input).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import pyjax
import pyjax.numpy as jnp
from pyjax import lax

EXAMPLES = 400  # per property; each example is one program on one input pair
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _other(v, y):
    # The second operand: y where the shapes agree, else a scalar of y
    # (broadcast against v).
    return y if v.shape == y.shape else jnp.mean(y)


def _weights(n: int, dtype):
    return (jnp.arange(n * 2, dtype=dtype).reshape(n, 2) - n) / (2.0 * n)


# name -> (function of (v, y), smooth: differentiable with a derivative that
# finite differences approximate everywhere on our inputs)
OPS = {
    "sin": (lambda v, y: jnp.sin(v), True),
    "cos": (lambda v, y: jnp.cos(v), True),
    "tanh": (lambda v, y: jnp.tanh(v), True),
    "exp_tanh": (lambda v, y: jnp.exp(jnp.tanh(v)), True),
    "log1p_sq": (lambda v, y: jnp.log1p(v * v), True),
    "sqrt_sq1": (lambda v, y: jnp.sqrt(v * v + 1.0), True),
    "square": (lambda v, y: jnp.square(v), True),
    "neg": (lambda v, y: -v, True),
    "sigmoid": (lambda v, y: pyjax.nn.sigmoid(v), True),
    "scale": (lambda v, y: v * 0.5 + 0.25, True),
    "add": (lambda v, y: v + _other(v, y), True),
    "sub": (lambda v, y: v - _other(v, y), True),
    "mul_tanh": (lambda v, y: v * jnp.tanh(_other(v, y)), True),
    "div": (lambda v, y: v / (1.0 + _other(v, y) ** 2), True),
    "sum_last": (lambda v, y: jnp.sum(v, axis=-1) if v.ndim else v, True),
    "mean_all": (lambda v, y: jnp.mean(v), True),
    "sum_keep": (lambda v, y: jnp.sum(v, axis=0, keepdims=True) + v if v.ndim else v, True),
    "cumsum": (lambda v, y: jnp.cumsum(v, axis=-1) if v.ndim else v, True),
    "reshape_flat": (lambda v, y: v.reshape(-1), True),
    "transpose": (lambda v, y: v.T, True),
    "expand_squeeze": (lambda v, y: jnp.squeeze(jnp.expand_dims(v, 0), 0) * 2.0, True),
    "dot": (lambda v, y: jnp.dot(v, _weights(v.shape[-1], v.dtype)) if v.ndim else v, True),
    "reverse": (lambda v, y: v[::-1] if v.ndim else v, True),
    "first": (lambda v, y: v[0] if v.ndim and v.shape[0] else v, True),
    "tail": (lambda v, y: v[1:] if v.ndim and v.shape[0] > 1 else v, True),
    "outer": (lambda v, y: v[..., None] * v[..., :1, None] if v.ndim == 1 else v, True),
    # Not smooth (kinks, steps, ties): eager/jit and vmap only.
    "abs": (lambda v, y: jnp.abs(v), False),
    "relu": (lambda v, y: jnp.maximum(v, 0.0), False),
    "max_last": (lambda v, y: jnp.max(v, axis=-1) if v.ndim else v, False),
    "min_other": (lambda v, y: jnp.minimum(v, _other(v, y)), False),
    "where": (lambda v, y: jnp.where(v > 0, v, _other(v, y) * 0.5), False),
    "floor": (lambda v, y: jnp.floor(v * 4.0) / 4.0, False),
    "clip": (lambda v, y: jnp.clip(v, -1.0, 1.0), False),
    "sort": (lambda v, y: jnp.sort(v, axis=-1) if v.ndim else v, False),
    "argmax_take": (lambda v, y: v.reshape(-1)[jnp.argmax(v)], False),
    "round_trip_int": (lambda v, y: (v * 8.0).astype(jnp.int32).astype(v.dtype) / 8.0, False),
    "cond": (lambda v, y: lax.cond(jnp.sum(v) > 0, lambda u: u * 2.0, lambda u: u - 1.0, v), False),
    "scan_cumprod": (lambda v, y: lax.scan(lambda c, r: (c * jnp.tanh(r), c), jnp.ones_like(v[0]), v)[1]
                     if v.ndim else v, False),
}
SMOOTH = sorted(name for name, (_, smooth) in OPS.items() if smooth)
ALL = sorted(OPS)
SHAPES = [(3,), (4,), (2, 3), (3, 2), (1, 4), (2, 2, 2)]


def make_program(names):
    def f(x, y):
        v = x
        for name in names:
            v = OPS[name][0](v, y)
        return v
    f.__name__ = "program_" + "_".join(names)
    return f


def inputs(dtype, shape, low=-3.0, high=3.0):
    width = 32 if dtype == np.float32 else 64
    return hnp.arrays(dtype, shape, elements=st.floats(low, high, width=width, allow_subnormal=False))


@st.composite
def programs_and_inputs(draw, names, dtype=np.float32, batch: int | None = None):
    program = draw(st.lists(st.sampled_from(names), min_size=1, max_size=6))
    shape = draw(st.sampled_from(SHAPES))
    full = (batch, *shape) if batch else shape
    return program, draw(inputs(dtype, full)), draw(inputs(dtype, full))


def assert_close(got, want, *, ulps: float, where: str):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (where, got.dtype, got.shape, want.dtype, want.shape)
    if got.tobytes() == want.tobytes():
        return
    eps = np.finfo(want.dtype).eps
    scale = np.max(np.abs(want[np.isfinite(want)]), initial=1.0)
    np.testing.assert_allclose(got, want, rtol=ulps * eps, atol=ulps * eps * scale, equal_nan=True, err_msg=where)


@SETTINGS
@given(programs_and_inputs(ALL))
def test_eager_equals_jit(case):
    names, x, y = case
    f = make_program(names)
    with np.errstate(all="ignore"):
        eager = f(jnp.asarray(x), jnp.asarray(y))
        jitted = pyjax.jit(f)(x, y)
    # jit may contract a multiply-add into one rounding (XLA does), and
    # reassociates nothing else: a few ulps of the result's scale.
    assert_close(jitted, eager, ulps=64, where=f"{names} on {x.shape}")


@SETTINGS
@given(programs_and_inputs(ALL, batch=3))
def test_vmap_equals_a_python_loop(case):
    names, xs, ys = case
    f = make_program(names)
    with np.errstate(all="ignore"):
        batched = pyjax.vmap(f)(xs, ys)
        rows = [np.asarray(f(jnp.asarray(x), jnp.asarray(y))) for x, y in zip(xs, ys)]
    assert_close(batched, np.stack(rows), ulps=64, where=f"vmap {names} on {xs.shape}")


@pytest.fixture(scope="module")
def x64():
    previous = pyjax.config.jax_enable_x64
    pyjax.config.update("jax_enable_x64", True)
    yield
    pyjax.config.update("jax_enable_x64", previous)


@SETTINGS
@given(programs_and_inputs(SMOOTH, dtype=np.float64), st.integers(0, 2**32 - 1))
def test_grad_matches_finite_differences(x64, case, seed):
    names, x, y = case
    f = make_program(names)
    loss = lambda x, y: jnp.sum(f(x, y))  # noqa: E731
    g = np.asarray(pyjax.grad(loss)(x, y))
    assert g.dtype == np.float64 and g.shape == x.shape
    # A directional derivative along a random direction, by central differences.
    direction = np.random.default_rng(seed).standard_normal(x.shape)
    h = 1e-5
    plus, minus = (float(loss(jnp.asarray(x + s * h * direction), jnp.asarray(y))) for s in (1.0, -1.0))
    numeric = (plus - minus) / (2 * h)
    analytic = float(np.sum(g * direction))
    tolerance = 1e-5 * max(1.0, abs(numeric), float(np.sum(np.abs(g * direction))))
    assert abs(analytic - numeric) <= tolerance, (names, x, analytic, numeric)
