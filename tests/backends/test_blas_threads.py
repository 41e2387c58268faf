"""BLAS's thread count is limited inside pyjax's computations only
(backends/numpy/parallel/blas.py, fpenv.py): importing pyjax leaves the user's NumPy
and SciPy as they were, and every call restores the caller's count."""

import json
import os
import subprocess
import sys

import pytest

_CODE = """
import json, sys, numpy, threadpoolctl
threads = lambda: [i["num_threads"] for i in threadpoolctl.threadpool_info()
                   if i["internal_api"] == "openblas" and i["threading_layer"] != "openmp"]
before = threads()
import pyjax, pyjax.numpy as jnp
after_import = threads()
if sys.argv[1] == "c":  # bind native_call.c's flushed_call, as the first native build does
    from pyjax._src.backends.numpy import fpenv, native
    from pyjax._src.backends.numpy.native import build as native_build
    assert native_build._native_call_type() is not None
    assert fpenv.run.__name__ == "flushed_call"
seen = []
def inside(x):
    seen.append(threads())
    return x
def program(x):
    y = pyjax.pure_callback(inside, pyjax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return y @ y
x = jnp.ones((4, 4))
pyjax.jit(program)(x).block_until_ready()
after_call = threads()
threadpoolctl.threadpool_limits(2, user_api="blas")  # the user's own setting, between calls
mine = threads()
pyjax.jit(program)(x).block_until_ready()
jnp.dot(x, x).block_until_ready()
print(json.dumps(dict(before=before, after_import=after_import, inside=seen, after_call=after_call,
                      mine=mine, after_second=threads())))
"""


def _run(env_value, path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYJAX_BLAS_THREADS", "OPENBLAS_NUM_THREADS")}
    if env_value is not None:
        env["PYJAX_BLAS_THREADS"] = env_value
    out = subprocess.run([sys.executable, "-c", _CODE, path], capture_output=True, text=True, env=env, timeout=180)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _has_openblas():
    import numpy  # noqa: F401
    import threadpoolctl

    return any(i["internal_api"] == "openblas" and i["threading_layer"] != "openmp"
               for i in threadpoolctl.threadpool_info())


pytestmark = pytest.mark.skipif(not _has_openblas(), reason="NumPy's BLAS here is not a pthreads OpenBLAS")


@pytest.mark.parametrize("path", ["ctypes", "c"])
def test_limited_inside_calls_only(path):
    r = _run(None, path)
    # Import changes nothing (SciPy's OpenBLAS, which pyjax loads, keeps its default).
    assert r["before"] and r["after_import"][:len(r["before"])] == r["before"]
    assert set(r["after_import"]) == set(r["before"])
    assert r["inside"] and all(set(t) == {1} for t in r["inside"])  # one thread inside a computation
    assert r["after_call"] == r["after_import"]  # and the caller's count is back afterwards
    assert r["mine"] and set(r["mine"]) == {2}
    assert r["after_second"] == r["mine"]  # the user's own later setting is respected too


@pytest.mark.parametrize("path", ["ctypes", "c"])
def test_a_number_of_threads(path):
    r = _run("3", path)
    assert all(set(t) == {3} for t in r["inside"])
    assert r["after_call"] == r["after_import"]


def test_default_leaves_blas_alone():
    r = _run("default", "ctypes")
    assert r["inside"][0] == r["after_import"]
    assert r["inside"][1] == r["mine"]


@pytest.mark.parametrize("bad", ["zero", "0"])
def test_bad_setting_is_an_error(bad):
    # (raised where the backend loads, the first computation, and again by
    # the next: the failed load wired nothing)
    env = {**os.environ, "PYJAX_BLAS_THREADS": bad}
    code = """
import pyjax.numpy as jnp
from pyjax._src import dispatch
for _ in range(2):
    try:
        jnp.ones(2) + 1
    except ValueError as e:
        print(e, dispatch.fp_mode is dispatch._PlainMode)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert len(lines) == 2 and all("PYJAX_BLAS_THREADS must be" in line and line.endswith("True") for line in lines)


def test_eager_calls_alone_bind_the_c_way():
    # fpenv's faster way (native_call.c's flushed_call) is built after
    # WARM_CALLS eager operations even when no native tier ever builds.
    code = """
import time, pyjax.numpy as jnp
from pyjax._src.backends.numpy import fpenv, native
from pyjax._src.backends.numpy.native import build as native_build
if native.available() and native_build._headers() is not None:
    x = jnp.ones(3)
    for _ in range(fpenv.WARM_CALLS + 1):
        x = x + 1.0
    deadline = time.time() + 60
    while fpenv.run.__name__ != "flushed_call" and time.time() < deadline:
        time.sleep(0.05)
    print(fpenv.run.__name__, float(x[0]))
else:
    print("no compiler")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    if out.stdout.strip() == "no compiler":
        pytest.skip("no C compiler or Python headers here")
    assert out.stdout.split() == ["flushed_call", "1002.0"]


_CODE_SCIPY = """
import json, sys, numpy, threadpoolctl
import pyjax, pyjax.numpy as jnp
assert "scipy.linalg" not in sys.modules
threads = lambda: {i["filepath"]: i["num_threads"] for i in threadpoolctl.threadpool_info()
                   if i["internal_api"] == "openblas" and i["threading_layer"] != "openmp"}
seen = []
def inside(x):
    seen.append(threads())
    return x
def program(x):
    return pyjax.pure_callback(inside, pyjax.ShapeDtypeStruct(x.shape, x.dtype), jnp.linalg.cholesky(x))
x = 2 * jnp.eye(4)
f = pyjax.jit(program)
f(x).block_until_ready()  # loads SciPy's LAPACK (and its OpenBLAS) in the call
after_first = threads()
f(x).block_until_ready()
print(json.dumps(dict(inside=seen, after_first=after_first, after_second=threads())))
"""


def test_scipy_blas_loaded_on_first_use_is_limited_too():
    # SciPy (and its own OpenBLAS) is imported at its first use, after pyjax:
    # its thread count is limited inside later computations and restored after,
    # and inside the call that loaded it too (OpenBLAS's LAPACK sums depend on
    # its threads: a first call would give other bits than the later ones).
    env = {k: v for k, v in os.environ.items() if k not in ("PYJAX_BLAS_THREADS", "OPENBLAS_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", _CODE_SCIPY], capture_output=True, text=True, env=env, timeout=180)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert len(r["inside"]) == 2
    assert set(r["inside"][0]) == set(r["after_first"]) and set(r["inside"][0].values()) == {1}
    assert set(r["inside"][1]) == set(r["after_first"])
    assert set(r["inside"][1].values()) == {1}
    assert r["after_second"] == r["after_first"]
