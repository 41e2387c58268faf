"""Shared test helpers: typed comparisons and the per-primitive oracles.

check_close compares shape, then dtype, then values, so a failure says which
one is wrong. check_impl_matches_abstract_eval runs a primitive eagerly and
checks the result against the aval abstract evaluation promised.
check_jit_matches_eager runs a function both ways.
"""

from __future__ import annotations

import numpy as np

import pyjax
from pyjax._src import core

TOLERANCES = {
    np.dtype(np.float16): (1e-2, 1e-2),
    np.dtype(np.float32): (2e-6, 1e-6),
    np.dtype(np.float64): (1e-12, 1e-13),
    np.dtype(np.complex64): (2e-6, 1e-6),
    np.dtype(np.complex128): (1e-12, 1e-13),
}


def tolerance(dtype, rtol=None, atol=None):
    default_rtol, default_atol = TOLERANCES.get(np.dtype(dtype), (0, 0))
    if str(np.dtype(dtype)) == "bfloat16":
        default_rtol, default_atol = 2e-2, 2e-2
    return (default_rtol if rtol is None else rtol), (default_atol if atol is None else atol)


def check_close(actual, expected, *, dtype=None, rtol=None, atol=None, err_msg: str = ""):
    """Asserts shape, then dtype (when given or when `expected` has one), then values."""
    actual_np = np.asarray(actual)
    expected_np = np.asarray(expected)
    assert actual_np.shape == expected_np.shape, f"{err_msg} shape {actual_np.shape} != {expected_np.shape}"
    want_dtype = np.dtype(dtype) if dtype is not None else expected_np.dtype
    assert actual_np.dtype == want_dtype, f"{err_msg} dtype {actual_np.dtype} != {want_dtype}"
    r, a = tolerance(want_dtype, rtol, atol)
    if actual_np.dtype.kind in "biu" or (r == 0 and a == 0):
        np.testing.assert_array_equal(actual_np, expected_np, err_msg=err_msg)
    else:
        np.testing.assert_allclose(actual_np.astype(np.float64) if actual_np.dtype.kind != "c" else actual_np,
                                   expected_np.astype(actual_np.dtype), rtol=r, atol=a, err_msg=err_msg)


def check_impl_matches_abstract_eval(primitive, *args, **params):
    """Eagerly binds `primitive` and checks the result's NumPy shape/dtype
    against the aval abstract evaluation gives."""
    avals = tuple(core.get_aval(a) for a in args)
    expected = primitive.out_avals(avals, params)
    out = primitive.bind(*args, **params)
    outs = out if primitive.multiple_results else [out]
    expected = expected if primitive.multiple_results else [expected]
    for o, aval in zip(outs, expected, strict=True):
        value = np.asarray(o)
        assert value.shape == aval.shape, f"{primitive}: impl shape {value.shape} != abstract {aval.shape}"
        assert value.dtype == aval.dtype, f"{primitive}: impl dtype {value.dtype} != abstract {aval.dtype}"
    return out


def check_jit_matches_eager(fun, *args, rtol=None, atol=None):
    """fun(*args) eagerly and under jit give the same shapes, dtypes and values."""
    eager = fun(*args)
    jitted = pyjax.jit(fun)(*args)
    eager_leaves = pyjax.tree_util.tree_leaves(eager)
    jit_leaves = pyjax.tree_util.tree_leaves(jitted)
    assert len(eager_leaves) == len(jit_leaves)
    for e, j in zip(eager_leaves, jit_leaves, strict=True):
        check_close(j, e, rtol=rtol, atol=atol)
        assert core.get_aval(j).weak_type == core.get_aval(e).weak_type
    return eager


# --- bit-exact recordings (tests/golden/record_<name>.py + <name>.json)

GOLDEN = __import__("pathlib").Path(__file__).resolve().parent / "golden"


def load_recording(name: str):
    """The recording script tests/golden/record_<name>.py as a module (its
    CASES, inputs and runner) and the cases it recorded in <name>.json."""
    import importlib.util
    import json
    import sys

    spec = importlib.util.spec_from_file_location(f"record_{name}", GOLDEN / f"record_{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    recorded = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))["cases"]
    return module, recorded


def recorded_bits(case: dict) -> np.ndarray:
    """A recorded case's array, rebuilt from its bit pattern."""
    import ml_dtypes

    dtype = np.dtype(ml_dtypes.bfloat16) if case["dtype"] == "bfloat16" else np.dtype(case["dtype"])
    return np.array(case["bits"], dtype=f"u{dtype.itemsize}").view(dtype).reshape(case["shape"])


def run_recorded(record, expr: str, x64: bool):
    """A recorded case's expression evaluated under pyjax, in the x64 mode
    it was recorded in (the recording script's own runner)."""
    with pyjax.enable_x64(x64):
        return record.run(expr, pyjax, pyjax.numpy, np)


def assert_same_bits(name: str, actual, expected) -> None:
    """Same dtype, shape and bytes as a recorded case."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (
        f"{name}: pyjax {actual.dtype}{list(actual.shape)}, jax {expected.dtype}{list(expected.shape)}")
    assert actual.tobytes() == expected.tobytes(), f"{name}:\n  pyjax {actual!r}\n  jax   {expected!r}"


def native_tiers_made(run, kind=None):
    """`run()`'s result and the native tiers (NativeLoop objects, of `kind`
    if given) it made. The tiers alive before are held during the call: an
    id alone could be reused by a new tier once an old one is freed, and
    the new tier would then be taken for an old one."""
    import gc

    from pyjax._src.backends.numpy import native

    def alive():
        return [o for o in gc.get_objects() if isinstance(o, native.NativeLoop) and (kind is None or o.kind == kind)]

    held = alive()
    before = {id(o) for o in held}
    result = run()
    return result, [o for o in alive() if id(o) not in before]
