"""jax.stages programs whose JAX 0.11.0 behaviour is recorded in ``stages.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py stages

What jit's stages are instances of, the ``args_info`` tree of ArgInfo
(avals, donation, keyword arguments, static arguments left out), and the
CompilerOptions alias.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

program("stage_isinstance", "text", """
import importlib
stages = importlib.import_module(jax.__name__ + '.stages')
f = jax.jit(lambda x: x * 2)
t = f.trace(jnp.ones(3))
lo = t.lower()
c = lo.compile()
result = repr([isinstance(f, stages.Wrapped), isinstance(t, stages.Traced), isinstance(lo, stages.Lowered),
               isinstance(c, stages.Compiled), isinstance(jax.grad(lambda x: x), stages.Wrapped),
               isinstance(lambda x: x, stages.Wrapped), isinstance(lo, stages.Traced)])
""")
program("args_info_tree", "text", """
f = jax.jit(lambda x, y, *, z: x, donate_argnums=(1,))
result = repr(f.lower(1.0, jnp.ones((2, 3)), z={'a': jnp.int32(1)}).args_info)
""")
program("args_info_static", "text", """
f = jax.jit(lambda x, n: x * n, static_argnums=1)
result = repr(f.trace(jnp.ones(2), 3).args_info)
""")
program("args_info_fields", "text", """
info = jax.jit(lambda x: x).lower(jnp.ones((4, 1), jnp.int8)).args_info[0][0]
result = repr((info.shape, info.dtype, info.donated, type(info).__name__))
""")
program("args_info_compiled", "text", """
c = jax.jit(lambda x, y: x + y, donate_argnames='y').lower(jnp.ones(2), y=jnp.ones(2)).compile()
result = repr(c.args_info)
""")
program("compiler_options_alias", "text", """
import importlib
result = repr(importlib.import_module(jax.__name__ + '.stages').CompilerOptions)
""")
