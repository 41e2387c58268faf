"""The NumPy backend loads on first need, not with `import pyjax`
(pyjax._src.backends; docs/performance.md, "Import time"): exactly once,
by whichever comes first — an eager call, a compilation, an import of one
of its modules — with the same table, tiers and modes as before."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

BACKEND = "pyjax._src.backends.numpy"


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip()


def test_import_pyjax_imports_no_backend_module():
    code = ("import sys, pyjax\n"
            f"print([m for m in sys.modules if m == {BACKEND!r} or m.startswith({BACKEND + '.'!r})])\n")
    assert _run(code) == "[]"


_WIRED = (
    "from pyjax._src import backends, core, dispatch, jit as jit_lib\n"
    "from pyjax._src.backends.numpy import fpenv, tiers\n"
    "from pyjax._src.backends.numpy.impls import IMPLS, lazy_scipy\n"
    "from pyjax._src.lax.control_flow.loops import while_p\n"
    "from pyjax._src.sharding.api import reshard_p\n"
    "t = tiers.registered()\n"
    "print(IMPLS is backends.NUMPY_IMPLS is core._default_trace[0].impls, dispatch.fp_mode is fpenv,\n"
    "      while_p in IMPLS, reshard_p in IMPLS, [r.name for r in t.regions], t.program is not None,\n"
    "      t.split is not None, len(lazy_scipy.after_import), dispatch._backend_loader[0])\n"
)
_LOADED = "True True True True ['tile', 'rows', 'glue'] True True 1 None"


def test_the_first_eager_call_loads_the_backend_once():
    code = ("import sys, pyjax.numpy as jnp\n"
            f"assert {BACKEND!r} not in sys.modules\n"
            "print((jnp.ones(3) + 1).tolist())\n" + _WIRED)
    assert _run(code).splitlines() == ["[2.0, 2.0, 2.0]", _LOADED]


def test_the_first_compilation_loads_the_backend():
    code = ("import sys, pyjax, pyjax.numpy as jnp\n"
            "x = jnp.asarray([1.0, 2.0])  # (no computation)\n"
            f"assert {BACKEND!r} not in sys.modules\n"
            "print(pyjax.jit(lambda v: pyjax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2), (0, v)))(x)[1].tolist())\n"
            + _WIRED)
    assert _run(code).splitlines() == ["[8.0, 16.0]", _LOADED]


def test_importing_a_backend_module_installs_the_backend():
    # (tests and tools import its modules directly: they see it wired)
    code = "import pyjax._src.backends.numpy.codegen.kernels\n" + _WIRED
    assert _run(code) == _LOADED


def test_threads_loading_it_at_once_all_compute_and_it_installs_once():
    code = ("import threading, pyjax, pyjax.numpy as jnp\n"
            "out = [None] * 8\n"
            "start = threading.Barrier(8)\n"
            "def first(i):\n"
            "    start.wait()\n"
            "    f = (lambda: pyjax.jit(lambda x: x * i)(jnp.ones(2))) if i % 2 else (lambda: jnp.ones(2) * i)\n"
            "    out[i] = f().tolist()\n"
            "threads = [threading.Thread(target=first, args=(i,)) for i in range(8)]\n"
            "[t.start() for t in threads]\n"
            "[t.join() for t in threads]\n"
            "print(out == [[float(i)] * 2 for i in range(8)])\n" + _WIRED)
    assert _run(code).splitlines() == ["True", _LOADED]


def test_def_impl_before_the_backend_loads_still_replaces_its_impl():
    # As when the backend loaded with pyjax: an impl def_impl'd after the
    # import wins over the backend's own.
    code = ("import sys, pyjax.numpy as jnp\n"
            "from pyjax import lax\n"
            "from pyjax._src.lax import elementwise as ew\n"
            "ew.neg_p.def_impl(lambda x: x * 0 + 42)\n"
            f"assert {BACKEND!r} not in sys.modules\n"
            "print(lax.neg(jnp.ones(2)).tolist(), (jnp.ones(2) * 3).tolist())\n")
    assert _run(code) == "[42.0, 42.0] [3.0, 3.0]"


def test_the_first_eager_call_flushes_denormals_as_xla():
    # fpenv (XLA:CPU's denormal mode) is in place for the call that loads it.
    code = ("import pyjax.numpy as jnp\n"
            "print((jnp.array([1e-39, 3e-39], jnp.float32) * jnp.float32(1.5)).tolist())\n")
    assert _run(code) == "[0.0, 0.0]"


def test_deserialization_knows_the_primitives_of_the_backends_families():
    # Pallas and checkify define primitives that only the backend imports
    # with pyjax; an exported program naming one still deserializes.
    code = ("import pyjax\n"
            "from pyjax._src.export import serialization\n"
            "names = serialization._primitives()\n"
            "print('pallas_call' in names, 'check' in names)\n")
    assert _run(code) == "True True"


def test_a_placed_computation_first_runs_per_device():
    # The per-device runtime is the backend's: an eager op on a placed Array
    # (strict: no fallback to the assembled value) or a jitted shard_map as the
    # process's first computation loads it, as across processes it must.
    code = ("import numpy as np, pyjax as jax, pyjax.numpy as jnp\n"
            "from pyjax import lax\n"
            "from pyjax._src import shard_map, spmd_jit\n"
            "from pyjax.sharding import NamedSharding, PartitionSpec as P\n"
            "spmd_jit.STRICT[0] = True\n"
            "jax.config.update('jax_num_cpu_devices', 8)\n"
            "mesh = jax.make_mesh((8,), ('x',))\n"
            "assert shard_map.shard_map_p.run_whole is shard_map.run_eagerly\n"
            "g = jax.device_put(np.arange(16.0, dtype=np.float32), NamedSharding(mesh, P('x')))\n"
            "print(float(np.asarray(jnp.sin(g)).sum().round(4)), jnp.sin(g).sharding.spec)\n")
    assert _run(code) == f"{float(np.sin(np.arange(16.0, dtype=np.float32)).sum().round(4))} P('x',)"
