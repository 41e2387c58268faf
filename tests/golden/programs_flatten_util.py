"""jax.flatten_util programs whose JAX 0.11.0 behaviour is recorded in ``flatten_util.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py flatten_util

``jax.flatten_util`` is not imported by ``import jax``, so each program
imports it by the implementation's own name. Covered: the flat vector's
values, dtype (leaf dtypes promoted) and weak type; the empty tree; unravel
round trips (dtypes restored; dtype-polymorphic when every leaf has one
dtype); unravel's dtype and length errors; the jaxprs of ravel and unravel;
ravel under jit and grad; unravel functions compare and hash by structure.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

IMPORT = "import importlib\nravel_pytree = importlib.import_module(jax.__name__ + '.flatten_util').ravel_pytree\n"

TREE = "{'a': jnp.arange(6.0).reshape(2, 3), 'b': [jnp.float32(7.0), jnp.array([8.0, 9.0])]}"
MIXED = "{'w': jnp.ones((2, 2)), 'n': jnp.arange(3), 'f': jnp.array([True, False])}"


def case(name: str, expect: str, body: str) -> None:
  program(name, expect, IMPORT + body)


case("ravel_values", "value", f"result, _ = ravel_pytree({TREE})")
case("ravel_mixed_dtypes", "value", f"result, _ = ravel_pytree({MIXED})")
case("ravel_int_bool", "value", "result, _ = ravel_pytree((jnp.arange(3), jnp.array([True])))")
case("ravel_f16_int8", "value",
     "result, _ = ravel_pytree([jnp.ones(2, jnp.float16), jnp.arange(2, dtype=jnp.int8)])")
case("ravel_python_scalars", "value", "result, _ = ravel_pytree((1.0, 2, [3.5]))")
case("ravel_python_ints", "value", "result, _ = ravel_pytree((1, 2))")
case("ravel_empty_tree", "value", "result, _ = ravel_pytree({})")
case("ravel_none_leaves", "value", "result, _ = ravel_pytree({'a': None, 'b': (None,)})")
case("ravel_numpy_leaves", "value",
     "result, _ = ravel_pytree([np.ones(3, np.float32), np.arange(2, dtype=np.int32)])")
case("unravel_roundtrip_leaf", "value", f"""
flat, unravel = ravel_pytree({TREE})
result = unravel(flat * 2)['b'][1]
""")
case("unravel_restores_int_dtype", "value", f"""
flat, unravel = ravel_pytree({MIXED})
result = unravel(flat + 0.6)['n']
""")
case("unravel_restores_bool_dtype", "value", f"""
flat, unravel = ravel_pytree({MIXED})
result = unravel(flat)['f']
""")
case("unravel_treedef", "text", f"""
flat, unravel = ravel_pytree({TREE})
result = str(jax.tree_util.tree_structure(unravel(flat)))
""")
case("unravel_single_dtype_is_polymorphic", "value", f"""
flat, unravel = ravel_pytree({TREE})
result = unravel(flat.astype(jnp.float16))['a']
""")
case("unravel_wrong_dtype_error", "error", f"""
flat, unravel = ravel_pytree({MIXED})
result = unravel(flat.astype(jnp.int32))
""")
case("unravel_wrong_length_error", "error", f"""
flat, unravel = ravel_pytree({TREE})
result = unravel(jnp.ones(5))
""")
case("unravel_empty", "text", """
flat, unravel = ravel_pytree({})
result = repr(unravel(flat))
""")
case("jaxpr_ravel_single_dtype", "jaxpr",
     f"result = jax.make_jaxpr(lambda t: ravel_pytree(t)[0])({TREE})")
case("jaxpr_ravel_mixed", "jaxpr",
     f"result = jax.make_jaxpr(lambda t: ravel_pytree(t)[0])({MIXED})")
case("jaxpr_unravel_single_dtype", "jaxpr", f"""
flat, unravel = ravel_pytree({TREE})
result = jax.make_jaxpr(unravel)(flat)
""")
case("jaxpr_unravel_mixed", "jaxpr", f"""
flat, unravel = ravel_pytree({MIXED})
result = jax.make_jaxpr(unravel)(flat)
""")
case("ravel_under_jit", "value", f"result = jax.jit(lambda t: ravel_pytree(t)[0])({TREE})")
case("grad_through_ravel", "value", f"""
g = jax.grad(lambda t: jnp.sum(ravel_pytree(t)[0] ** 2))({TREE})
result = g['b'][1]
""")
case("unravel_under_grad", "value", f"""
flat, unravel = ravel_pytree({TREE})
result = jax.grad(lambda v: jnp.sum(unravel(v)['a'] * 3.0))(flat)
""")
case("unravel_equal_and_hash", "text", f"""
_, u1 = ravel_pytree({TREE})
_, u2 = ravel_pytree({TREE})
_, u3 = ravel_pytree({MIXED})
result = repr((u1 == u2, hash(u1) == hash(u2), u1 == u3))
""")
case("unravel_as_jit_static", "value", f"""
flat, unravel = ravel_pytree({TREE})
result = jax.jit(lambda v, u: u(v)['b'][0], static_argnums=1)(flat, unravel)
""")
