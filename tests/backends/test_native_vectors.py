"""The vector paths of native code (backends/numpy/native/): float add,
subtract, multiply and divide, and a float max, min or sum over a row,
computed in line instead of by a call of NumPy's kernel.

Their results must be NumPy's bit for bit, special values included: a NaN
anywhere in a result, or a max or min of zero, hands the row to NumPy's
kernel. Each case makes the native tier live on ordinary values (its checked
call), then feeds it the special values and compares with the Python code.
"""

from __future__ import annotations

import gc
import platform

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.native import build as native_build
from pyjax._src.backends.numpy.native import csource as native_csource
from pyjax._src.backends.numpy.native import settings as native_settings
from pyjax._src.backends.numpy.native import tiering as native_tiering
from pyjax._src.backends.numpy.native import vectors as native_vectors

pytestmark = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED,
                                reason="native code needs a C compiler")

rng = np.random.default_rng(5)


@pytest.fixture
def eager_tier(monkeypatch):
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)


def natives():
    return [o for o in gc.get_objects() if isinstance(o, native.NativeLoop)]


def rows_body(xs, ys):
    # Every vector path: both operand layouts of each op, scalar-scalar ops,
    # and the three row reductions.
    def body(c, xy):
        x, y = xy
        m = jnp.max(x)
        s = jnp.sum(x)
        ops = (x * y, x - y, x / y, x + y, x * 2.5, 0.5 - x, 3.0 / y, x - m, x / s)
        # An op and the max or min of its result: one pass.
        scaled = x * 0.125
        shifted = y - x
        fused = (scaled, jnp.max(scaled), shifted, jnp.min(shifted))
        return c, (*ops, m, jnp.min(y), s, 1.0 / s, m * s, *fused)
    return lax.scan(body, 0.0, (xs, ys))[1]


