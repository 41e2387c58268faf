"""jax.typing programs whose JAX 0.11.0 behaviour is recorded in ``typing.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py typing

ArrayLike and DTypeLike are typing.Union aliases: the members of each (by
qualified name, the module left out: jax.Array is pyjax's Array), and which
values pass ``isinstance`` against the members, arrays, NumPy values, Python
scalars and tracers inside jit included.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

program("arraylike_members", "text", """
import typing
result = repr([getattr(a, '__qualname__', repr(a)) for a in typing.get_args(jax.typing.ArrayLike)])
""")
program("dtypelike_members", "text", """
import typing
result = repr([getattr(a, '__qualname__', repr(a)) for a in typing.get_args(jax.typing.DTypeLike)])
""")
program("arraylike_isinstance", "text", """
import typing
members = tuple(typing.get_origin(a) or a for a in typing.get_args(jax.typing.ArrayLike))
values = [jnp.ones(3), np.ones(3), np.float32(1), np.bool_(True), True, 1, 1.5, 2j, 'a', [1, 2], (1,), None]
result = repr([isinstance(v, members) for v in values])
""")
program("arraylike_isinstance_tracer", "text", """
import typing
members = tuple(typing.get_origin(a) or a for a in typing.get_args(jax.typing.ArrayLike))
seen = []
jax.jit(lambda x: seen.append(isinstance(x, members)) or x)(jnp.ones(2))
jax.grad(lambda x: seen.append(isinstance(x, members)) or x)(1.0)
result = repr(seen)
""")
program("dtypelike_isinstance", "text", """
import typing
members = tuple(typing.get_origin(a) or a for a in typing.get_args(jax.typing.DTypeLike))
values = ['float32', np.float32, float, np.dtype('int32'), jnp.float32, jnp.ones(2), 3, None]
result = repr([isinstance(v, members) for v in values])
""")
program("annotations_usable", "text", """
def f(x: jax.typing.ArrayLike, dtype: jax.typing.DTypeLike | None = None) -> jax.Array:
  return jnp.asarray(x, dtype)
result = repr((f(1, 'float32').dtype, sorted(f.__annotations__)))
""")
