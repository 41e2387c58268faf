"""The native tier (backends/numpy/native/) under a faulty compiler.

A `$CC` wrapper written here wraps the real compiler and (a) miscompiles
the generated program for some inputs only, (b) makes it write into its
inputs, or (c) hangs with a child process. In every case the results stay
the Python code's, inputs stay intact, the tier is dropped, no call waits
for more than a few seconds, and no compiler process outlives its build or
Python. Also: `$CC` with arguments, and `PYJAX_NATIVE_LOOPS_AFTER` values.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.native import build as native_build
from pyjax._src.backends.numpy.native import loop as native_loop
from pyjax._src.backends.numpy.native import settings as native_settings

pytestmark = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED,
                                reason="native code needs a C compiler")

needs_native_call = pytest.mark.skipif(native_build._headers() is None, reason="native_call.c needs Python's headers")

REAL_CC = native.compiler()

# The wrapper: a Python script standing in for the compiler. PJ_FAULT picks
# the fault; PJ_FAULT_OUT is the index in `a` of the program's first output
# (its inputs come first); PJ_PIDS a file it appends its own and its child's
# process ids to.
WRAPPER = textwrap.dedent("""\
    #!{python}
    import os, subprocess, sys, time
    fault, out = os.environ.get("PJ_FAULT", ""), os.environ.get("PJ_FAULT_OUT", "1")
    if fault == "hang":
        child = subprocess.Popen(["sleep", "600"])
        with open(os.environ["PJ_PIDS"], "a") as f:
            f.write(f"{{os.getpid()}} {{child.pid}}\\n")
        time.sleep(600)
    patches = {{
        # Wrong only where the first input's first element is negative, or NaN.
        "negative": "if (*(float *)a[0] < 0.0f) ((unsigned char *)a[OUT])[0] ^= 1;",
        "nan": "if (*(float *)a[0] != *(float *)a[0]) ((unsigned char *)a[OUT])[0] ^= 1;",
        # Right results, but the first input is overwritten (after use).
        "write": "*(float *)a[0] = 42.0f;",
    }}
    for arg in sys.argv[1:]:
        if fault in patches and arg.endswith(".c") and os.path.exists(arg):
            src = open(arg).read()
            head = "void pyjax_loop(char **a, void **k, char *s) {{"
            if head in src:
                src = src.replace(head, "static void pj_real(char **a, void **k, char *s) {{")
                src += ("\\nvoid pyjax_loop(char **a, void **k, char *s) {{ pj_real(a, k, s); "
                        + patches[fault].replace("OUT", out) + " }}\\n")
                open(arg, "w").write(src)
    os.execv({cc!r}, [{cc!r}, *sys.argv[1:]])
    """)


@pytest.fixture
def faulty_cc(tmp_path, monkeypatch):
    """Installs the wrapper as $CC with a fresh build cache; returns a
    function setting the fault (and the output's index)."""
    wrapper = tmp_path / "faulty-cc"
    wrapper.write_text(WRAPPER.format(python=sys.executable, cc=REAL_CC))
    wrapper.chmod(0o755)
    monkeypatch.setenv("CC", str(wrapper))
    monkeypatch.setenv("PJ_PIDS", str(tmp_path / "pids"))
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    monkeypatch.setattr(native_build, "_built", {})
    monkeypatch.setattr(native_build, "_build_locks", {}, raising=False)

    def fault(kind: str, out: int = 1):
        monkeypatch.setenv("PJ_FAULT", kind)
        monkeypatch.setenv("PJ_FAULT_OUT", str(out))

    fault.pids_file = tmp_path / "pids"
    return fault


def natives():
    return [o for o in gc.get_objects() if isinstance(o, native.NativeLoop)]


def made_by(run):
    held = natives()  # alive: an id alone could be reused by a new object
    before = {id(o) for o in held}
    result = run()
    return result, [o for o in natives() if id(o) not in before]


def python_result(f, *args, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        return np.asarray(pyjax.jit(f)(*args))


def bits(x) -> bytes:
    return np.asarray(x).tobytes()


def program(x, y):
    return jnp.tanh(x) * y + 1.0


def positive(seed=0, n=16):
    return np.random.default_rng(seed).uniform(0.5, 2.0, n).astype(np.float32)


def alive(pid: int) -> bool:
    # Running, or stopped; a zombie (exited, not yet reaped) is not alive.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def pids(path) -> list[int]:
    return [int(p) for line in path.read_text().split("\n") if line for p in line.split()] if path.exists() else []


# ---------------------------------------------------------------------------
# Wrong for some inputs only


@needs_native_call
def test_a_tier_wrong_for_negative_inputs_is_caught_by_a_recheck(faulty_cc, monkeypatch):
    # The checked call sees only positive inputs; call 2 is re-checked.
    faulty_cc("negative", out=2)
    f = pyjax.jit(lambda x, y: program(x, y))  # a new function: nothing cached
    y = positive(1)
    first, made = made_by(lambda: f(positive(), y))
    (tier,) = made
    assert tier.live, tier.failure  # the benign checked call passed
    x = -positive(2)
    got = f(x, y)  # call 2: re-checked
    assert bits(got) == bits(python_result(program, x, y, monkeypatch=monkeypatch))
    assert tier.dead and "re-checked" in tier.failure
    again = f(x, y)  # and Python's from now on
    assert bits(again) == bits(got)


@needs_native_call
def test_a_tier_wrong_for_nans_is_caught_on_the_first_nan(faulty_cc, monkeypatch):
    faulty_cc("nan", out=2)
    f = pyjax.jit(lambda x, y: program(x, y))  # a new function: nothing cached
    y = positive(1)
    _, (tier,) = made_by(lambda: f(positive(), y))
    assert tier.live, tier.failure
    f(positive(3), y)  # call 2: re-checked, agrees
    assert tier.live and tier.rechecks == 1
    x = positive(4)
    x[0] = np.nan
    got = f(x, y)  # call 3: not a power of two, but the first NaN
    assert bits(got) == bits(python_result(program, x, y, monkeypatch=monkeypatch))
    assert tier.dead and "re-checked" in tier.failure


@needs_native_call
def test_an_eager_programs_one_output_call_is_rechecked_too(faulty_cc, monkeypatch):
    # An eager jnp.sum tiers up to native_call's one-output callable: its
    # re-checks run the Python program, and its result is that program's.
    faulty_cc("negative", out=1)
    x = jnp.asarray(positive(5, n=37))  # a shape no other test sums: a new plan
    _, made = made_by(lambda: [jnp.sum(x) for _ in range(3)])
    tiers = [t for t in made if t.kind == "program"]
    assert tiers and all(t.live for t in tiers), [t.failure for t in tiers]
    neg = -positive(6, n=37)
    sums = [jnp.sum(jnp.asarray(neg)) for _ in range(6)]  # calls 4..9: call 4 and 8 re-checked
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        want = np.sum(neg, dtype=np.float32)
    assert all(t.dead for t in tiers)
    assert [bits(s) for s in sums[-2:]] == [bits(want)] * 2  # after the drop: the Python program's


@needs_native_call
def test_a_correct_tier_is_rechecked_on_powers_of_two_and_new_value_classes(monkeypatch):
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    f = pyjax.jit(lambda x, y: jnp.tanh(x) * y + 2.0)
    y = positive(1)
    _, (tier,) = made_by(lambda: f(positive(), y))
    for _ in range(7):  # calls 2..8
        f(positive(), y)
    assert tier.live and tier.rechecks == 3  # calls 2, 4, 8
    special = positive()
    special[:4] = [np.nan, np.inf, -0.0, 1e-40]
    want = python_result(lambda x, y: jnp.tanh(x) * y + 2.0, special, y, monkeypatch=monkeypatch)
    assert bits(f(special, y)) == bits(want)  # call 9: four new classes, one re-check
    assert bits(f(special, y)) == bits(want)  # call 10: none new
    assert tier.live and tier.rechecks == 4


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_value_classes_through_ctypes_match_native_call(dtype):
    x = np.array([1.0, np.nan, np.inf, -np.inf, 0.0, -0.0, np.finfo(dtype).smallest_subnormal], dtype)
    for i, bit in enumerate((0, 1, 2, 4, 8, 16, 32)):
        assert native_loop._value_classes([x[i:i + 1]], 0x3F) == bit
    assert native_loop._value_classes([x], 0x3F) == 0x3F
    assert native_loop._value_classes([x], 0x5) == 0x5
    assert native_loop._value_classes([np.array([0, 1], np.int32)], 0x3F) == 0


# ---------------------------------------------------------------------------
# Native code writing into its inputs


@needs_native_call
def test_a_tier_writing_its_inputs_is_dropped_and_inputs_stay_intact(faulty_cc, monkeypatch):
    faulty_cc("write")
    f = pyjax.jit(lambda x, y: program(x, y))  # a new function: nothing cached
    x, y = jnp.asarray(positive()), jnp.asarray(positive(1))
    before = bits(x)
    got, (tier,) = made_by(lambda: f(x, y))  # the checked call
    assert bits(x) == before  # the immutable Array is unchanged
    assert tier.dead and "wrote into its input 0" in tier.failure
    assert bits(got) == bits(python_result(program, positive(), positive(1), monkeypatch=monkeypatch))
    assert bits(f(x, y)) == bits(got) and bits(x) == before


# ---------------------------------------------------------------------------
# A hanging compiler


@needs_native_call
def test_a_hanging_compiler_is_killed_with_its_children(faulty_cc, monkeypatch):
    faulty_cc("hang")
    monkeypatch.setattr(native_build, "_BUILD_TIMEOUT_S", 3)
    f = pyjax.jit(lambda x, y: jnp.sin(x) * y - 3.0)
    x, y = positive(), positive(1)
    start = time.perf_counter()
    got, (tier,) = made_by(lambda: f(x, y))
    waited = time.perf_counter() - start
    assert waited < native_settings._FIRST_CALL_WAIT_S + 2.0
    want = python_result(lambda x, y: jnp.sin(x) * y - 3.0, x, y, monkeypatch=monkeypatch)
    assert bits(got) == bits(want)
    tier._thread.join(30)
    assert tier.dead and "killed" in tier.failure
    started = pids(faulty_cc.pids_file)
    assert started  # the wrapper ran, and started its child
    deadline = time.monotonic() + 5
    while any(map(alive, started)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(alive, started))
    assert bits(f(x, y)) == bits(want)


def test_first_calls_never_wait_long_and_no_compiler_outlives_python(tmp_path):
    # A fresh process (its native_call.c build hangs too) with the default
    # build timeout: the first call returns after at most the first-call
    # wait, and exiting Python kills the hanging compilers.
    wrapper = tmp_path / "faulty-cc"
    wrapper.write_text(WRAPPER.format(python=sys.executable, cc=REAL_CC))
    wrapper.chmod(0o755)
    script = textwrap.dedent("""\
        import time
        import numpy as np
        import pyjax, pyjax.numpy as jnp
        f = pyjax.jit(lambda x, y: jnp.tanh(x) * y + 1.0)
        x = np.ones(16, np.float32)
        start = time.perf_counter()
        f(x, x)
        f(x, x)
        print(f"{time.perf_counter() - start:.3f}")
        """)
    env = {**os.environ, "CC": str(wrapper), "PJ_FAULT": "hang", "PJ_PIDS": str(tmp_path / "pids"),
           "PYJAX_NATIVE_LOOPS_AFTER": "0", "JAX_PLATFORMS": "cpu"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout.split()[-1]) < native_settings._FIRST_CALL_WAIT_S + 3.0
    started = pids(tmp_path / "pids")
    assert started
    deadline = time.monotonic() + 5
    while any(map(alive, started)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(alive, started))


# ---------------------------------------------------------------------------
# $CC and PYJAX_NATIVE_LOOPS_AFTER


@needs_native_call
def test_cc_with_arguments_is_split_as_make_splits_it(monkeypatch):
    monkeypatch.setenv("CC", f"{REAL_CC} -O3 -DPJ_UNUSED=1")
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    monkeypatch.setattr(native_build, "_built", {})
    monkeypatch.setattr(native_build, "_build_locks", {}, raising=False)
    assert native.compiler_command() == [REAL_CC, "-O3", "-DPJ_UNUSED=1"]
    assert native.compiler() == REAL_CC and native.available()
    f = pyjax.jit(lambda x, y: jnp.cos(x) * y + 5.0)
    _, (tier,) = made_by(lambda: f(positive(), positive(1)))
    assert tier.live, tier.failure


def test_an_unusable_cc_turns_native_code_off(monkeypatch):
    monkeypatch.setenv("CC", "'unbalanced")
    assert native.compiler_command() is None and not native.available()
    monkeypatch.setenv("CC", "no-such-compiler-anywhere -O2")
    assert native.compiler() is None


@pytest.mark.parametrize(("value", "steps"), [("1e3", 1000), (" 0 ", 0), ("2.5", 3), ("20000", 20000), ("", 20000)])
def test_native_loops_after_takes_a_number_of_steps(value, steps):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert native_settings._after_steps(value) == steps


@pytest.mark.parametrize("value", ["many", "-1", "nan", "inf"])
def test_a_bad_native_loops_after_warns_and_keeps_the_default(value):
    with pytest.warns(RuntimeWarning, match="PYJAX_NATIVE_LOOPS_AFTER must be a non-negative number"):
        assert native_settings._after_steps(value) == native_settings._DEFAULT_AFTER_STEPS


def test_import_survives_any_native_loops_after():
    for value, want in (("1e3", "1000"), ("soon", "20000")):
        env = {**os.environ, "PYJAX_NATIVE_LOOPS_AFTER": value, "JAX_PLATFORMS": "cpu"}
        done = subprocess.run([sys.executable, "-c", "import pyjax; from pyjax._src.backends.numpy.native import settings as native_settings; "
                               "print(native_settings.AFTER_STEPS)"], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split()[-1] == want


@needs_native_call
def test_a_value_class_first_seen_late_is_still_rechecked_at_once(monkeypatch):
    # The watch for new IEEE value classes scans every live call's inputs:
    # a NaN or -0 first arriving at call 71 (no power-of-two re-check near)
    # gets that very call re-checked, not a later one (a sampled watch,
    # tried and withdrawn, would have returned calls 71-79 unchecked).
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    fn = lambda x, y: jnp.tanh(x) * y + 5.0  # noqa: E731 (a program no other test makes)
    f = pyjax.jit(fn)
    y = positive(1)
    _, (tier,) = made_by(lambda: f(positive(), y))
    for _ in range(69):  # calls 2..70
        f(positive(), y)
    assert tier.live and tier.rechecks == 6  # calls 2, 4, ..., 64
    special = positive()
    special[:2] = [np.nan, -0.0]
    want = python_result(lambda x, y: fn(x, y), special, y, monkeypatch=monkeypatch)
    assert bits(f(special, y)) == bits(want)  # call 71: two new classes
    assert tier.live and tier.rechecks == 7


# A row loop over 256 rows of 512 (512 KB of float32): large enough to scan
# its inputs' classes of value itself as it reads them (plans.py
# REPORT_MIN_BYTES), and it writes its output into the product, a dead input.
def softmax_of_product(a, b):
    return pyjax.nn.softmax(a @ b, axis=-1)


def product_operands(seed: int, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((256, 64)).astype(dtype), rng.standard_normal((64, 512)).astype(dtype) / 8


@needs_native_call
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_row_loop_reports_each_new_class_wherever_it_is_and_that_call_is_rechecked(dtype, monkeypatch):
    # Each call brings one class of value not seen before, at a block
    # boundary of the loop's scan (256 elements) or a row's end; each is
    # re-checked on that very call, after the loop ran, and returns the
    # Python code's bits.
    with pyjax.enable_x64(dtype == np.float64):
        _report_each_new_class(dtype, monkeypatch)


def _report_each_new_class(dtype, monkeypatch):
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    fn = lambda x: jnp.exp(x * 0.5) * 3.0 - jnp.sum(x, axis=-1, keepdims=True)  # noqa: E731
    f = pyjax.jit(fn)
    x = np.random.default_rng(0).standard_normal((256, 512)).astype(dtype) + 4
    _, (tier,) = made_by(lambda: f(x))
    assert tier.kind == "row loop" and tier.reports and tier.live, tier.failure
    assert {spec[1] for spec in tier.in_specs} == {np.dtype(dtype)}
    for _ in range(69):  # calls 2..70
        f(x)
    assert tier.live and tier.rechecks == 6  # calls 2, 4, ..., 64
    tiny = np.finfo(dtype).smallest_subnormal
    specials = [(0.0, (7, 300)), (np.nan, (0, 0)), (np.inf, (3, 255)), (-np.inf, (5, 256)), (-0.0, (255, 511)),
                (tiny, (100, 511))]
    for k, (value, at) in enumerate(specials):
        y = x.copy()
        y[at] = value
        want = python_result(fn, y, monkeypatch=monkeypatch)
        assert bits(f(y)) == bits(want), value
        assert tier.live and tier.rechecks == 7 + k, (value, at)
    for value, at in specials:
        y[at] = value
    assert bits(f(y)) == bits(python_result(fn, y, monkeypatch=monkeypatch))
    assert tier.rechecks == 12  # call 77: no class new


@needs_native_call
def test_a_row_loop_watching_for_new_classes_leaves_its_dead_input_intact(monkeypatch):
    # The loop may write its output into the product (dead after it); a call
    # whose NaN it reports is handed to the re-check after it ran, which
    # needs the product as it was: while it watches, the loop writes a
    # fresh output instead.
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    f = pyjax.jit(softmax_of_product)
    a, b = product_operands(1)
    _, (tier,) = made_by(lambda: f(a, b))
    assert tier.kind == "row loop" and tier.reports and tier.live, tier.failure
    for _ in range(4):  # calls 2..5
        f(a, b)
    a[9, 3] = np.nan
    want = python_result(softmax_of_product, a, b, monkeypatch=monkeypatch)
    assert bits(f(a, b)) == bits(want)  # call 6: the first NaN, re-checked
    assert tier.live and tier.rechecks == 3


@needs_native_call
def test_a_row_loop_wrong_for_nans_is_caught_on_the_first_nan(faulty_cc, monkeypatch):
    faulty_cc("nan", out=1)
    f = pyjax.jit(lambda a, b: softmax_of_product(a, b) * 1.0)  # a new function: nothing cached
    a, b = product_operands(2)
    _, (tier,) = made_by(lambda: f(a, b))
    assert tier.kind == "row loop" and tier.reports and tier.live, tier.failure
    f(*product_operands(3))  # call 2: re-checked, agrees
    assert tier.live and tier.rechecks == 1
    a[0, 0] = np.nan  # the product's first row: NaN
    got = f(a, b)  # call 3: not a power of two, but the first NaN
    assert bits(got) == bits(python_result(softmax_of_product, a, b, monkeypatch=monkeypatch))
    assert tier.dead and "re-checked" in tier.failure
