"""Row regions (backends/numpy/native/rows.py): a run of row-wise equations over a
large array gets a native tier that runs it row by row over NumPy's own
kernels. Every case checks the tier went live and that its results are
bitwise those of the Python code (the same function with native code off).
"""

from __future__ import annotations

import gc
import math

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.native import settings as native_settings

pytestmark = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED,
                                reason="native code needs a C compiler")

rng = np.random.default_rng(5)


def arr(*shape, dtype=np.float32, scale=1.0):
    return jnp.asarray((rng.standard_normal(shape) * scale).astype(dtype))


@pytest.fixture(autouse=True)
def eager_tier(monkeypatch):
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)  # build at the first call; it is the checked one


def row_loops():
    return [o for o in gc.get_objects() if isinstance(o, native.NativeLoop) and o.kind == "row loop"]


def run_both(f, *args, monkeypatch, calls=3):
    """(native outputs of `calls` calls, Python outputs, the row loops made)."""
    held = row_loops()  # alive: an id alone could be reused by a new object
    before = {id(o) for o in held}
    jf = pyjax.jit(lambda *a: f(*a))
    outs = [jf(*args) for _ in range(calls)]
    made = [o for o in row_loops() if id(o) not in before]
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        reference = pyjax.jit(lambda *a: f(*a))(*args)
    for out in outs:
        for a, b in zip(pyjax.tree.leaves(out), pyjax.tree.leaves(reference), strict=True):
            a, b = np.asarray(a), np.asarray(b)
            assert a.dtype == b.dtype and a.shape == b.shape
            assert a.tobytes() == b.tobytes()
    return outs, reference, made


def softmax(s):
    s = s / 8.0
    s = s - jnp.max(s, axis=-1, keepdims=True)
    e = jnp.exp(s)
    return e / jnp.sum(e, axis=-1, keepdims=True)


def layer_norm(x, g, b):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * jax_rsqrt(var + 1e-5) * g + b


def jax_rsqrt(x):
    return pyjax.lax.rsqrt(x)


@pytest.mark.parametrize("f, shape", [
    (softmax, (256, 512)),
    (lambda s: pyjax.nn.softmax(s, axis=-1), (4, 64, 512)),
    (lambda s: pyjax.nn.log_softmax(s, axis=-1), (300, 257)),
    (lambda s: (jnp.max(s, axis=-1), jnp.sum(jnp.tanh(s) * 2.0, axis=-1)), (512, 200)),
    (lambda s: jnp.logaddexp(s, 0.5) - jnp.min(s, axis=-1, keepdims=True), (128, 1024)),
    # no reduction, but seven passes (a max's derivative is such a run)
    (lambda s: jnp.where(s > 0, s * 2.0, s / 3.0) + jnp.where(s == 0, 0.5, 1.0), (128, 512)),
])
def test_row_wise_runs_go_live_bitwise(f, shape, monkeypatch):
    x = arr(*shape, scale=4.0)
    text = pyjax.jit(f).lower(x).as_text("python")
    assert "_native_rows" in text and "row-wise equations" in text
    _, _, made = run_both(f, x, monkeypatch=monkeypatch)
    assert made and all(n.live for n in made)


def test_layer_norm_with_scale_and_shift(monkeypatch):
    x, g, b = arr(256, 384, scale=3.0), arr(384), arr(384)
    # rsqrt has no native kernel: the run stops there.
    _, _, made = run_both(layer_norm, x, g, b, monkeypatch=monkeypatch)
    assert made and all(n.live for n in made)


def after_last_region(text: str) -> list[str]:
    """The generated lines after the last row region's Python code."""
    lines = text.splitlines()
    last = max(i for i, line in enumerate(lines) if ".check(" in line)
    return [line.strip() for line in lines[last + 1:] if not line.strip().startswith("del ")]


