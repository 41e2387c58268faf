"""`import pyjax` leaves out what only some programs use: each such module is
imported by its first use (docs/performance.md, "Import time"), and then
works as before."""

from __future__ import annotations

import subprocess
import sys

# Modules `import pyjax` must not import, each with the first use that does.
LAZY = {
    "pyjax._src.backends.stablehlo": "pyjax.jit(lambda x: x * 2).lower(jnp.ones(3)).as_text()",
    "pyjax.export": "pyjax.export.export(pyjax.jit(lambda x: x * 2))(jnp.ones(3)).mlir_module()",
    "pyjax._src.export.serialization": "pyjax.export.deserialize",
    "pyjax.profiler": "pyjax.profiler.TraceAnnotation",
    "pyjax._src.profiler": "pyjax.profiler.trace",
    "pyjax.nn": "pyjax.nn.relu(jnp.ones(2))",
    "pyjax.scipy": "pyjax.scipy.special.erf(0.5)",
    "pyjax.debug": "pyjax.debug.print",
    "pyjax.image": "pyjax.image.resize(jnp.ones((2, 2)), (4, 4), 'linear')",
    "pyjax.interpreters": "pyjax.interpreters.ad",
    "pyjax.experimental": "pyjax.experimental.shard_map",
    "opt_einsum": "jnp.einsum('ij,jk->ik', jnp.ones((2, 3)), jnp.ones((3, 2)), optimize=False)",
}


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_import_pyjax_leaves_out_the_lazy_modules():
    names = sorted(LAZY)
    code = ("import sys, pyjax\n"
            f"print([m for m in {names!r} if m in sys.modules])\n")
    assert _run(code).strip() == "[]"


def test_each_lazy_module_loads_on_first_use():
    for module, use in LAZY.items():
        code = ("import sys, pyjax, pyjax.numpy as jnp\n"
                f"assert {module!r} not in sys.modules\n"
                f"used = {use}\n"
                f"print({module!r} in sys.modules)\n")
        assert _run(code).strip() == "True", module


def test_lazy_submodules_are_attributes_and_in_dir():
    code = ("import pyjax\n"
            "assert {'export', 'profiler', 'nn', 'scipy', 'debug', 'image'} <= set(dir(pyjax))\n"
            "import pyjax.export as e\n"
            "assert pyjax.export is e and hasattr(pyjax, 'profiler')\n"
            "try:\n"
            "    pyjax.no_such_name\n"
            "except AttributeError as err:\n"
            "    print(err)\n")
    assert _run(code).strip() == "module 'pyjax' has no attribute 'no_such_name'"


def test_stablehlo_text_is_the_same_after_the_first_use():
    # The first call goes through the lazy hook, the second through the wired lowering.
    code = ("import pyjax, pyjax.numpy as jnp\n"
            "f = lambda x: jnp.sin(x) * 2\n"
            "a = pyjax.jit(f).lower(jnp.ones(3)).as_text()\n"
            "b = pyjax.jit(lambda x: jnp.sin(x) * 2).lower(jnp.ones(3)).as_text()\n"
            "e = pyjax.export.export(pyjax.jit(f))(jnp.ones(3))\n"
            "print(a == b, e.mlir_module() == e.mlir_module(), 'stablehlo.sine' in a)\n")
    assert _run(code).strip() == "True True True"


