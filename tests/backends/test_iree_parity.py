"""Parity of the IREE backend with the NumPy backend over the recorded
StableHLO programs (tests/golden/stablehlo_programs.py: every lowered
primitive family, control flow, autodiff, vmap, random): each program's
function is jitted on both backends with its recorded inputs, and IREE's
results must equal NumPy's (floating point within a tolerance: IREE fuses
and reorders arithmetic).

Where IREE's compiler or runtime computes something else, the program is
listed in KNOWN_DIFFERENCES with what differs; where pyjax cannot lower the
program, it must raise the backend's error naming the primitive.

Needs the `[iree]` extra (iree-base-compiler, iree-base-runtime).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import dtypes
from pyjax._src.backends import iree as iree_backend

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"
sys.path.insert(0, str(GOLDEN_DIR))

import stablehlo_programs  # noqa: E402

pytestmark = pytest.mark.skipif(not iree_backend.available(),
                                reason="IREE is not installed (pip install -e '.[iree]': iree-base-compiler, "
                                       "iree-base-runtime)")

# program -> what IREE computes differently (the test checks the difference is still there).
KNOWN_DIFFERENCES = {
    # CHLO's digamma expansion in IREE returns -inf at 0 where XLA (and the NumPy backend) return nan.
    "lgamma_digamma": "digamma(0)",
}
# program -> the primitive the IREE backend must name (pyjax lowers it for some parameters only).
# (IREE: no token values, no stateful rng; its select_and_scatter breaks ties unlike XLA)
UNSUPPORTED: dict[str, str] = {"tokens": "create_token", "rng_uniform": "rng_uniform",
                               "select_and_scatter": "select_and_scatter"}
# Inputs the recorded program only lowers and never runs: run ones that terminate.
INPUTS = {"while_batched_pred": ("jnp.arange(5.0", "1 + jnp.arange(5.0")}

_CALL = re.compile(r"result = jax\.jit\(f(.*?)\)\.lower\((.*)\)\.as_text\(debug_info=False\)$")


def _run(program, backend: str):
    """The program's function jitted for `backend` and called on its inputs."""
    head, last = program.source.rstrip("\n").rsplit("\n", 1)
    found = _CALL.match(last)
    assert found, last
    options, call = found.groups()
    if program.name in INPUTS:
        call = call.replace(*INPUTS[program.name])
    namespace = {"jax": pyjax, "jnp": jnp, "lax": lax, "np": np}
    exec(f"{head}\nresult = jax.jit(f{options}, backend={backend!r})({call})", namespace)
    return pyjax.tree_util.tree_leaves(namespace["result"])


def _host(x) -> np.ndarray:
    if isinstance(x.aval.dtype, dtypes.ExtendedDType):
        return np.asarray(pyjax.random.key_data(x))
    # (The aval's dtype: the NumPy backend's buffer of a bf16 dot with
    # precision=HIGHEST is float32, a NumPy backend quirk this test does not judge.)
    return np.asarray(x).astype(x.aval.dtype, copy=False)


def _compare(want: list, got: list) -> None:
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert g.aval == w.aval
        g_host = np.asarray(g) if not isinstance(g.aval.dtype, dtypes.ExtendedDType) else None
        if g_host is not None:
            assert g_host.dtype == g.aval.dtype, (g_host.dtype, g.aval)  # IREE's buffer has the aval's dtype
        w, g = _host(w), _host(g)
        if w.dtype.kind in "fcV" or w.dtype == dtypes.bfloat16:
            wide = np.complex128 if w.dtype.kind == "c" else np.float64
            rtol = 1e-2 if w.dtype.itemsize <= 2 else 2e-5
            np.testing.assert_allclose(g.astype(wide), w.astype(wide), rtol=rtol, atol=1e-6, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)


PROGRAMS = [p for p in stablehlo_programs.PROGRAMS]


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_iree_computes_what_the_numpy_backend_computes(program):
    want = _run(program, "cpu")
    if program.name in UNSUPPORTED:
        with pytest.raises(iree_backend.IreeUnsupportedError, match=f"primitive '{UNSUPPORTED[program.name]}'"):
            _run(program, "iree")
        return
    got = _run(program, "iree")
    if program.name in KNOWN_DIFFERENCES:
        with pytest.raises(AssertionError):
            _compare(want, got)
        return
    _compare(want, got)


def test_the_programs_cover_the_lowered_families():
    # (A parity test over a handful of programs would pass vacuously.)
    assert len(PROGRAMS) >= 100
    assert len(PROGRAMS) - len(KNOWN_DIFFERENCES) - len(UNSUPPORTED) >= 100