def test_a_layer_norm_with_its_scale_and_shift_is_one_region(monkeypatch):
    # The scale and shift are columns (one value per feature, the same for
    # every row): the loop reads them whole. The scalar 1/n and the
    # columns' broadcasts, amid the run but not of it, go before it.
    def ln(x, g, b):
        m = jnp.mean(x, axis=-1, keepdims=True)
        v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
        return g * (x - m) / jnp.sqrt(v + 1e-5) + b

    x, g, b = arr(256, 384, scale=3.0), arr(384), arr(384)
    text = pyjax.jit(ln).lower(x, g, b).as_text("python")
    assert text.count("row-wise equations") == 1
    assert after_last_region(text) == [f"return [{_region_output(text)}]"]
    _, _, made = run_both(ln, x, g, b, monkeypatch=monkeypatch)
    assert len(made) == 1 and made[0].live
    assert [shape for shape, _ in made[0].in_specs].count((1, 384)) == 2  # g and b, read whole


def _region_output(text: str) -> str:
    import re

    return re.findall(r"(\w+), = _nrr\d+\n", text)[-1]  # (the last region's one output)


def test_a_softmax_gradient_is_one_region(monkeypatch):
    # Reverse mode sums the cotangent of the kept row value over its axis of
    # length 1 (the transpose of the broadcast that kept it): one value a
    # row, so the run goes on through the rest of the gradient.
    f = pyjax.grad(lambda s, w: jnp.sum(pyjax.nn.softmax(s, axis=-1) * w))
    s, w = arr(4, 128, 256, scale=3.0), arr(4, 128, 256)
    text = pyjax.jit(f).lower(s, w).as_text("python")
    assert after_last_region(text) == [f"return [{_region_output(text)}]"]
    _, _, made = run_both(f, s, w, monkeypatch=monkeypatch)
    assert made and all(n.live for n in made)


def test_attention_rows_run_inside_tiled_blocks(monkeypatch):
    H, S, D = 8, 128, 32

    def attn(q, k, v):
        def head(q, k, v):
            s = (q @ k.T) / math.sqrt(D)
            s = s - jnp.max(s, axis=-1, keepdims=True)
            e = jnp.exp(s)
            return (e / jnp.sum(e, axis=-1, keepdims=True)) @ v
        return pyjax.vmap(head)(q, k, v)

    q, k, v = arr(H, S, D), arr(H, S, D), arr(H, S, D)
    _, _, made = run_both(attn, q, k, v, monkeypatch=monkeypatch)
    assert made and all(n.live for n in made)


def test_inputs_are_never_written(monkeypatch):
    # The live loop writes its first output into a dead buffer the function
    # allocated itself (a matmul's result), never into an argument.
    x = arr(256, 512, scale=4.0)
    before = np.asarray(x).copy()
    _, _, made = run_both(softmax, x, monkeypatch=monkeypatch, calls=4)
    assert made and all(n.live for n in made)
    assert np.asarray(x).tobytes() == before.tobytes()
    f = lambda a, b: softmax(a @ b)
    text = pyjax.jit(f).lower(arr(256, 64), arr(64, 512)).as_text("python")
    run = next(line for line in text.splitlines() if "_native_rows" in line and ".run(" in line)
    assert run.count(",") == 2  # scalar, scores, and the scores again as the output's buffer
    a, b = arr(256, 64), arr(64, 512)
    copies = np.asarray(a).copy(), np.asarray(b).copy()
    run_both(f, a, b, monkeypatch=monkeypatch, calls=4)
    assert np.asarray(a).tobytes() == copies[0].tobytes() and np.asarray(b).tobytes() == copies[1].tobytes()


@pytest.mark.parametrize("f, shape", [
    (lambda s: s - jnp.max(s, axis=0, keepdims=True), (512, 512)),  # over the leading axis
    (lambda s: jnp.exp(s) + jnp.sum(s, axis=-1, keepdims=True), (64, 64)),  # small
    (lambda s: jnp.tanh(s) * 2.0 + 1.0, (512, 512)),  # no reduction: nothing to fuse for
    (lambda s: jnp.exp(s) / jnp.sum(jnp.exp(s), axis=-1, keepdims=True), (1024, 8)),  # short rows
])
def test_other_runs_keep_their_python_code(f, shape):
    text = pyjax.jit(f).lower(arr(*shape)).as_text("python")
    assert "_native_rows" not in text