# Session 13 (issue 23): modules that public names load at their first read
# (pyjax._src.lazy_names), each with a use that loads it and its result.
LAZY_NAMES = {
    "pyjax._src.shard_map": ("pyjax.shard_map", None),
    "pyjax._src.pmap": ("pyjax.pmap(lambda x: x * 2)(jnp.ones((1, 2))).sum()", 4.0),
    "pyjax._src.spmd_eager": ("pyjax._src.dispatch.PLACED_EAGER[0]", None),
    "pyjax._src.spmd_jit": ("pyjax.jit(lambda x: x).lower(jnp.ones(2)).compile().as_text()", None),
    "pyjax._src.api_jac": ("pyjax.jacfwd(jnp.sin)(0.0)", 1.0),
    "pyjax._src.ad_checkpoint": ("pyjax.checkpoint(jnp.sin)(0.0)", 0.0),
    "pyjax._src.custom_vjp": ("pyjax.custom_vjp", None),
    "pyjax._src.debug_nans": ("pyjax.config.update('jax_debug_nans', True)", None),
    "pyjax._src.ref_primitives": ("pyjax.new_ref(jnp.ones(2))[...].sum()", 2.0),
    "pyjax._src.sharding.api": ("pyjax.sharding.reshard", None),
    "pyjax._src.random.prng": ("pyjax.random.normal(pyjax.random.key(0), ()).shape", ()),
    "pyjax._src.random.discrete": ("int(pyjax.random.randint(pyjax.random.key(0), (), 3, 4))", 3),
    "pyjax._src.lax.control_flow.scan": ("pyjax.lax.scan(lambda c, x: (c + x, c), 0.0, jnp.ones(3))[0]", 3.0),
    "pyjax._src.lax.control_flow.loops": ("pyjax.lax.fori_loop(0, 3, lambda i, c: c + 1, 0)", 3),
    "pyjax._src.lax.parallel": ("pyjax.vmap(lambda x: pyjax.lax.psum(x, 'i'), axis_name='i')(jnp.ones(3))[0]", 3.0),
    "pyjax._src.lax.linalg": ("jnp.linalg.det(jnp.eye(2))", 1.0),
    "pyjax._src.lax.linalg_ad": ("pyjax.lax.linalg.cholesky", None),
    "pyjax._src.lax.fft": ("jnp.fft.fft(jnp.ones(2))[0].real", 2.0),
    "pyjax._src.lax.convolution": ("jnp.convolve(jnp.ones(2), jnp.ones(2))[1]", 2.0),
    "pyjax._src.lax.convolution_ad": ("pyjax.lax.conv_general_dilated", None),
    "pyjax._src.lax.windowed": ("jnp.cumsum(jnp.ones(3))[2]", 3.0),
    "pyjax._src.lax.sorting": ("jnp.ones(3).sort()[0]", 1.0),
    "pyjax._src.numpy.misc": ("jnp.ndim(jnp.ones((2, 2)))", 2),
    "pyjax._src.numpy.setops": ("jnp.unique(jnp.array([1, 1, 2])).shape", (2,)),
    "pyjax._src.numpy.statistics": ("jnp.median(jnp.arange(5.0))", 2.0),
    "pyjax._src.numpy.linalg": ("jnp.linalg.norm(jnp.ones(4))", 2.0),
}


def test_import_pyjax_leaves_out_the_lazily_named_modules():
    names = sorted(LAZY_NAMES)
    code = ("import sys, pyjax\n"
            f"print([m for m in {names!r} if m in sys.modules])\n")
    assert _run(code).strip() == "[]"


def test_each_lazily_named_module_loads_with_its_name_and_works():
    lines = ["import sys, pyjax, pyjax.numpy as jnp", "pyjax.config.update('jax_num_cpu_devices', 1)", "bad = []"]
    for module, (use, expected) in LAZY_NAMES.items():
        lines.append(f"value = {use}")
        if expected is not None:
            lines.append(f"bad += [{module!r}] if value != {expected!r} else []")
        lines.append(f"bad += [] if {module!r} in sys.modules else [{module!r} + ' not loaded']")
    lines.append("print(bad)")
    assert _run("\n".join(lines)).strip() == "[]"


def test_lazy_names_are_in_dir_and_are_the_defining_objects():
    code = ("import pyjax, pyjax.numpy as jnp, pyjax.lax as lax\n"
            "assert {'jacfwd', 'checkpoint', 'shard_map', 'pmap', 'random', 'ref', 'ops'} <= set(dir(pyjax))\n"
            "assert {'sort', 'median', 'unique', 'ndim', 'pad', 'linalg', 'fft'} <= set(dir(jnp))\n"
            "assert {'scan', 'cond', 'psum', 'conv_general_dilated', 'cumsum', 'fft', 'linalg'} <= set(dir(lax))\n"
            "from pyjax._src.lax.control_flow import cond\n"
            "from pyjax._src.numpy.sorting import sort\n"
            "from pyjax import jacrev, remat\n"
            "from pyjax.ad_checkpoint import remat as remat_public\n"
            "from pyjax.numpy import median\n"
            "from pyjax._src.api_jac import jacrev as jacrev_src\n"
            "print(lax.cond is cond, jnp.sort is sort, jnp.ones(2).sort is not None and pyjax.Array.sort is sort,\n"
            "      jacrev is jacrev_src, remat is remat_public, median is jnp.median, 'cond' in vars(lax))\n"
            "for ns, name in ((pyjax, 'no_such'), (jnp, 'no_such'), (lax, 'no_such')):\n"
            "    try:\n"
            "        getattr(ns, name)\n"
            "    except AttributeError as e:\n"
            "        print(e)\n")
    assert _run(code).splitlines() == [
        "True True True True True True True",
        "module 'pyjax' has no attribute 'no_such'",
        "module 'pyjax.numpy' has no attribute 'no_such'",
        "module 'pyjax.lax' has no attribute 'no_such'",
    ]


