"""install() keeps freed arrays' memory for reuse (memory.keep_freed_memory):
a program's temporaries come back without fresh pages from the kernel."""

import os
import subprocess
import sys
import textwrap

import pytest

_PROBE = textwrap.dedent("""
    import resource
    import pyjax, pyjax.numpy as jnp
    from pyjax import lax
    x, w = jnp.ones((8, 16, 16, 32)), jnp.ones((3, 3, 32, 32))
    f = pyjax.jit(lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                                        dimension_numbers=("NHWC", "HWIO", "NHWC")))
    def faults():
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(3):
        f(x, w).block_until_ready()
    before = faults()
    for _ in range(20):
        f(x, w).block_until_ready()
    print(faults() - before)
""")


def _faults(**env) -> int:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env=dict(os.environ, **env), check=True)
    return int(out.stdout.split()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc thresholds")
def test_a_programs_temporaries_come_back_without_page_faults():
    from pyjax._src.backends.numpy import memory
    if not memory.keep_freed_memory():  # (install() already set the same values here)
        pytest.skip("not glibc")
    # glibc's defaults: the padded input and patch blocks are fresh pages every call.
    assert _faults(PYJAX_MALLOC_THRESHOLDS="0") > 20 * 100
    assert _faults() < 200


def test_the_setting_turns_it_off(monkeypatch):
    from pyjax._src.backends.numpy import memory
    monkeypatch.setenv("PYJAX_MALLOC_THRESHOLDS", "0")
    assert memory.keep_freed_memory() is False