def test_a_difference_drops_the_row_loop_and_keeps_python_results(monkeypatch):
    run = native.NativeLoop._run

    def wrong(self, inputs):
        outs = run(self, inputs)
        if outs is not None and self.kind == "row loop":
            outs[0] = outs[0] + 1.0
        return outs

    monkeypatch.setattr(native.NativeLoop, "_run", wrong)
    x = arr(256, 512)
    outs, reference, made = run_both(softmax, x, monkeypatch=monkeypatch)
    assert made and all(n.dead for n in made)


def test_without_native_code_nothing_changes(monkeypatch):
    monkeypatch.setattr(native_settings, "ENABLED", False)
    text = pyjax.jit(softmax).lower(arr(256, 512)).as_text("python")
    assert "_native_rows" not in text


def test_vector_runs_in_tiled_blocks_go_live_in_chunks(monkeypatch):
    # A Newton step over a vector: tiled by blocks of the vector, and each
    # block's elementwise run cut into chunks that act as rows (1-D values
    # have no rows of their own); the partial max stays NumPy's.
    from pyjax._src.backends.numpy.native import rows as rows_lib
    from pyjax._src.backends.numpy.parallel import split as split_lib
    from pyjax._src.backends.numpy.parallel import tile as tile_lib

    monkeypatch.setitem(split_lib._state, "workers", 2)
    monkeypatch.setattr(tile_lib, "MIN_ELEMENTS", 1 << 16)
    n = 3 * 1000 * 64  # blocks of 96000 elements: chunks of 2000

    def newton(a):
        def body(c):
            i, y, _ = c
            yn = 0.5 * (y + a / y)
            return i + 1, yn, jnp.max(jnp.abs(yn - y) / yn)
        return pyjax.lax.while_loop(lambda c: (c[0] < 6) & (c[2] > 1e-6), body, (0, a, jnp.float32(np.inf)))

    a = jnp.asarray(rng.uniform(0.5, 100.0, n).astype(np.float32))
    _, _, made = run_both(newton, a, monkeypatch=monkeypatch)
    assert "_tiled_region" in pyjax.jit(newton).lower(a).as_text("python")
    assert made and all(loop.live for loop in made)
    assert all(shape == (n // 2,) for loop in made for shape, _ in loop.in_specs)  # one block's vectors
    assert rows_lib._chunk(96000) == 2000 and rows_lib._chunk(2 * 65537) is None  # (a prime has no chunks)


def test_vector_runs_outside_tiled_blocks_keep_their_python_code():
    f = lambda a: (0.5 * (a + 2.0 / a)) * 3.0 - 1.0
    text = pyjax.jit(f).lower(arr(1 << 17)).as_text("python")
    assert "_native_rows" not in text


def relu_net_grad(x, w):
    def loss(x, w):
        h = jnp.maximum(x, 0.0)
        return jnp.sum(jnp.maximum(h @ w + x, 0.0) * x)
    return pyjax.grad(loss, argnums=(0, 1))(x, w)


def test_short_rows_without_row_values_run_in_chunks(monkeypatch):
    # NHWC activations of 16 and of 8 features: a max's derivative over them
    # is elementwise, so its rows are chunks of whole rows (2048 and 1792
    # elements: one kernel call a chunk, not one a row of 8 or 16).
    x, w = arr(8, 32, 32, 16), arr(16, 16, scale=0.3)
    text = pyjax.jit(relu_net_grad).lower(x, w).as_text("python")
    assert text.count("row-wise equations over 64 rows") == 2
    _, _, made = run_both(relu_net_grad, x, w, monkeypatch=monkeypatch)
    assert len(made) == 2 and all(n.live for n in made)
    f = lambda s: jnp.where(s > 0, s * 2.0, s / 3.0) + jnp.where(s == 0, 0.5, 1.0)
    x = arr(8, 28, 28, 8)  # rows of 8 were too short for a region at all
    assert "row-wise equations over 28 rows" in pyjax.jit(f).lower(x).as_text("python")
    _, _, made = run_both(f, x, monkeypatch=monkeypatch)
    assert made and all(n.live for n in made)


def test_short_rows_with_columns_run_in_chunks_of_whole_rows(monkeypatch):
    # A batch norm's per-feature scale and shift (columns) before a relu's
    # derivative over rows of 8: the run goes through the columns in chunks
    # of 64 whole rows, each column spread over a chunk once a call, not a
    # kernel call a row of 8.
    def f(x, g, b):
        def loss(x):
            h = (x - jnp.mean(x, axis=(0, 1, 2))) * g + b
            return jnp.sum(jnp.maximum(h, 0.0) * x)
        return pyjax.grad(loss)(x)

    x, g, b = arr(8, 28, 28, 8), arr(8), arr(8)
    text = pyjax.jit(f).lower(x, g, b).as_text("python")
    first = text.split("row-wise equations")[1]
    assert "over 98 rows" in first and "_wide_subtract" in first.split(".check(")[0]  # (6272 rows of 8)
    _, _, made = run_both(f, x, g, b, monkeypatch=monkeypatch)
    assert made and all(n.live for n in made)
    assert any((1, 1, 1, 8) in [shape for shape, _ in n.in_specs] for n in made)  # a column, read whole


def test_broadcast_scalars_are_neither_inputs_nor_outputs_of_row_loops():
    # The derivative's ones and zeros: native code would copy a broadcast
    # input whole and store a broadcast output whole. A region makes those
    # it reads, and those read after it are written after it (views).
    import re

    x, w = arr(8, 32, 32, 16), arr(16, 16, scale=0.3)
    text = pyjax.jit(relu_net_grad).lower(x, w).as_text("python")
    runs = re.findall(r"(_nrr\d+) = _native_rows\d+\.run\((.*)\)", text)
    assert len(runs) == 2
    (first, first_args), (second, second_args) = runs
    assert first_args.split(", ") == ["a"]  # x alone
    assert len(second_args.split(", ")) == 2 + 3  # the product and x, then buffers for its three outputs
    first_outs = re.search(rf"(.*) = {first}\n", text).group(1).strip().rstrip(",").split(", ")
    assert len(first_outs) == 2  # the max and its derivative, not a broadcast one
    between = text.split(f"{second} = ")[0].rsplit(".check(", 1)[1]
    assert "_broadcast_in_dim" in between  # the one read later, as a view after the region


def batch_norm_relu_grad(x, g, b):
    def loss(x, g, b):
        mean = jnp.mean(x, axis=(0, 1, 2))
        var = jnp.var(x, axis=(0, 1, 2))
        h = g * (x - mean) / jnp.sqrt(var + 1e-5) + b
        return jnp.sum(jnp.maximum(h, 0.0) * x)
    return pyjax.value_and_grad(loss, argnums=(0, 1, 2))(x, g, b)


def column_sum_loops(made):
    return [n for n in made if n.source is not None and "pj_acc" in n.source]


def test_batch_norm_statistics_and_their_gradients_are_summed_in_row_loops(monkeypatch):
    # Sums over N, H and W of an NHWC activation (a variance, the scale's
    # and the input's gradients) are column sums: the loop adds each chunk's
    # rows into them instead of storing the summed values for a pass of
    # their own.
    x, g, b = arr(8, 16, 16, 32, scale=3.0), arr(32), arr(32)
    text = pyjax.jit(batch_norm_relu_grad).lower(x, g, b).as_text("python")
    in_regions = [part.split(".check(")[0] for part in text.split("row-wise equations")[1:]]
    assert sum(part.count("axes=(0, 1, 2)") for part in in_regions) >= 3
    _, _, made = run_both(batch_norm_relu_grad, x, g, b, monkeypatch=monkeypatch)
    assert made and all(n.live for n in made)
    assert len(column_sum_loops(made)) >= 2


def _sequential_column_sums(y: np.ndarray) -> np.ndarray:
    acc = np.zeros(y.shape[-1], y.dtype)
    for row in y.reshape(-1, y.shape[-1]):
        acc = acc + row
    return acc


@pytest.mark.parametrize("special", [None, "nan", "inf", "negative zero"])
def test_column_sums_add_the_rows_in_order(special, monkeypatch):
    # Large and small values whose float32 sum depends on the order: the
    # loop's sums are the impl's (each column's running sum rounded after
    # every row, from +0), whatever the chunks.
    x = np.asarray(arr(16, 32, 16, scale=1.0)) * np.float32(1e-3)
    x[::7] += np.float32(3e4)
    x[3::7] -= np.float32(3e4)
    c = np.array(arr(16))
    if special == "nan":
        x[5, 3, 2] = np.nan
    elif special == "inf":
        x[2, 1, 4], x[9, 9, 9] = np.inf, -np.inf
    elif special == "negative zero":
        x[..., 7], c[7] = -0.0, 0.0

    def f(x, c):
        d = x - c
        return jnp.sum((d + 1.0) * d, axis=(0, 1)), d * 2.0  # (no product then sum: no fma)

    text = pyjax.jit(f).lower(x, c).as_text("python")
    assert text.count("row-wise equations") == 1
    outs, _, made = run_both(f, jnp.asarray(x), jnp.asarray(c), monkeypatch=monkeypatch)
    sums = outs[-1][0]
    assert len(column_sum_loops(made)) == 1 and made[0].live
    d = x - c
    with np.errstate(invalid="ignore"):
        expect = _sequential_column_sums((d + np.float32(1.0)) * d)
    sums = np.asarray(sums)
    np.testing.assert_array_equal(sums, expect)  # (NaN where NaN, whatever its sign bit)
    finite = ~np.isnan(expect)
    assert sums[finite].tobytes() == expect[finite].tobytes()
    if special == "negative zero":
        assert not np.signbit(np.asarray(sums)[7])  # (from +0: a sum of -0s is +0)


def test_what_reads_a_column_sum_runs_after_its_region(monkeypatch):
    # The mean needs every row: it is written after the loop, and the row
    # equations after it in the program stay in the same region.
    def f(x, c):
        s = jnp.sum(x * c, axis=(0, 1))
        m = s / 100.0
        y = x * 3.0 + c
        return m, y * y - x

    x, c = arr(16, 64, 32), arr(32)
    text = pyjax.jit(f).lower(x, c).as_text("python")
    assert text.count("row-wise equations") == 1
    after = text.split(".check(")[1]
    assert "_np_divide" in after or "_np_multiply" in after  # (the mean: s / 100 or s * 0.01)
    _, _, made = run_both(f, x, c, monkeypatch=monkeypatch)
    assert len(made) == 1 and made[0].live and "pj_acc" in made[0].source


def fused_loops(made):
    return [n for n in made if n.source is not None and "pj_nan" in n.source]


def relu_derivative_run(s):
    # A max's derivative and arithmetic around it: compares, selects, a
    # divide, products, all exact in C.
    return jnp.where(s > 0, s * 2.0, s / 3.0) * jnp.maximum(s, -1.0) + jnp.where(s == 0, 0.5, 1.0)


def test_exact_elementwise_runs_are_one_c_loop(monkeypatch):
    x = arr(128, 512, scale=2.0)
    _, _, made = run_both(relu_derivative_run, x, monkeypatch=monkeypatch)
    assert made and all(n.live for n in made)
    (loop,) = fused_loops(made)
    assert loop.source.count("for (intptr_t i = 0;") == 1  # (the run's one loop; no kernel call but the NaN path's)


@pytest.mark.parametrize("special", ["nan", "zero over zero", "inf"])
def test_a_chunk_with_nans_is_computed_by_numpys_kernels(special, monkeypatch):
    # NaNs' bits (their payloads, a max's NaN operand) are NumPy's: the
    # chunks that make or read one are computed again a kernel call an
    # equation, the others in the fused loop; the outputs are the Python
    # code's bit for bit, NaNs included.
    def f(s, t):
        return jnp.maximum(s * 2.0 - t, t) / (s + 1.0), jnp.minimum(s, t) * 3.0

    x, y = np.array(arr(128, 512, scale=2.0)), np.array(arr(128, 512))
    if special == "nan":
        x[3, 5], y[70, 1] = np.nan, -np.nan  # (two payloads' signs)
    elif special == "zero over zero":
        x[10, :8] = -1.0  # (s + 1 = 0, and 2s - t = t: 0/0 where t = -1)
        y[10, :8] = -1.0
    else:
        x[100, 3], y[5, 5] = np.inf, -np.inf
    _, _, made = run_both(f, jnp.asarray(x), jnp.asarray(y), monkeypatch=monkeypatch)
    assert fused_loops(made) and all(n.live for n in made)


def test_a_column_sum_of_an_input_is_not_summed_over_the_output_written_there(monkeypatch):
    # A layer norm's backward run sums its input's rows (the shift's
    # gradient: the matmul's cotangent, dead after the run). The loop adds a
    # row into the sums after writing the row's outputs, so its first output
    # does not go into that input's buffer. (The checked call writes into a
    # copy of a dead input as the live call would: a loop that read its own
    # output there is dropped, not taken live.)
    def f(x, w, g, b):
        return jnp.sum((layer_norm(x @ w, g, b) @ w.T) ** 2)

    x, w, g, b = arr(4, 128, 256), arr(256, 128, scale=1 / 16), arr(128), arr(128)
    grad = pyjax.grad(f, argnums=(0, 1, 2, 3))
    _, _, made = run_both(grad, x, w, g, b, monkeypatch=monkeypatch, calls=4)
    assert column_sum_loops(made) and all(n.live for n in made)


def gelu_matmul_grad(x, w):
    # The tanh GELU's forward run, a matmul, and back: reverse mode keeps
    # `1 - t`, `0.5 * (1 + t)`, `3 * x ** 2` and the like for the backward run.
    return pyjax.grad(lambda x, w: jnp.sum((pyjax.nn.gelu(x) @ w) ** 2), argnums=(0, 1))(x, w)


def test_cheap_residuals_are_recomputed_after_the_matmuls(monkeypatch):
    # interpreters/recompute.py: the backward run recomputes the cheap residuals from the
    # input and the tanh, which it reads anyway, so the forward loop stores
    # the GELU (the matmuls read it) and the tanh, not five arrays.
    x, w = arr(256, 512), arr(512, 128, scale=0.05)
    _, _, made = run_both(gelu_matmul_grad, x, w, monkeypatch=monkeypatch)
    assert len(made) == 2 and all(n.live for n in made)
    forward, backward = sorted(made, key=lambda n: len(n.in_specs))
    assert [shape for shape, _ in forward.out_specs] == [(256, 512)] * 2
    assert [shape for shape, _ in backward.in_specs] == [(256, 512)] * 3  # x, the tanh, the cotangent


@pytest.mark.parametrize("special", ["plain", "nan rows", "zero rows"])
def test_a_row_values_max_and_power_are_computed_in_line(special, monkeypatch):
    # A masked softmax's `max(row max, -inf)` and a `1 / sum ** 2` are one
    # value a row: C computes them in line (a NumPy kernel call on one element cost more than the
    # row's other work); a NaN goes to NumPy's kernel for its payload, and
    # zeros get XLA's order of signs either way.
    def f(s):
        m = jnp.maximum(jnp.max(s, axis=-1, keepdims=True), -jnp.inf)
        n = jnp.minimum(jnp.min(s, axis=-1, keepdims=True), 0.0)
        k = pyjax.lax.integer_pow(jnp.sum(s, axis=-1, keepdims=True), -3)  # (its products, and 1 / them)
        return jnp.exp(s - m) * n + k

    x = np.array(arr(512, 128, scale=2.0))
    if special == "nan rows":
        x[3, 5], x[70, :] = np.nan, -np.nan
    elif special == "zero rows":
        x[9, :], x[10, :] = -0.0, 0.0
    _, _, made = run_both(f, jnp.asarray(x), monkeypatch=monkeypatch)
    assert made and all(n.live for n in made)
    assert any("pj_a == pj_a" in n.source and "(1 / (pj_x * (pj_x * pj_x)))" in n.source for n in made)


def transformer_block_grad(p, x):
    # A pre-LN block as users write it (causal attention, tanh GELU), and its
    # gradient: layer norms, softmaxes, their gradients and the bias and
    # shift gradients' column sums all in row loops around the matmuls.
    def block(p, x):
        g1, b1, wqkv, wo, g2, b2, w1, c1, w2, c2 = p
        B, T, D = x.shape
        q, k, v = jnp.split(layer_norm(x, g1, b1) @ wqkv, 3, axis=-1)
        q, k, v = (t.reshape(B, T, 4, D // 4).transpose(0, 2, 1, 3) for t in (q, k, v))
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(jnp.float32(D // 4))
        a = pyjax.nn.softmax(jnp.where(jnp.tril(jnp.ones((T, T), dtype=bool)), s, -1e9), axis=-1)
        x = x + jnp.einsum("bhqk,bhkd->bhqd", a, v).transpose(0, 2, 1, 3).reshape(B, T, D) @ wo
        return x + pyjax.nn.gelu(layer_norm(x, g2, b2) @ w1 + c1) @ w2 + c2

    return pyjax.value_and_grad(lambda p, x: jnp.mean(block(p, x) ** 2))(p, x)


def test_a_transformer_blocks_gradient_runs_live_bitwise_on_every_call(monkeypatch):
    # Every call (the checked first one, then live ones) gives the Python
    # code's bits: a loop writing an output where it later reads an input
    # gave a wrong shift gradient on every live call (fixed; the checked
    # call now writes where the live one does).
    d = 128
    p = (arr(d), arr(d), arr(d, 3 * d, scale=d ** -0.5), arr(d, d, scale=d ** -0.5), arr(d), arr(d),
         arr(d, 4 * d, scale=d ** -0.5), arr(4 * d), arr(4 * d, d, scale=(4 * d) ** -0.5), arr(d))
    _, _, made = run_both(transformer_block_grad, p, arr(4, 128, d), monkeypatch=monkeypatch, calls=5)
    assert len(made) >= 8 and all(n.live for n in made)
    assert column_sum_loops(made)


def test_a_causal_mask_amid_the_scores_run_goes_before_it(monkeypatch):
    # The mask (iota, compare, select over one head's scores, then its
    # broadcast over batch and heads) reads nothing the run computes: it is
    # written before the region, and the scores' scaling joins the run
    # instead of a pass of its own.
    def f(q, k):
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k) * 0.125
        return pyjax.nn.softmax(jnp.where(jnp.tril(jnp.ones((128, 128), dtype=bool)), s, -1e9), axis=-1)

    q, k = arr(4, 4, 128, 32), arr(4, 4, 128, 32)
    text = pyjax.jit(f).lower(q, k).as_text("python")
    assert text.count("row-wise equations") == 1
    import re

    before = text[:re.search(r"_nrr\d+ = ", text).start()]
    assert "multiply" not in before and "iota" in before
    _, _, made = run_both(f, q, k, monkeypatch=monkeypatch)
    assert len(made) == 1 and made[0].live


def test_a_run_over_a_column_vector_compiles(monkeypatch):
    # Rows of one element: the kept row value's shape is the row's own
    # (its kinds collide), and the run's size comes from its shape.
    def f(x):
        return jnp.tanh(x * 2.0 + 1.0) * x - x * x

    run_both(f, arr(8192, 1), monkeypatch=monkeypatch)