def special_rows(n: int, dtype) -> tuple[np.ndarray, np.ndarray]:
    info = np.finfo(dtype)
    xs = (rng.standard_normal((12, n)) * 100).astype(dtype)
    ys = (rng.standard_normal((12, n)) * 100).astype(dtype)
    xs[0, n // 3] = np.nan                          # NumPy's NaN (sign bit clear)
    ys[0, n // 2] = -np.float64(np.nan)             # a NaN with the sign bit set
    xs[1, :] = 0.0
    xs[1, ::2] = -0.0                               # max and min of mixed zeros
    ys[1, :] = -0.0
    xs[2, :] = -0.0                                 # a sum of negative zeros
    ys[2, 1::3] = 0.0                               # 0/0 and x/0
    xs[3, 0], xs[3, -1] = np.inf, -np.inf           # inf - inf: a NaN sum
    xs[4, :] = info.max                             # overflow to inf
    ys[4, :] = info.tiny / 4                        # subnormals
    xs[5, :] = -np.inf
    xs[6, :] = np.nan
    ys[6, ::2] = -np.float64(np.nan)                # NaN op NaN of both signs
    xs[7, :] = info.tiny * np.arange(n)             # subnormal sums
    xs[8, :] = np.where(np.arange(n) % 2, 1e-3, -1e-3) * np.arange(n)
    return xs, ys


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [7, 37, 512, 1003])
def test_special_values_take_numpys_bits(n, dtype, eager_tier, monkeypatch):
    with pyjax.enable_x64(dtype == np.float64):
        check_special_values(n, dtype, monkeypatch)


def check_special_values(n, dtype, monkeypatch):
    ordinary = [jnp.asarray(rng.standard_normal((12, n)).astype(dtype)) for _ in range(2)]
    special = [jnp.asarray(a) for a in special_rows(n, dtype)]
    held = natives()  # alive: an id alone could be reused by a new object
    before = {id(o) for o in held}
    jf = pyjax.jit(lambda xs, ys: rows_body(xs, ys))
    jf(*ordinary)  # the checked call
    made = [o for o in natives() if id(o) not in before]
    assert [m.state for m in made] == [native_tiering.LIVE], [m.failure for m in made]
    assert made[0].in_specs[-1][1] == dtype
    if n >= 16:
        for helper in ("pj_mul_", "pj_sub_", "pj_div_", "pj_add_", "pj_max_", "pj_min_", "pj_sum_",
                       "pj_mul_{0}_vs_max(", "pj_sub_{0}_vv_min("):
            helper = helper.format(native_vectors._VECTOR_TYPES[np.dtype(dtype)][1])
            assert helper in made[0].source
    with np.errstate(all="ignore"):
        got = jf(*special)
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        with np.errstate(all="ignore"):
            want = pyjax.jit(lambda xs, ys: rows_body(xs, ys))(*special)
    assert made[0].state == native_tiering.LIVE
    for a, b in zip(got, want, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()


def wide_vectors() -> bool:
    # Whether this machine's native builds get the vector paths (x86 with
    # AVX2, or ARM): a probe library built like the code is.
    src = native_csource._Source()
    native_vectors._vector_reduction(src, np.maximum, np.dtype(np.float32))
    source = "\n".join(["#include <stdint.h>", "#include <string.h>", native_vectors._VECTOR_PRELUDE,
                         "int pyjax_wide(void) {", "#ifdef PJ_VEC", "return 1;", "#else", "return 0;", "#endif", "}",
                         ""])
    return bool(native_build._build(source).pyjax_wide())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_pairwise_sum_is_numpys(dtype, monkeypatch):
    # The in-line sum replays NumPy's pairwise order, checked against NumPy's
    # kernel once per process; a sum in another order fails the check (and
    # then every row sum calls NumPy's kernel).
    monkeypatch.setattr(native_vectors, "_pairwise_checked", {})
    src = native_csource._Source()
    native_vectors._vector_reduction(src, np.add, np.dtype(dtype))
    suffix = native_vectors._VECTOR_TYPES[np.dtype(dtype)][1]
    source = "\n".join(["#include <stdint.h>", "#include <string.h>", native_vectors._VECTOR_PRELUDE,
                         *src.helpers.values(), ""])
    native_vectors._enable_sums(native_build._build(source), source)
    assert native_vectors._pairwise_checked[np.dtype(dtype)] is True
    monkeypatch.setattr(native_vectors, "_pairwise_checked", {})
    other = source.replace("half -= half % 8;", "half -= half % 4;")
    native_vectors._enable_sums(native_build._build(other), other)
    assert native_vectors._pairwise_checked[np.dtype(dtype)] is False
    assert f"pyjax_sums_agree_{suffix}" in source


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_cut_into_equal_blocks_sum_them_side_by_side_in_numpys_order(dtype, monkeypatch):
    # Rows of 136 to 512 that NumPy sums as two or four blocks of at most
    # 128 (attention's 512) add the blocks in interleaved chains; the check
    # against NumPy's kernel covers those lengths: folding the blocks in
    # another order fails it.
    monkeypatch.setattr(native_vectors, "_pairwise_checked", {})
    src = native_csource._Source()
    native_vectors._vector_reduction(src, np.add, np.dtype(dtype))
    suffix = native_vectors._VECTOR_TYPES[np.dtype(dtype)][1]
    source = "\n".join(["#include <stdint.h>", "#include <string.h>", native_vectors._VECTOR_PRELUDE,
                         *src.helpers.values(), ""])
    assert f"return pj_psum_blocks_{suffix}(x, n, n > 256 ? 4 : 2);" in source
    for length in (144, 256, 384, 512):
        assert f" {length}," in source  # (a length the check sums)
    native_vectors._enable_sums(native_build._build(source), source)
    assert native_vectors._pairwise_checked[np.dtype(dtype)] is True
    monkeypatch.setattr(native_vectors, "_pairwise_checked", {})
    fold = f"pj_fold_{suffix}(r[0]) + pj_fold_{suffix}(r[1]);"
    other = source.replace(fold, f"pj_fold_{suffix}(r[0] + r[1]);")
    assert other != source
    native_vectors._enable_sums(native_build._build(other), other)
    assert native_vectors._pairwise_checked[np.dtype(dtype)] is False


def test_vector_paths_are_used_where_the_machine_has_wide_vectors():
    assert wide_vectors() == (platform.machine().lower() in ("aarch64", "arm64") or "avx2" in cpu_flags())


def cpu_flags() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return f.read()
    except OSError:
        return ""


def test_in_place_and_mixed_dtype_ops_keep_the_kernel():
    src = native_csource._Source()
    out = native_csource._View("(s + 0)", (64,), (4,), np.float32)
    x = native_csource._View("a[0]", (64,), (4,), np.float32)
    strided = native_csource._View("a[1]", (64,), (8,), np.float32)
    wide = native_csource._View("a[2]", (64,), (8,), np.float64)
    assert native_vectors._vector_binary(src, np.multiply, [x, out], out) is None  # reads what it writes
    assert native_vectors._vector_binary(src, np.multiply, [x, strided], out) is None
    assert native_vectors._vector_binary(src, np.multiply, [x, wide], out) is None
    assert native_vectors._vector_binary(src, np.maximum, [x, x], out) is None  # no vector path
    assert native_vectors._vector_binary(src, np.multiply, [x, x], out) == "pj_mul_f32_vv((s + 0), a[0], a[0], 64)"


def test_a_compiler_refusing_march_native_builds_without_it(tmp_path, eager_tier, monkeypatch):
    # The kernels serve then (no wide vectors): the tier still goes live.
    real = native.compiler()
    wrapper = tmp_path / "cc"
    wrapper.write_text("#!/bin/sh\n"
                       "for arg in \"$@\"; do case \"$arg\" in -march=*) "
                       "echo \"cc: error: unrecognized command-line option '$arg'\" >&2; exit 1;; esac; done\n"
                       f"exec {real} \"$@\"\n")
    wrapper.chmod(0o755)
    monkeypatch.setenv("CC", str(wrapper))
    monkeypatch.setattr(native_build, "_arch_refused", set())
    monkeypatch.setattr(native_build, "_built", {})
    xs = jnp.asarray(rng.standard_normal((12, 64)).astype(np.float32))
    held = natives()  # alive: an id alone could be reused by a new object
    before = {id(o) for o in held}
    jf = pyjax.jit(lambda xs: rows_body(xs, xs * 2.0))
    jf(xs)  # the checked call
    got = jf(xs)  # native
    made = [o for o in natives() if id(o) not in before]
    assert [m.state for m in made] == [native_tiering.LIVE], [m.failure for m in made]
    assert native_build._arch_refused == {str(wrapper)}
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        want = pyjax.jit(lambda xs: rows_body(xs, xs * 2.0))(xs)
    assert all(np.asarray(a).tobytes() == np.asarray(b).tobytes() for a, b in zip(got, want, strict=True))


def test_a_compiler_refusing_the_vector_cost_model_builds_without_it(tmp_path, eager_tier, monkeypatch):
    # Short sources ask GCC for its dynamic vector cost model; a compiler
    # that does not know the flag builds them without it, and remembers.
    real = native.compiler()
    wrapper = tmp_path / "cc"
    wrapper.write_text("#!/bin/sh\n"
                       "for arg in \"$@\"; do case \"$arg\" in -fvect-cost-model=*) "
                       "echo \"cc: error: unknown argument: '$arg'\" >&2; exit 1;; esac; done\n"
                       f"exec {real} \"$@\"\n")
    wrapper.chmod(0o755)
    monkeypatch.setenv("CC", str(wrapper))
    monkeypatch.setattr(native_build, "_vector_refused", set())
    monkeypatch.setattr(native_build, "_built", {})
    xs = jnp.asarray(rng.standard_normal((12, 64)).astype(np.float32))
    held = natives()  # alive: an id alone could be reused by a new object
    before = {id(o) for o in held}
    # (a short row loop: the flag is asked for sources under _VECTOR_MAX_LINES)
    jf = pyjax.jit(lambda xs: lax.scan(lambda c, x: (c, (x * 3.0 - jnp.max(x), jnp.sum(x))), 0.0, xs)[1])
    jf(xs)  # the checked call
    made = [o for o in natives() if id(o) not in before]
    assert made and all(m.state == native_tiering.LIVE for m in made), [m.failure for m in made]
    assert "-fvect-cost-model=dynamic" in native_build.opt_level(made[0].source)
    assert native_build._vector_refused == {str(wrapper)}


def test_a_row_written_in_place_over_its_operand_keeps_numpys_bits_with_nans(eager_tier, monkeypatch):
    # The row loop writes its output into the matmul's dead buffer, and the
    # last op reads that very row: a vector pass meeting a NaN must not have
    # overwritten what NumPy's kernel then reads (here it would subtract twice).
    def f(a, b, c):
        return a @ b - jnp.max(c, axis=-1, keepdims=True)

    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in ((256, 64), (64, 512), (256, 512)))
    jf = pyjax.jit(f)
    assert ".run(c, d, d)" in jf.lower(a, b, c).as_text("python")  # the output buffer is the matmul's
    held = natives()
    before = {id(o) for o in held}
    jf(a, b, c)  # the checked call
    made = [o for o in natives() if id(o) not in before]
    assert made and all(m.kind == "row loop" and m.live for m in made)
    b[:, 7] = np.nan
    got = np.asarray(jf(a, b, c))
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        want = np.asarray(pyjax.jit(lambda a, b, c: f(a, b, c))(a, b, c))
    assert all(m.live for m in made) and got.tobytes() == want.tobytes()
