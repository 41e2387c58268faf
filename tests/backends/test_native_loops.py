"""Native code (backends/numpy/native/): a hot scan or while of small
steps, or a long straight-line program, runs as C over NumPy's own kernels.

Every case compares the native code's outputs bitwise with the Python
code's (the same function compiled with native code off), and checks that
the native tier went live (it drops itself on any difference, so a test
that only compared results could pass with the native code never used).
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.native import build as native_build
from pyjax._src.backends.numpy.native import discovery as native_discovery
from pyjax._src.backends.numpy.native import settings as native_settings
from pyjax._src.backends.numpy.native import tiering as native_tiering

# Most bodies here multiply matrices: the native code then calls NumPy's own
# OpenBLAS, which it only does where NumPy's build names one.
pytestmark = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED or not native_discovery._Blas.find(),
                                reason="native code needs a C compiler, and NumPy's BLAS an OpenBLAS")

rng = np.random.default_rng(11)


def arr(*shape, dtype=np.float32):
    return jnp.asarray(rng.standard_normal(shape).astype(dtype))


@pytest.fixture
def eager_tier(monkeypatch):
    # Build at the first call and wait for it: the first call is the checked one.
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)


def natives():
    return [o for o in gc.get_objects() if isinstance(o, native.NativeLoop)]


def new_since(before: list) -> list:
    # By identity against objects still held (an id alone can be reused
    # once its object is freed).
    old = {id(o) for o in before}
    return [n for n in natives() if id(n) not in old]


def run_both(f, *args, monkeypatch):
    """(native outputs, Python outputs, the NativeLoops made) of jit(f)."""
    before = natives()
    jf = pyjax.jit(lambda *a: f(*a))  # a new function: nothing cached
    first = jf(*args)  # the checked call: both loops run
    second = jf(*args)  # the native loop alone
    made = new_since(before)
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        reference = pyjax.jit(lambda *a: f(*a))(*args)
    for a, b, c in zip(pyjax.tree.leaves(first), pyjax.tree.leaves(second), pyjax.tree.leaves(reference),
                       strict=True):
        a, b, c = map(np.asarray, (a, b, c))
        assert a.dtype == c.dtype and a.shape == c.shape
        assert a.tobytes() == c.tobytes()
        assert b.tobytes() == c.tobytes()
    return second, reference, made


def live(made):
    return [n for n in made if n.state == native_tiering.LIVE]


def rnn(W, xs, h):
    def body(h, x):
        return jnp.tanh(W @ h + x), None
    return lax.scan(body, h, xs)[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rnn_runs_natively_and_bitwise(dtype, eager_tier, monkeypatch):
    with pyjax.enable_x64(dtype == np.float64):
        W, xs, h = arr(32, 32, dtype=dtype) * 0.2, arr(300, 32, dtype=dtype), arr(32, dtype=dtype)
        assert W.dtype == dtype
        _, _, made = run_both(rnn, W, xs, h, monkeypatch=monkeypatch)
    assert len(live(made)) == 1
    assert "gemv" in made[0].source


def test_source_calls_the_native_tier_before_the_python_loop(eager_tier):
    W, xs, h = arr(8, 8), arr(10, 8), arr(8)
    text = pyjax.jit(rnn).lower(W, xs, h).as_text("python")
    assert "_native_scan" in text and ".check(" in text and "for " in text


def test_vector_matrix_reverse_and_stacked_ys(eager_tier, monkeypatch):
    W, xs, h = arr(16, 24) * 0.3, arr(50, 24), arr(16)

    def f(W, xs, h):
        def body(h, x):
            y = jnp.sin(h @ W) * x   # vector-matrix product
            return jnp.tanh(W @ y), (y, h)  # ys: a new value and an old carry
        return lax.scan(body, h, xs, reverse=True)

    _, _, made = run_both(f, W, xs, h, monkeypatch=monkeypatch)
    assert len(live(made)) == 1


def test_swapped_carries_literals_and_scalars(eager_tier, monkeypatch):
    xs = arr(40, 5)

    def f(xs):
        def body(c, x):
            a, b, i, s = c
            return (b, a * 0.5 + x, i + 1, s - 1.0), a
        return lax.scan(body, (jnp.ones(5), jnp.zeros(5), jnp.int32(0), jnp.float32(3)), xs)

    _, _, made = run_both(f, xs, monkeypatch=monkeypatch)
    assert len(live(made)) == 1


def test_scan_without_xs_and_fori_loop(eager_tier, monkeypatch):
    def f(x):
        y = lax.fori_loop(0, 100, lambda i, v: jnp.cos(v) * 0.9 + 0.1, x)
        z, _ = lax.scan(lambda c, _: (jnp.exp(-c * c), None), x, None, length=30)
        return y, z

    _, _, made = run_both(f, arr(6), monkeypatch=monkeypatch)
    assert len(live(made)) == 2


def test_reshape_and_comparisons(eager_tier, monkeypatch):
    def f(xs, h):
        def body(h, x):
            g = jnp.sin(h.reshape(2, 3)).reshape(6) + x
            return jnp.abs(g) - 0.25, g > 0.5
        return lax.scan(body, h, xs)

    _, _, made = run_both(f, arr(20, 6), arr(6), monkeypatch=monkeypatch)
    assert len(live(made)) == 1


def test_lstm_cell_matmuls_splits_broadcasts_and_logistic(eager_tier, monkeypatch):
    B, H, X = 8, 32, 16
    params = (arr(X, 4 * H) * 0.2, arr(H, 4 * H) * 0.2, arr(4 * H))

    def lstm(params, xs, h, c):
        Wx, Wh, b = params

        def cell(carry, x):
            h, c = carry
            z = x @ Wx + h @ Wh + b            # two gemms and a broadcast bias
            i, f, g, o = jnp.split(z, 4, axis=-1)  # strided views
            c = pyjax.nn.sigmoid(f) * c + pyjax.nn.sigmoid(i) * jnp.tanh(g)
            h = pyjax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), h
        return lax.scan(cell, (h, c), xs)

    _, _, made = run_both(lstm, params, arr(60, B, X), arr(B, H), arr(B, H), monkeypatch=monkeypatch)
    assert len(live(made)) == 1
    assert "gemm" in made[0].source


def test_where_casts_transposes_and_slices(eager_tier, monkeypatch):
    def f(xs, h):
        def body(h, x):
            mask = x > 0
            g = jnp.where(mask, h * 2.0, h - x) + mask.astype(jnp.float32)   # select_n, an exact cast
            t = jnp.tanh((g.reshape(2, 4).T * 1.5).reshape(8))              # a strided (transposed) operand
            return t, t[1:7:2]                                              # a strided slice as a y
        return lax.scan(body, h, xs)

    _, _, made = run_both(f, arr(30, 8), arr(8), monkeypatch=monkeypatch)
    assert len(live(made)) == 1


def test_while_loops_run_natively(eager_tier, monkeypatch):
    def f(a, n):
        def cond(c):
            i, _, d = c
            return (i < n) & (d > 1e-6)

        def body(c):
            i, y, _ = c
            y2 = 0.5 * (y + a / y)
            return i + 1, y2, jnp.abs(y2[0] - y[0])

        return lax.while_loop(cond, body, (jnp.int32(0), a, jnp.float32(jnp.inf)))

    a = jnp.asarray(np.linspace(0.5, 50, 8, dtype=np.float32))
    _, _, made = run_both(f, a, jnp.int32(40), monkeypatch=monkeypatch)
    assert len(live(made)) == 1
    assert "for (;;)" in made[0].source


def test_fori_loop_with_traced_bounds_is_a_native_while(eager_tier, monkeypatch):
    def f(x, n):
        return lax.fori_loop(0, n, lambda i, v: jnp.sin(v) * 0.5 + x, x)

    text = pyjax.jit(f).lower(arr(5), jnp.int32(3)).as_text("python")
    assert "_native_while" in text and "while True:" in text
    _, _, made = run_both(f, arr(5), jnp.int32(300), monkeypatch=monkeypatch)
    assert len(live(made)) == 1


def test_a_batched_while_keeps_the_python_loop(eager_tier):
    def f(x):
        return lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x)

    text = pyjax.jit(pyjax.vmap(f)).lower(jnp.asarray([1.0, 3.0])).as_text("python")
    assert "_native_while" not in text


def test_max_and_min_keep_xlas_signed_zeros(eager_tier, monkeypatch):
    # max(+0.0, -0.0) is +0.0 and min(-0.0, +0.0) is -0.0 in XLA; NumPy picks
    # the second operand. Rows of zeros of both signs exercise every case.
    zeros = np.array([[0.0, -0.0, 0.0, -0.0], [-0.0, 0.0, 0.0, -0.0]] * 10, np.float32)

    def f(xs, h):
        def body(h, x):
            return jnp.maximum(h * 0.0, x), (jnp.maximum(x, -x), jnp.minimum(-x, x), jnp.maximum(x, -0.5))
        return lax.scan(body, h, xs)

    (_, ys), _, made = run_both(f, jnp.asarray(zeros), jnp.zeros(4), monkeypatch=monkeypatch)
    assert len(live(made)) == 1
    assert not np.signbit(np.asarray(ys[0])).any() and np.signbit(np.asarray(ys[1])).all()


def chain(x, y):
    for _ in range(10):
        x = jnp.tanh(x * 1.01 + y)
        x = jnp.maximum(x, -0.5)
        y = jnp.where(x > 0, y, -y)
    return x, y[::2]


def test_a_long_straight_line_program_runs_natively(eager_tier, monkeypatch):
    text = pyjax.jit(lambda *a: chain(*a)).lower(arr(16), arr(16)).as_text("python")
    assert "_native_program" in text
    _, _, made = run_both(chain, arr(16), arr(16), monkeypatch=monkeypatch)
    assert len(live(made)) == 1


def test_an_unrolled_loop_over_a_large_input_runs_natively(eager_tier, monkeypatch):
    # The seed's Python-for version of the RNN: a straight-line program whose
    # input (100 x 256 floats, 100 KB) is only read row by row.
    def unrolled(W, xs, h):
        for t in range(xs.shape[0]):
            h = jnp.tanh(W @ h + xs[t, :16])
        return h

    _, _, made = run_both(unrolled, arr(16, 16) * 0.3, arr(100, 256), arr(16), monkeypatch=monkeypatch)
    assert len(live(made)) == 1


def test_short_programs_and_programs_with_loops_stay_python(eager_tier):
    one = pyjax.jit(lambda x: jnp.tanh(x)).lower(arr(16)).as_text("python")
    assert "_native_program" not in one
    # A program of a few equations gets a tier where native_call.c can be
    # built (a call costs ~0.2 us); through ctypes (~5 us) only a long one.
    short = pyjax.jit(lambda x: jnp.tanh(x) * 2.0 + 1.0).lower(arr(16)).as_text("python")
    assert ("_native_program" in short) == (native_build._headers() is not None)

    def looped(x, y):
        x, y = chain(x, y)
        return lax.fori_loop(0, 3, lambda i, v: v * 2.0, x), y

    text = pyjax.jit(looped).lower(arr(16), arr(16)).as_text("python")
    assert "_native_program" not in text and "_native_scan" in text


def test_a_training_loop_runs_natively(eager_tier, monkeypatch):
    # Forward, backward and SGD of a small MLP per step: transposed matmuls,
    # bias gradients (sums over the leading axis), a mean (a sum over every
    # axis), x ** 2 (integer_pow).
    B, I, H, O = 16, 8, 32, 4
    params = (arr(I, H) * 0.3, arr(H) * 0.1, arr(H, O) * 0.3, arr(O) * 0.1)

    def loss(p, x, y):
        W1, b1, W2, b2 = p
        h = jnp.tanh(x @ W1 + b1)
        return jnp.mean((h @ W2 + b2 - y) ** 2) + 0.01 * jnp.max(jnp.abs(W1), axis=1).sum()

    def train(p, xs, ys):
        def step(p, xy):
            value, g = pyjax.value_and_grad(loss)(p, *xy)
            return tuple(a - 0.05 * b for a, b in zip(p, g, strict=True)), value
        return lax.scan(step, p, (xs, ys))

    _, _, made = run_both(train, params, arr(40, B, I), arr(40, B, O), monkeypatch=monkeypatch)
    assert len(live(made)) == 1


def test_a_classifier_training_loop_with_custom_jvp_calls_runs_natively(eager_tier, monkeypatch):
    # relu and logsumexp are custom_jvp functions, log_softmax stops a
    # gradient: their jaxprs are written in line, as their impls run them.
    B, I, H, C = 16, 8, 32, 5
    params = (arr(I, H) * 0.3, arr(H, C) * 0.3)

    def loss(p, x, labels):
        h = pyjax.nn.relu(x @ p[0])
        logp = pyjax.nn.log_softmax(h @ p[1])
        return -jnp.mean(jnp.sum(logp * labels, axis=-1)) + 0.01 * pyjax.nn.logsumexp(h)

    def train(p, xs, ls):
        def step(p, xl):
            value, g = pyjax.value_and_grad(loss)(p, *xl)
            return tuple(a - 0.1 * b for a, b in zip(p, g, strict=True)), value
        return lax.scan(step, p, (xs, ls))

    labels = jnp.asarray(np.eye(C, dtype=np.float32)[np.random.default_rng(0).integers(0, C, (30, B))])
    _, _, made = run_both(train, params, arr(30, B, I), labels, monkeypatch=monkeypatch)
    assert len(live(made)) == 1, [m.failure for m in made]


def test_dynamic_indexing_updates_concatenation_and_flips(eager_tier, monkeypatch):
    def f(table, x):
        def body(i, c):
            acc, out = c
            row = table[i]                                     # dynamic_slice at the loop counter
            acc = jnp.concatenate([acc[1:], jnp.flip(row[:1])]) + jnp.tanh(row[::-1])
            out = out.at[i + 3].set(acc * 0.5)                 # dynamic_update_slice, clamped at the end
            return acc, out
        return lax.fori_loop(0, 12, body, (x, jnp.zeros((12, 6))))

    _, _, made = run_both(f, arr(12, 6), arr(6), monkeypatch=monkeypatch)
    assert len(live(made)) == 1, [m.failure for m in made]


def test_cond_and_switch_in_a_loop_body(eager_tier, monkeypatch):
    def f(xs, h):
        def body(h, x):
            h = lax.cond(x[0] > 0, lambda v: jnp.tanh(v) * 2.0, lambda v: v - x, h)
            k = jnp.int32(jnp.abs(x[1]) * 2)                   # 0..: out of range takes the last branch
            h = lax.switch(k, [lambda v: v, jnp.sin, lambda v: v * 0.5], h)
            return h, k
        return lax.scan(body, h, xs)

    _, _, made = run_both(f, arr(40, 6), arr(6), monkeypatch=monkeypatch)
    assert len(live(made)) == 1, [m.failure for m in made]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_conversions_as_the_impl_does_them(eager_tier, monkeypatch):
    # Float to integer saturates and maps NaN to 0 (XLA); narrowing integer
    # casts wrap; float64 to float32 rounds; anything to bool is `!= 0`.
    special = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.0**31, -2.0**31 - 1, 1e20, -0.5, 0.7, -0.0, 255.9,
                        -128.5, 65536.0, 1.5, -1.5], np.float32)

    def f(xs):
        def body(c, x):
            ys = (x.astype(jnp.int8), x.astype(jnp.int32), x.astype(jnp.uint8), x.astype(jnp.uint32),
                  x.astype(jnp.bool_), x.astype(jnp.int32).astype(jnp.int8), x.astype(jnp.int32).astype(jnp.float32))
            return c + x.astype(jnp.int32).sum(), ys
        return lax.scan(body, jnp.int32(0), xs)

    xs = jnp.asarray(np.stack([special, special * 0.37, -special * 1.9]))
    _, _, made = run_both(f, xs, monkeypatch=monkeypatch)
    assert len(live(made)) == 1, [m.failure for m in made]


def test_unsigned_and_out_of_range_indices_clamp_as_the_impl(eager_tier, monkeypatch):
    def f(table, idx):
        def body(c, i):
            row = lax.dynamic_slice(table, (i, jnp.uint32(0)), (1, 4))[0]
            out = c.at[i].set(row, mode="clip")
            return out, row
        return lax.scan(body, jnp.zeros((6, 4)), idx)

    idx = jnp.asarray(np.array([0, 3, 5, 6, 2**31 + 5, 2**32 - 1, 1], np.uint32))
    _, _, made = run_both(f, arr(6, 4), idx, monkeypatch=monkeypatch)
    assert len(live(made)) == 1, [m.failure for m in made]


def test_transposed_xs_are_copied_for_the_native_loop(eager_tier, monkeypatch):
    def f(W, x, h):
        return rnn(W, x.T, h)  # xs is a transposed view inside the compiled function

    _, _, made = run_both(f, arr(8, 8) * 0.3, arr(8, 70), arr(8), monkeypatch=monkeypatch)
    assert len(live(made)) == 1


def test_repeated_eager_scans_of_one_body_share_one_native_tier(monkeypatch):
    # The body's trace is cached (as in JAX) and its compiled equation with
    # it: eager calls reach the threshold together and tier up.
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 150)
    W, xs, h = arr(8, 8) * 0.3, arr(50, 8), arr(8)

    def body(h, x):
        return jnp.tanh(W @ h + x), None

    before = natives()
    outs = [np.asarray(lax.scan(body, h, xs)[0]).tobytes() for _ in range(3)]
    (made,) = new_since(before)
    made._thread.join()
    outs += [np.asarray(lax.scan(body, h, xs)[0]).tobytes() for _ in range(2)]
    assert made.state == native_tiering.LIVE and len(set(outs)) == 1


def test_eager_scan_uses_the_native_tier(eager_tier, monkeypatch):
    W, xs, h = arr(8, 8) * 0.3, arr(60, 8), arr(8)
    before = natives()
    out = [rnn(W, xs, h) for _ in range(3)]
    made = new_since(before)
    assert live(made)
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        reference = pyjax.jit(lambda *a: rnn(*a))(W, xs, h)
    for o in out:
        assert np.asarray(o).tobytes() == np.asarray(reference).tobytes()


@pytest.mark.parametrize("body", [
    lambda c, x: (jnp.cumsum(c, axis=0) + x, None),       # no ufunc for cumsum
    lambda c, x: (c.at[jnp.argmax(x)].set(x), None),    # argmax and a scatter
    lambda c, x: (jnp.sort(c, axis=0) * x[:, None], None),
])
def test_unsupported_bodies_keep_the_python_loop(body, eager_tier):
    text = pyjax.jit(lambda c, xs: lax.scan(body, c, xs)[0]).lower(arr(4, 4), arr(5, 4)).as_text("python")
    assert "_native_scan" not in text


def test_a_difference_drops_the_native_loop(eager_tier, monkeypatch):
    run = native.NativeLoop._run

    def off_by_one_bit(self, inputs):
        outs = run(self, inputs)
        outs[0].view(np.uint32)[0] ^= 1
        return outs

    monkeypatch.setattr(native.NativeLoop, "_run", off_by_one_bit)
    W, xs, h = arr(8, 8) * 0.3, arr(20, 8), arr(8)
    before = natives()
    jf = pyjax.jit(lambda *a: rnn(*a))
    results = [np.asarray(jf(W, xs, h)) for _ in range(3)]
    (made,) = new_since(before)
    assert made.state == native_tiering.DEAD and "differ" in made.failure
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        reference = np.asarray(pyjax.jit(lambda *a: rnn(*a))(W, xs, h))
    assert all(r.tobytes() == reference.tobytes() for r in results)


def test_tiers_up_after_the_threshold(monkeypatch):
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 250)
    W, xs, h = arr(8, 8) * 0.3, arr(100, 8), arr(8)
    before = natives()
    jf = pyjax.jit(lambda *a: rnn(*a))
    jf(W, xs, h)
    jf(W, xs, h)
    (made,) = new_since(before)
    assert made.state == native_tiering.COLD and made.steps == 200
    jf(W, xs, h)  # 300 steps: the build starts, on its own thread
    assert made.state in (native_tiering.BUILDING, native_tiering.BUILT)
    made._thread.join()
    jf(W, xs, h)  # the checked call
    assert made.state == native_tiering.LIVE


def test_threads_calling_through_the_tier_up(monkeypatch):
    # Four threads cross the threshold together: one build, one checked call
    # per thread at most, and every result the Python loop's.
    import threading

    monkeypatch.setattr(native_settings, "AFTER_STEPS", 300)
    W, xs, h = arr(8, 8) * 0.3, arr(100, 8), arr(8)
    jf = pyjax.jit(lambda *a: rnn(*a))
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        reference = np.asarray(pyjax.jit(lambda *a: rnn(*a))(W, xs, h)).tobytes()
    before = natives()
    results = [np.asarray(jf(W, xs, h)).tobytes()]  # compiled once, before the threads

    def work():
        for _ in range(10):
            results.append(np.asarray(jf(W, xs, h)).tobytes())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (made,) = new_since(before)
    made._thread.join()
    jf(W, xs, h)
    assert all(r == reference for r in results) and len(results) == 41
    assert made.state == native_tiering.LIVE


def test_log_compiles_reports_the_native_build(eager_tier, caplog):
    import logging

    with pyjax.log_compiles(True), caplog.at_level(logging.WARNING):
        jf = pyjax.jit(lambda *a: rnn(*a))
        W, xs, h = arr(8, 8) * 0.3, arr(20, 8), arr(8)
        jf(W, xs, h)
        jf(W, xs, h)
    text = caplog.text
    assert "Finished native build of a scan" in text and "Native scan live" in text


def test_without_a_compiler_nothing_changes(monkeypatch, eager_tier):
    monkeypatch.setenv("CC", "/nonexistent/cc")
    text = pyjax.jit(lambda *a: rnn(*a)).lower(arr(8, 8), arr(10, 8), arr(8)).as_text("python")
    assert "_native_scan" not in text


def test_ufunc_loops_are_numpys():
    # The pointer read from the ufunc's C struct, run on an array, gives
    # what the ufunc gives.
    import ctypes

    fn, data = native_discovery.ufunc_loop(np.tanh, (np.dtype(np.float32),) * 2)
    loop = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(fn)
    x = np.asarray(rng.standard_normal(37), np.float32)
    out = np.empty_like(x)
    args = (ctypes.c_void_p * 2)(x.ctypes.data, out.ctypes.data)
    n = (ctypes.c_ssize_t * 1)(x.size)
    steps = (ctypes.c_ssize_t * 2)(4, 4)
    loop(args, n, steps, data)
    assert out.tobytes() == np.tanh(x).tobytes()
    assert native_discovery.ufunc_loop(np.tanh, (np.dtype(np.int8),) * 2) is None


# Random bodies: every op the native code writes, on random shapes, with
# broadcasts, slices and carries that swap. Each must go live (its outputs
# bitwise the Python loop's) and stay so on new inputs.
_UNARY = [jnp.tanh, jnp.exp, jnp.sin, jnp.abs, jnp.negative, pyjax.nn.sigmoid, lambda v: v * v]
_BINARY = [jnp.add, jnp.subtract, jnp.multiply, jnp.divide, jnp.maximum, jnp.minimum,
           lambda a, b: jnp.where(a > b, a, b * 0.5)]


def _random_body(seed, n):
    r = np.random.default_rng(seed)
    plan = [(r.integers(len(_UNARY)), r.integers(len(_BINARY)), r.integers(4)) for _ in range(6)]
    W = jnp.asarray(r.standard_normal((n, n)).astype(np.float32) * 0.3)
    bias = jnp.asarray(r.standard_normal((n,)).astype(np.float32))

    def body(carry, x):
        a, b = carry
        for u, bi, kind in plan:
            if kind == 0:
                a = _BINARY[bi](_UNARY[u](a), x)
            elif kind == 1:
                a = _BINARY[bi](a, bias[None, :] if a.ndim == 2 else bias)   # a broadcast operand
            elif kind == 2:
                a = jnp.tanh(a @ W) + b                                     # a matrix product
                a = a - jnp.sum(a, axis=-1, keepdims=True) * 0.1            # a reduction
                a = a + (b @ W.T) ** 2 * 0.01 + jnp.max(a) * 0.01          # transposed, integer_pow
            else:
                a, b = b, _BINARY[bi](a, 1.5)                               # swapped carries, a literal
        return (a, b), a[..., 1::2]                                         # a strided y
    return body


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # some bodies overflow: inf and NaN must agree too
@pytest.mark.parametrize("seed", range(24))
def test_random_bodies_go_live_bitwise(seed, eager_tier, monkeypatch):
    n = 8
    batched = seed % 2 == 1
    shape = (3, n) if batched else (n,)
    body = _random_body(seed, n)

    def f(a, b, xs):
        return lax.scan(body, (a, b), xs)

    xs = arr(25, *shape)
    _, _, made = run_both(f, arr(*shape), arr(*shape), xs, monkeypatch=monkeypatch)
    assert len(live(made)) == 1, [m.failure for m in made]


needs_native_call = pytest.mark.skipif(native_build._headers() is None or native_build._native_call_type() is None,
                                       reason="native_call.c needs Python's and NumPy's headers")


def live_program(f, *args):
    # jit(f), called until its native tier is live; the tier, and the
    # Python code's result (the first call is the checked one).
    before = natives()
    jf = pyjax.jit(f)
    first = np.asarray(jf(*args))
    jf(*args)
    (made,) = new_since(before)
    # (`run` is the re-checking NativeCall; `_call` the plain one, over the same code.)
    assert made.live and made._call is not None and made.run is made._live
    assert type(made.run) is type(made._call)
    return first, made


@needs_native_call
def test_a_short_program_is_called_through_native_call(eager_tier):
    f = lambda x, y: jnp.tanh(x) * y + 1.0
    x, y = arr(3, 4), arr(3, 4)
    expected, made = live_program(f, x, y)
    assert type(made._call).__name__ == "NativeCall"
    out = made._call(np.asarray(x), np.asarray(y))
    assert type(out) is list and out[0].tobytes() == expected.tobytes()
    # Non-contiguous and read-only inputs are copied first; a result is a new array each call.
    big = np.zeros((3, 8), np.float32)
    big[:, ::2] = np.asarray(x)
    view = big[:, ::2]
    view.flags.writeable = False
    again = made._call(view, np.asarray(y))[0]
    assert again.tobytes() == expected.tobytes() and again is not out[0]


@needs_native_call
def test_native_call_returns_none_for_other_inputs_and_call1_raises(eager_tier):
    _, made = live_program(lambda x: jnp.sin(x) * 2.0 + 1.0, arr(5))
    ok = np.ones(5, np.float32)
    assert made._call(ok) is not None
    assert made._call(np.ones(5, np.float64)) is None  # another dtype
    assert made._call(np.ones(6, np.float32)) is None  # another shape
    assert made._call(np.ones((5, 1), np.float32)) is None  # another rank
    assert made._call(ok, ok, ok) is None  # another arity
    assert made._call(ok.astype(">f4")) is not None  # byte-swapped: converted
    assert made.call1(ok).tobytes() == made._call(ok)[0].tobytes()
    with pytest.raises(TypeError, match="dtypes and shapes"):
        made.call1(np.ones(5, np.float64))
    with pytest.raises(TypeError, match="positional"):
        made._call(x=ok)


@needs_native_call
def test_native_call_writes_into_given_output_buffers(eager_tier):
    expected, made = live_program(lambda x: jnp.sin(x) * 2.0 + 1.0, arr(6))
    x = np.asarray(arr(6))
    expected = made._call(x)[0]
    buf = np.zeros(6, np.float32)
    (out,) = made._call(x, buf)
    assert out is buf and buf.tobytes() == expected.tobytes()
    assert made._call(x, None)[0] is not buf  # None: a new array
    read_only = np.zeros(6, np.float32)
    read_only.flags.writeable = False
    for unfit in (np.zeros(12, np.float32)[::2], read_only, np.zeros(6, np.float64), np.zeros(5, np.float32), [0.0] * 6):
        assert made._call(x, unfit) is None
    assert not read_only.any()
    with pytest.raises(TypeError, match="does not fit"):
        made.call1(x, read_only)


@needs_native_call
def test_a_scalar_program_takes_numpy_scalars(eager_tier):
    expected, made = live_program(lambda a, b: jnp.sin(a) * b + a, jnp.float32(0.5), jnp.float32(3.0))
    out = made._call(np.float32(0.5), np.float32(3.0))[0]
    assert out.shape == () and out.tobytes() == expected.tobytes()


@needs_native_call
def test_native_calls_from_threads(eager_tier):
    import threading

    f = lambda x: jnp.exp(x) * x - 1.0
    _, made = live_program(f, arr(64))
    xs = [np.asarray(arr(64)) for _ in range(4)]
    with pytest.MonkeyPatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        outputs = [np.asarray(pyjax.jit(f)(x)) for x in xs]
    expected = [out.tobytes() for out in outputs]
    bad = []

    def work(k):
        try:
            for _ in range(2000):
                out = made.run(xs[k])
                if out is None:  # a re-checked call: the Python code's outputs complete it
                    made.check(made.steps_per_call, outputs[k])
                elif out[0].tobytes() != expected[k]:
                    bad.append(k)
        except Exception as e:  # noqa: BLE001  (a thread's failure fails the test)
            bad.append(repr(e))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad
    assert made.live


@needs_native_call
@pytest.mark.parametrize("call", [
    lambda x, m: jnp.mean(m, axis=0),
    lambda x, m: jnp.mean(m, axis=1, keepdims=True),
    lambda x, m: jnp.var(m, axis=0),
    lambda x, m: pyjax.nn.softmax(m, axis=-1),
    lambda x, m: jnp.where(x > 0, x, 0.5),
    lambda x, m: jnp.linalg.norm(m, axis=0),
    lambda x, m: jnp.clip(x, 0.1, 0.5),
    lambda x, m: jnp.allclose(x, m[0]),
    lambda x, m: pyjax.nn.silu(m),
])
def test_eager_jnp_calls_tier_up_bitwise(call, eager_tier, monkeypatch):
    # An eager jax.numpy call of a few equations runs as a NumPy call; with
    # its native tier live, as one C call returning its one output.
    x = jnp.asarray(np.array([1.5, -2.0, 0.0, 3.25], np.float32))
    m = arr(4, 4)
    with monkeypatch.context() as p:
        p.setattr(native_settings, "ENABLED", False)
        pyjax.clear_caches()
        reference = np.asarray(call(x, m))
    pyjax.clear_caches()
    before = natives()
    outs = [np.asarray(call(x, m)) for _ in range(4)]
    made = new_since(before)
    assert made and all(n.live for n in made)
    for out in outs:
        assert out.dtype == reference.dtype and out.shape == reference.shape
        assert out.tobytes() == reference.tobytes()


@needs_native_call
def test_eager_mean_runs_its_native_callable(eager_tier):
    from pyjax._src.numpy import reductions

    pyjax.clear_caches()
    m = arr(4, 4)
    for _ in range(3):
        out = jnp.mean(m, axis=0)
    plans = [p for p in reductions._SITES["mean"].plans.values() if hasattr(p, "run")]
    assert plans and type(plans[-1].run).__name__ == "NativeCall"
    assert isinstance(out, pyjax.Array) and out.dtype == jnp.float32
    assert np.asarray(out).tobytes() == np.asarray(reductions._mean(m, axis=(0,))).tobytes()


def test_without_native_call_programs_go_through_ctypes(eager_tier, monkeypatch):
    # native_call.c could not be built (no headers): a short program keeps
    # its Python code, a long one is still native, called through ctypes.
    monkeypatch.setattr(native_build, "_caller_state", [None])
    short = pyjax.jit(lambda x: jnp.tanh(x) * 2.0 + 1.0).lower(arr(16)).as_text("python")
    assert "_native_program" not in short
    _, _, made = run_both(chain, arr(16), arr(16), monkeypatch=monkeypatch)
    (tier,) = live(made)
    assert tier._call is None and tier.call1 is None and tier.run == tier._tiering


def test_without_native_call_scans_and_row_loops_go_through_ctypes(eager_tier, monkeypatch):
    # Their functions read a Watch after the buffers: through ctypes, one
    # wanting nothing (the inputs are scanned in Python before the call).
    monkeypatch.setattr(native_build, "_caller_state", [None])
    monkeypatch.setattr(native_settings, "MIN_CTYPES_PROGRAM_EQNS", 10**6)  # (no program tier in the way)

    def f(W, xs, h, big):
        return rnn(W, xs, h), pyjax.nn.softmax(big * 2.0, axis=-1)

    _, _, made = run_both(f, arr(16, 16) * 0.3, arr(50, 16), arr(16), arr(256, 512), monkeypatch=monkeypatch)
    kinds = sorted(t.kind for t in live(made))
    assert kinds == ["row loop", "scan"], [(t.kind, t.failure) for t in made]
    assert all(t._call is None for t in made)