def test_lazily_loaded_samplers_take_out_sharding_in_their_modules_too():
    # random's samplers are wrapped for out_sharding= when their module loads:
    # the public name and the defining module's own name are the wrapper.
    code = ("import pyjax\n"
            "from pyjax._src.random import gamma as gamma_mod\n"
            "from pyjax._src.random import discrete\n"
            "b = pyjax.random.beta\n"
            "print(b is gamma_mod.beta, hasattr(b, '__wrapped__'), pyjax.random.choice is discrete.choice,\n"
            "      hasattr(discrete.gumbel, '__wrapped__'), pyjax.random.gumbel is discrete.gumbel)\n")
    assert _run(code).strip() == "True True True True True"


def test_a_placed_operation_first_loads_the_per_device_path():
    # No computation before: the eager op on a placed Array reaches
    # dispatch's first-use loader (pyjax._src.spmd_first_use), which imports
    # spmd_eager; the result keeps its placement.
    code = ("import sys, numpy as np, pyjax as jax, pyjax.numpy as jnp\n"
            "from pyjax.sharding import NamedSharding, PartitionSpec as P\n"
            "jax.config.update('jax_num_cpu_devices', 4)\n"
            "mesh = jax.make_mesh((4,), ('x',))\n"
            "g = jax.device_put(np.arange(8.0, dtype=np.float32), NamedSharding(mesh, P('x')))\n"
            "before = 'pyjax._src.spmd_eager' in sys.modules\n"
            "y = jnp.sin(g)\n"
            "print(before, 'pyjax._src.spmd_eager' in sys.modules, y.sharding.spec,\n"
            "      np.allclose(np.asarray(y), np.sin(np.arange(8.0))))\n")
    assert _run(code).strip() == "False True P('x',) True"


def test_threads_reading_lazy_names_at_once_get_one_object_each():
    # The first reads race in 8 threads: the import lock makes the others
    # wait for the module, and each name ends bound to one object (random's
    # samplers wrapped once).
    code = ("import threading, pyjax, pyjax.numpy as jnp\n"
            "names = [(pyjax.random, 'randint'), (pyjax.random, 'beta'), (jnp, 'median'), (pyjax.lax, 'scan'),\n"
            "         (pyjax, 'jacrev'), (jnp.linalg, 'det')]\n"
            "seen = [[] for _ in names]\n"
            "start = threading.Barrier(8)\n"
            "def read():\n"
            "    start.wait()\n"
            "    for i, (ns, name) in enumerate(names):\n"
            "        seen[i].append(getattr(ns, name))\n"
            "threads = [threading.Thread(target=read) for _ in range(8)]\n"
            "[t.start() for t in threads]; [t.join() for t in threads]\n"
            "from pyjax._src.random import discrete\n"
            "print([len({id(v) for v in s}) for s in seen], pyjax.random.randint is discrete.randint,\n"
            "      int(pyjax.random.randint(pyjax.random.key(0), (), 5, 6)))\n")
    assert _run(code).strip() == "[1, 1, 1, 1, 1, 1] True 5"


def test_rule_tables_list_the_lazily_loaded_families_primitives():
    # jax.interpreters.ad.primitive_jvps & co. enumerate every primitive:
    # iterating one loads what `import pyjax` leaves to first use, so the
    # tables list what they listed when `import pyjax` imported it all.
    code = ("import pyjax\n"
            "from pyjax.interpreters import ad\n"
            "jvps = {p.name for p in ad.primitive_jvps}\n"
            "transposes = {p.name for p in ad.primitive_transposes}\n"
            "print(sorted({'cholesky', 'conv_general_dilated', 'cumsum', 'scan', 'sort', 'psum', 'fft',\n"
            "              'random_bits', 'get', 'shard_map'} - jvps),\n"
            "      sorted({'triangular_solve', 'conv_general_dilated', 'cumsum', 'psum', 'fft'} - transposes))\n")
    assert _run(code).strip() == "[] []"
