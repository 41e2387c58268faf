"""threefry2x32 in C (backends/numpy/native/threefry.py): the same bits as the NumPy
rounds (threefry.py), and through it every recorded JAX draw.

The kernel is built in the background at the first hash; these tests build
it at once and check it is the one hashing.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.native import settings as native_settings
from pyjax._src.backends.numpy.native import threefry as native_threefry
from pyjax._src.backends.numpy.native.tiering import COLD, DEAD, LIVE
from pyjax._src.random import threefry

pytestmark = pytest.mark.skipif(not native.available(), reason="the C hash needs a C compiler")

rng = np.random.default_rng(3)
_spec = importlib.util.spec_from_file_location("random_vectors_tests", Path(__file__).with_name("test_vectors.py"))
vectors = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vectors)


@pytest.fixture
def live_hash(monkeypatch):
    """The process's C hash, built now if it was not, counting its calls."""
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    kernel = native_threefry.native_hash
    if kernel.state == COLD:
        kernel.start(wait=True)
    assert kernel.state == LIVE, kernel.failure
    calls = []
    real = kernel.__call__

    def counted(*args):
        done = real(*args)
        calls.append(done)
        return done

    monkeypatch.setattr(threefry, "_hash_kernel", [counted])
    return calls


def numpy_rounds(k0, k1, x0, x1):
    with pytest.MonkeyPatch.context() as m:
        m.setattr(threefry, "_hash_kernel", [None])
        return threefry.threefry2x32_numpy(k0, k1, x0, x1)


def words(*shape):
    return rng.integers(0, 2**32, shape, dtype=np.uint32)


@pytest.mark.parametrize("keys", ["scalar", "arrays", "mixed"])
@pytest.mark.parametrize("size", [1, 7, 1031, 600_000])
def test_the_c_hash_gives_the_numpy_rounds_bits(keys, size, live_hash):
    x0, x1 = words(size), words(size)
    x0[:2] = [0xFFFFFFFF, 0x80000000][:size]
    k0 = words(size) if keys in ("arrays", "mixed") else words()
    k1 = words(size) if keys == "arrays" else words()
    got = threefry.threefry2x32_numpy(k0, k1, x0, x1)
    assert live_hash and all(live_hash)  # (600K words: one call a core)
    want = numpy_rounds(k0, k1, x0, x1)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == np.uint32 and np.array_equal(a, b)


def test_broadcast_operands(live_hash):
    k0, k1 = words(3, 1), words(1, 5)
    x0, x1 = words(1, 5), words(3, 5)
    got = threefry.threefry2x32_numpy(k0, k1, x0, x1)
    assert live_hash
    want = numpy_rounds(k0, k1, x0, x1)
    assert all(np.array_equal(a, b) and a.shape == (3, 5) for a, b in zip(got, want, strict=True))


@pytest.mark.parametrize("name", sorted(vectors.CASES))
def test_every_recorded_jax_draw_through_the_c_hash(name, live_hash):
    vectors.test_matches_jax(name)
    assert all(live_hash)


def test_a_hash_that_differs_is_never_used(monkeypatch):
    # A wrong rotation builds fine but fails the check against the NumPy
    # rounds: the kernel stays dead and hashing falls back to NumPy.
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    monkeypatch.setattr(native_threefry, "_HASH_SOURCE", native_threefry._HASH_SOURCE.replace("PJ_ROUND(13)", "PJ_ROUND(12)"))
    kernel = native_threefry.NativeHash()
    x0, x1 = words(64), words(64)
    assert kernel((np.uint32(1), np.uint32(2)), x0, x1, 0, 64) is False
    assert kernel.state == DEAD and "differ" in kernel.failure
    monkeypatch.setattr(threefry, "_hash_kernel", [kernel])
    got = threefry.threefry2x32_numpy(np.uint32(1), np.uint32(2), x0, x1)
    want = numpy_rounds(np.uint32(1), np.uint32(2), x0, x1)
    assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))


def test_without_native_code_the_numpy_rounds_run(monkeypatch):
    monkeypatch.setattr(native_settings, "ENABLED", False)
    kernel = native_threefry.NativeHash()
    assert kernel((np.uint32(1), np.uint32(2)), words(4), words(4), 0, 4) is False
    assert kernel.state == DEAD
