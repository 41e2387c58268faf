"""The IREE backend (issue 27 item 3; docs/iree.md): jitted programs
compiled by IREE for the host CPU and run by its runtime give the NumPy
backend's results; results stay IREE buffers between jitted calls; compiled
modules are cached; `jax_platforms` / `JAX_PLATFORMS` / `PYJAX_BACKEND` /
`jit(backend=)` select it; a primitive IREE cannot run is named.

Needs the `[iree]` extra (iree-base-compiler and iree-base-runtime); without
it the tests are skipped and say so.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.array import Array
from pyjax._src.backends import iree as iree_backend

pytestmark = pytest.mark.skipif(not iree_backend.available(),
                                reason="IREE is not installed (pip install -e '.[iree]': iree-base-compiler, "
                                       "iree-base-runtime)")

if iree_backend.available():
    from pyjax._src.backends.iree import compile as iree_compile
    from pyjax._src.backends.iree.array import IreeArray


@pytest.fixture(autouse=True)
def _default_platforms():
    # Every test starts and ends on the default platform (the NumPy backend).
    before = pyjax.config.jax_platforms
    yield
    pyjax.config.update("jax_platforms", before)


def _on_both(f, *args, **jit_kwargs):
    want = pyjax.jit(f, backend="cpu", **jit_kwargs)(*args)
    got = pyjax.jit(f, backend="iree", **jit_kwargs)(*args)
    return want, got


def _assert_same(want, got, rtol=2e-6, atol=1e-6):
    want_leaves, got_leaves = pyjax.tree_util.tree_leaves(want), pyjax.tree_util.tree_leaves(got)
    assert len(want_leaves) == len(got_leaves)
    for w, g in zip(want_leaves, got_leaves):
        assert isinstance(g, IreeArray), type(g)
        assert g.aval == w.aval
        w, g = np.asarray(w), np.asarray(g)
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(g, w)


X = jnp.arange(12.0, dtype=jnp.float32).reshape(3, 4) / 7
Y = jnp.linspace(-2.0, 2.0, 12, dtype=jnp.float32).reshape(3, 4)


def test_elementwise_programs_match_the_numpy_backend():
    _assert_same(*_on_both(lambda x, y: (jnp.tanh(x * 1.5) + jnp.exp(-y), jnp.maximum(x, y), x / (1 + y ** 2),
                                         (x > y).astype(jnp.int32), jnp.where(x < 0.5, x, -y)), X, Y))


def test_integer_and_bool_programs_match_the_numpy_backend():
    i = jnp.arange(6, dtype=jnp.int32).reshape(2, 3)
    _assert_same(*_on_both(lambda a, b: (a * b + 3, a // (b + 1), a % 4, a << 1, a & b, (a > 2) | (b < 1)), i, i[::-1]))


def test_dot_and_reductions_match_the_numpy_backend():
    W = jnp.linspace(-1.0, 1.0, 20, dtype=jnp.float32).reshape(4, 5)
    _assert_same(*_on_both(lambda x, W: (x @ W, jnp.sum(x), jnp.max(x, axis=1), jnp.mean(x @ W, axis=0),
                                         jnp.argmax(x, axis=1), jax_softmax(x)), X, W), rtol=1e-5)


def jax_softmax(x):
    return pyjax.nn.softmax(x, axis=-1)


def test_control_flow_matches_the_numpy_backend():
    def f(x):
        def body(c, xi):
            return c * 0.5 + jnp.sin(xi), c
        c, ys = lax.scan(body, jnp.zeros(4, jnp.float32), x)
        n = lax.while_loop(lambda s: s[0] < 10, lambda s: (s[0] + 1, s[1] * 1.1), (0, c))
        return lax.cond(n[1].sum() > 0, lambda v: v + 1, lambda v: v - 1, n[1]), ys, lax.fori_loop(0, 3, lambda k, v: v + k, x)

    _assert_same(*_on_both(f, X), rtol=1e-5)


def test_random_programs_match_the_numpy_backend():
    key = pyjax.random.key(42)
    want, got = _on_both(lambda k: (pyjax.random.normal(k, (5,)), pyjax.random.uniform(pyjax.random.fold_in(k, 3), (6,)),
                                    pyjax.random.bits(k, (4,))), key)
    _assert_same(want, got, rtol=1e-6)
    # Keys cross the module's boundary as their uint32 data, both ways.
    keys = pyjax.jit(lambda k: pyjax.random.split(k, 3), backend="iree")(key)
    np.testing.assert_array_equal(pyjax.random.key_data(keys), pyjax.random.key_data(pyjax.random.split(key, 3)))


def test_autodiff_under_jit_matches_the_numpy_backend():
    def loss(W, x):
        return jnp.mean(jnp.tanh(x @ W) ** 2)

    W = jnp.linspace(-1.0, 1.0, 20, dtype=jnp.float32).reshape(4, 5)
    _assert_same(*_on_both(pyjax.value_and_grad(loss), W, X), rtol=1e-5)


def test_results_stay_on_the_device_between_calls():
    step = pyjax.jit(lambda w, x: w - 0.1 * jnp.tanh(x @ w), backend="iree")
    w = jnp.eye(4, dtype=jnp.float32)
    x = jnp.linspace(-1.0, 1.0, 16, dtype=jnp.float32).reshape(4, 4)
    ws = [w]
    for _ in range(3):
        ws.append(step(ws[-1], x))
    # Each result was fed to the next call as its IREE buffer: none was read on the host.
    assert all(type(v) is IreeArray and not v.on_host() for v in ws[1:])
    want = w
    for _ in range(3):
        want = pyjax.jit(lambda w, x: w - 0.1 * jnp.tanh(x @ w))(want, x)
    np.testing.assert_allclose(np.asarray(ws[-1]), np.asarray(want), rtol=1e-5, atol=1e-6)
    assert ws[-1].on_host()  # (read now, by np.asarray)


def test_results_work_with_eager_operations():
    y = pyjax.jit(lambda x: x * 2, backend="iree")(X)
    z = jnp.sin(y) + 1  # eager: the NumPy backend, reading the buffer once
    assert type(z) is Array
    np.testing.assert_allclose(np.asarray(z), np.sin(np.asarray(X) * 2) + 1, rtol=1e-6)
    assert repr(y).startswith("Array(") and y.shape == (3, 4) and float(y[1, 1]) == pytest.approx(float(X[1, 1]) * 2)


def test_unused_arguments_and_python_scalars():
    f = pyjax.jit(lambda a, unused, s: a * s, backend="iree")
    np.testing.assert_allclose(np.asarray(f(X, jnp.ones(7), 3.0)), np.asarray(X) * 3)


def test_a_second_call_compiles_nothing():
    f = pyjax.jit(lambda x: jnp.cos(x) * 3 - 0.25, backend="iree")
    f(X)
    compiled, hits = iree_compile.stats["compiled"], iree_compile.stats["hits"]
    f(Y)
    assert iree_compile.stats["compiled"] == compiled and iree_compile.stats["hits"] == hits
    # A new function with the same program: traced again, its module found in the cache.
    pyjax.jit(lambda x: jnp.cos(x) * 3 - 0.25, backend="iree")(X)
    assert iree_compile.stats["compiled"] == compiled and iree_compile.stats["hits"] == hits + 1
    # Another shape is another program.
    f(jnp.ones(5, jnp.float32))
    assert iree_compile.stats["compiled"] == compiled + 1


def test_jax_platforms_selects_the_backend_for_jitted_calls_only():
    f = pyjax.jit(lambda x: x + 1)
    assert type(f(X)) is Array
    pyjax.config.update("jax_platforms", "iree")
    assert type(f(X)) is IreeArray
    assert type(jnp.sin(X)) is Array  # eager operations stay on NumPy
    assert type(pyjax.jit(lambda x: x + 1, backend="cpu")(X)) is Array  # backend= names another
    pyjax.config.update("jax_platforms", "cpu")
    assert type(f(X)) is Array


def test_jit_backend_argument_selects_it():
    assert type(pyjax.jit(lambda x: x + 1, backend="iree")(X)) is IreeArray
    assert type(pyjax.jit(lambda x: x + 1)(X)) is Array


@pytest.mark.parametrize("variable", ["JAX_PLATFORMS", "PYJAX_BACKEND"])
def test_the_environment_selects_it(variable):
    code = ("import pyjax, pyjax.numpy as jnp; "
            "print(type(pyjax.jit(lambda x: x * 2)(jnp.ones(3))).__name__, pyjax.config.jax_platforms)")
    env = dict(os.environ, **{variable: "iree"})
    env.pop("JAX_PLATFORMS" if variable == "PYJAX_BACKEND" else "PYJAX_BACKEND", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["IreeArray", "iree"]


def test_a_primitive_without_a_lowering_is_named():
    with pytest.raises(iree_compile.IreeUnsupportedError, match=r"IREE backend: primitive 'cholesky'"):
        pyjax.jit(jnp.linalg.cholesky, backend="iree")(jnp.eye(3))
    with pytest.raises(iree_compile.IreeUnsupportedError, match=r"primitive 'debug_callback'"):
        pyjax.jit(lambda x: pyjax.debug.callback(print, x) or x * 2, backend="iree")(X)
    # The same functions still run on the NumPy backend.
    np.testing.assert_allclose(np.asarray(pyjax.jit(jnp.linalg.cholesky)(jnp.eye(3))), np.eye(3))


def test_a_deleted_argument_raises():
    y = pyjax.jit(lambda x: x * 2, backend="iree")(X)
    y.delete()
    assert y.is_deleted()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        pyjax.jit(lambda x: x + 1, backend="iree")(y)


def test_float64_and_int64_stay_64_bit():
    before = pyjax.config.read("jax_enable_x64")
    pyjax.config.update("jax_enable_x64", True)
    try:
        x = jnp.arange(5.0) / 3
        f = lambda x, i: (x * 1e-300 + 1, x.sum(), i * 3_000_000_000, jnp.sqrt(x))  # noqa: E731
        want, got = _on_both(f, x, jnp.arange(3))
        assert got[0].dtype == np.float64 and got[2].dtype == np.int64
        for w, g in zip(want, got):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        # float64 libm calls (IREE's embedded CPU executables cannot link them: the module is linked as a
        # system library instead).
        g = lambda x: (jnp.sin(x), jnp.exp(x), jnp.tanh(x) ** 1.5, jnp.arctan2(x, 2.0), jnp.log1p(x) + 0j)  # noqa: E731
        want, got = _on_both(g, x)
        for w, r in zip(want, got):
            assert r.dtype == w.dtype and r.dtype in (np.float64, np.complex128)
            np.testing.assert_allclose(np.asarray(r), np.asarray(w), rtol=1e-14)
    finally:
        pyjax.config.update("jax_enable_x64", before)


def test_the_stage_api_runs_compiled_functions_there():
    compiled = pyjax.jit(lambda x: jnp.tanh(x) * 2, backend="iree").lower(X).compile()
    out = compiled(X)
    assert type(out) is IreeArray
    np.testing.assert_allclose(np.asarray(out), np.tanh(np.asarray(X)) * 2, rtol=1e-6)
    pyjax.config.update("jax_platforms", "iree")
    assert type(pyjax.jit(lambda x: x - 1).lower(X).compile()(X)) is IreeArray
    assert type(pyjax.jit(lambda x: x - 1, backend="cpu").lower(X).compile()(X)) is Array


def test_donating_reads_no_result_back():
    step = pyjax.jit(lambda w, x: w * 0.5 + x, backend="iree", donate_argnums=0)
    w = step(jnp.ones(4, jnp.float32), jnp.ones(4, jnp.float32))
    w2 = step(w, jnp.ones(4, jnp.float32))
    assert not w.on_host() and not w2.on_host()
    np.testing.assert_allclose(np.asarray(w2), np.full(4, 1.75, np.float32))


def test_the_cuda_target_follows_the_driver(monkeypatch):
    import iree.runtime as rt

    from pyjax._src.backends.iree import runtime

    monkeypatch.setenv("PYJAX_IREE_DRIVER", "cuda")
    monkeypatch.setenv("PYJAX_IREE_CUDA_TARGET", "sm_80")
    cuda = runtime._choose_target(rt)
    assert (cuda.driver, cuda.backend) == ("cuda", "cuda") and "--iree-cuda-target=sm_80" in cuda.flags
    monkeypatch.delenv("PYJAX_IREE_DRIVER")
    monkeypatch.setenv("PYJAX_IREE_FLAGS", "--iree-opt-level=O3")
    monkeypatch.setattr(runtime, "_cuda_has_devices", lambda rt: False)
    host = runtime._choose_target(rt)
    assert (host.backend, host.flags[-1]) == ("llvm-cpu", "--iree-opt-level=O3")
    assert "--iree-llvmcpu-target-cpu=host" in host.flags
