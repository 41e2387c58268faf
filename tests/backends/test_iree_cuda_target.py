"""IREE's CUDA target, compiled without a GPU.

No GPU has been available to run the CUDA path (docs/iree.md), but IREE's
compiler builds CUDA executables (PTX for an `sm_*` architecture) on any
host. Here the process's target is switched to CUDA and every recorded
StableHLO program (tests/golden/stablehlo_programs.py) goes through
a jitted call on the IREE backend: pyjax's lowering for IREE must be
accepted by the CUDA code generator too, and the bytecode must hold an
`sm_80` CUDA executable. Running it needs a GPU and is not tested here: the
module's loading is replaced by keeping its bytecode.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import pyjax
from pyjax._src.backends import iree as iree_backend

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"
sys.path.insert(0, str(GOLDEN_DIR))

import stablehlo_programs  # noqa: E402
from test_iree_parity import UNSUPPORTED  # noqa: E402  (the programs IREE refuses, with the primitive named)

pytestmark = pytest.mark.skipif(not iree_backend.available(),
                                reason="IREE is not installed (pip install -e '.[iree]')")

# Programs of copies and constants alone: IREE builds no kernel for them.
NO_KERNELS = {"squeeze_expand", "identity_outputs", "random_key_data", "zero_outputs", "constant_output"}


@pytest.fixture
def cuda_target(monkeypatch):
    """The process's IREE target switched to CUDA sm_80; loading a module
    (which needs the device) is replaced by keeping its bytecode."""
    from pyjax._src.backends.iree import compile as compile_lib
    from pyjax._src.backends.iree import runtime

    cuda = runtime.Target("cuda", "cuda", runtime._COMMON_FLAGS + runtime._CUDA_FLAGS + ("--iree-cuda-target=sm_80",))
    monkeypatch.setattr(runtime, "target", lambda: cuda)
    built: list[bytes] = []

    class Kept:
        def __init__(self, name, vmfb, *rest):
            built.append(vmfb)

        def __call__(self, *args):
            raise _Compiled

    monkeypatch.setattr(runtime, "Executable", Kept)
    monkeypatch.setattr(compile_lib, "_vmfb_cache", {})
    return built


class _Compiled(Exception):
    """Raised where the compiled module would run."""


def _compile(program) -> None:
    head, last = program.source.rstrip("\n").rsplit("\n", 1)
    assert last.startswith("result = jax.jit(f") and last.endswith(".as_text(debug_info=False)"), last
    call = last[len("result = "):-len(".as_text(debug_info=False)")]
    options, lowered = call.split(").lower(", 1)
    namespace = {"jax": pyjax, "jnp": pyjax.numpy, "lax": pyjax.lax, "np": __import__("numpy")}
    with pytest.raises(_Compiled):
        exec(f"{head}\n{options}, backend='iree')({lowered}", namespace)


PROGRAMS = list(stablehlo_programs.PROGRAMS)


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_the_program_compiles_for_cuda(program, cuda_target):
    if program.name in UNSUPPORTED:  # (refused for IREE on every target, by name)
        with pytest.raises(iree_backend.IreeUnsupportedError, match=f"primitive '{UNSUPPORTED[program.name]}'"):
            _compile(program)
        assert not cuda_target
        return
    _compile(program)
    assert len(cuda_target) == 1
    vmfb = cuda_target[0]
    assert b"embedded-elf" not in vmfb  # no host executable
    if program.name in NO_KERNELS:
        assert b"_dispatch_" not in vmfb
    else:
        assert b"cuda-nvptx-fb" in vmfb and b".target sm_80" in vmfb  # PTX for the requested GPU


def test_a_driver_without_a_device_is_named(monkeypatch):
    # (Was IREE's bare RuntimeError from deep inside its runtime set-up.)
    from pyjax._src.backends.iree import compile as compile_lib
    from pyjax._src.backends.iree import runtime

    monkeypatch.setenv("PYJAX_IREE_DRIVER", "no-such-driver")
    monkeypatch.setattr(runtime, "_state", {})
    monkeypatch.setattr(compile_lib, "_vmfb_cache", {})
    with pytest.raises(runtime.IreeDeviceError, match="could not create a device for driver 'no-such-driver' "
                                                      r"\(PYJAX_IREE_DRIVER=no-such-driver\)"):
        pyjax.jit(lambda x: x * 2.0, backend="iree")(pyjax.numpy.ones(3))
