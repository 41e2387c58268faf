"""The linalg impls on one matrix (impls/linalg.py `_one_matrix`): the
LAPACK/BLAS results as the batch loop stores them (C order, fresh, the same
bits as the same matrix in a batch of one), without its allocations."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from pyjax._src.backends.numpy.impls import linalg as linalg_impl

rng = np.random.default_rng(11)


def _spd(n, dtype):
    a = rng.standard_normal((n, n)).astype(dtype)
    return (a @ a.T + n * np.eye(n, dtype=dtype)).astype(dtype)


CASES = {
    "cholesky": lambda x, dt: [linalg_impl._cholesky(x)],
    "trsm_left": lambda x, dt: [linalg_impl._triangular_solve(
        np.tril(x), np.ones(x.shape[:-1] + (3,), dt), left_side=True, lower=True, transpose_a=False,
        conjugate_a=False, unit_diagonal=False)],
    "trsm_right_t": lambda x, dt: [linalg_impl._triangular_solve(
        np.triu(x), np.ones(x.shape[:-2] + (2, x.shape[-1]), dt), left_side=False, lower=False, transpose_a=True,
        conjugate_a=False, unit_diagonal=True)],
    "eigh": lambda x, dt: linalg_impl._eigh(x, lower=True, sort_eigenvalues=True, subset_by_index=None,
                                            algorithm=None),
    "lu": lambda x, dt: linalg_impl._lu(x),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_matrix_has_the_batch_loops_bits(name, dtype, monkeypatch):
    x = _spd(6, dtype)
    taken = []
    real = linalg_impl._one_matrix
    monkeypatch.setattr(linalg_impl, "_one_matrix", lambda *a: taken.append(1) or real(*a))
    one = CASES[name](x, dtype)
    assert taken
    batched = CASES[name](x[None], dtype)
    for a, b in zip(one, batched, strict=True):
        a = np.asarray(a)
        assert a.flags.c_contiguous and a.dtype == b.dtype and a.shape == b.shape[1:]
        assert a.tobytes() == b[0].tobytes()


def test_one_matrix_never_returns_an_operand():
    # An empty matrix's Cholesky factor is the matrix itself in `one`.
    x = np.zeros((0, 0), np.float32)
    out = linalg_impl._cholesky(x)
    assert out.shape == (0, 0) and out is not x
    calls = []

    def echo(a, b):
        calls.append(1)
        return a, b[:, ::-1]

    a, b = np.ones((3, 3)), np.arange(6.0).reshape(3, 2)
    outs = linalg_impl._map_matrices(echo, [a, b], [2, 2], [(3, 3), (3, 2)], [np.float64, np.float64])
    assert calls and not any(np.may_share_memory(o, x) for o in outs for x in (a, b))
    assert outs[0].tobytes() == a.tobytes() and outs[1].tobytes() == np.ascontiguousarray(b[:, ::-1]).tobytes()


@pytest.mark.parametrize("workers", [2, 3])
@pytest.mark.parametrize("left_side,lower,transpose_a,unit", [
    (True, True, False, False), (True, False, True, True), (False, True, False, False), (False, False, True, False)])
def test_split_float32_solve_has_the_whole_bits(workers, left_side, lower, transpose_a, unit, monkeypatch):
    # Blocks of right-hand sides on the split pool against one trsm call.
    from pyjax._src.backends.numpy.parallel import split as split_lib

    n, free = 150, 301
    a = _spd(n, np.float32)
    a = np.tril(a) if lower else np.triu(a)
    b = rng.standard_normal((n, free) if left_side else (free, n)).astype(np.float32)

    def solve():
        return linalg_impl._triangular_solve(a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
                                             conjugate_a=False, unit_diagonal=unit)

    calls = []
    real_run_all = split_lib.run_all
    monkeypatch.setattr(split_lib, "run_all", lambda fns: (calls.append(len(fns)), real_run_all(fns)))
    monkeypatch.setitem(split_lib._state, "workers", workers)
    monkeypatch.setattr(split_lib, "MIN_FLOPS", 1)
    split = solve()
    assert calls == [workers]
    monkeypatch.setitem(split_lib._state, "workers", 1)
    whole = solve()
    assert calls == [workers]
    assert split.flags.c_contiguous and split.tobytes() == whole.tobytes()


def test_split_solve_blocks_call_strsm_without_the_gil(monkeypatch):
    # SciPy's f2py trsm holds the GIL for the whole solve, so the pool's
    # blocks ran one after the other; each block now calls the same strsm
    # through ctypes, which lets other threads run meanwhile.
    import threading

    from pyjax._src.backends.numpy.parallel import split as split_lib

    trsm = linalg_impl._strsm_without_gil()
    assert trsm is not None
    n, free = 800, 800  # (a few ms: longer than the counting thread takes to wake)
    a = np.asfortranarray(np.tril(_spd(n, np.float32)))
    progress, stop = [0], threading.Event()

    def count():
        while not stop.is_set():
            progress[0] += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        during = []
        for _ in range(5):
            b = np.asfortranarray(rng.standard_normal((n, free)).astype(np.float32))
            before = progress[0]
            trsm(b"L", b"L", b"N", b"N", ctypes.byref(ctypes.c_int(n)), ctypes.byref(ctypes.c_int(free)),
                 ctypes.byref(ctypes.c_float(1.0)), a.ctypes.data, ctypes.byref(ctypes.c_int(n)), b.ctypes.data,
                 ctypes.byref(ctypes.c_int(n)))
            during.append(progress[0] - before)
    finally:
        stop.set()
        counter.join()
    assert max(during) > 0
    # The split solve goes through it, with one call's bits.
    used = []
    monkeypatch.setattr(linalg_impl, "_strsm", [lambda *args: used.append(args[:4]) or trsm(*args)])
    monkeypatch.setitem(split_lib._state, "workers", 2)
    b = rng.standard_normal((n, free)).astype(np.float32)

    def solve():
        return linalg_impl._triangular_solve(a, b, left_side=True, lower=True, transpose_a=True,
                                             conjugate_a=False, unit_diagonal=False)

    split = solve()
    assert used == [(b"L", b"L", b"T", b"N")] * 2
    monkeypatch.setitem(split_lib._state, "workers", 1)
    assert split.tobytes() == solve().tobytes()


def test_one_matrix_outputs_are_distinct_buffers():
    def twice(a):
        fresh = a + 1.0
        return fresh, fresh

    outs = linalg_impl._map_matrices(twice, [np.ones((3, 3))], [2], [(3, 3), (3, 3)], [np.float64, np.float64])
    assert not np.may_share_memory(outs[0], outs[1])
    assert outs[0].tobytes() == outs[1].tobytes() == np.full((3, 3), 2.0).tobytes()
