"""jax.experimental.random (StatefulPRNG: a key and a counter in a jax.ref),
recorded from JAX 0.11.0 in ``stateful_random.json``: the streams (draws,
keys, split for vmap, spawn, under jit), the staged jaxpr, reprs and errors.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py stateful_random
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

_PRELUDE = "random = __import__(jax.__name__ + '.experimental.random', fromlist=['random'])\n"


def rng_program(name: str, expect: str, body: str) -> None:
    program(name, expect, _PRELUDE + body.strip("\n") + "\n")


rng_program("stateful_uniform_stream", "value", """
rng = random.stateful_rng(42)
result = jnp.stack([rng.uniform(), rng.uniform(), rng.uniform()])
""")
rng_program("stateful_uniform_under_jit", "value", """
rng = random.stateful_rng(42)
rng.uniform(); rng.uniform()
f = jax.jit(rng.uniform)
result = jnp.stack([f(), f(), rng.uniform()])
""")
rng_program("stateful_keys", "value", """
rng = random.stateful_rng(0)
result = jnp.stack([jax.random.key_data(rng.key()), jax.random.key_data(rng.key())])
""")
rng_program("stateful_key_shape", "value", "result = jax.random.key_data(random.stateful_rng(7).key((2, 3)))")
rng_program("stateful_key_repr", "text", "rng = random.stateful_rng(0)\nrng.key()\nresult = repr(rng.key(2))")
rng_program("stateful_rng_repr", "text", "result = repr(random.stateful_rng(42))")
rng_program("stateful_counter_after_draws", "text", """
rng = random.stateful_rng(3)
rng.normal(size=2); rng.integers(4); rng.key(5)
result = repr(rng._counter)
""")
rng_program("stateful_split_vmap", "value", """
rng = random.stateful_rng(123)
result = jax.vmap(lambda r, x: x + r.uniform())(rng.split(3), jnp.zeros(3))
""")
rng_program("stateful_split_vmap_twice", "value", """
rng = random.stateful_rng(5)
result = jax.vmap(lambda r: jnp.stack([r.normal(), r.normal()]))(rng.split(4))
""")
rng_program("stateful_split_2d", "value", """
rng = random.stateful_rng(11)
result = jax.vmap(jax.vmap(lambda r: r.random()))(rng.split((2, 3)))
""")
rng_program("stateful_spawn", "value", """
rng = random.stateful_rng(123)
result = jnp.stack([r.integers(0, 10, 2) for r in rng.spawn(2)])
""")
rng_program("stateful_normal", "value", "result = random.stateful_rng(9).normal(1., 2., (2, 2))")
rng_program("stateful_normal_broadcast_size", "value", """
result = random.stateful_rng(9).normal(jnp.zeros(3), jnp.array([1., 2., 3.]))
""")
rng_program("stateful_random_float", "value", "result = random.stateful_rng(1).random(4)")
rng_program("stateful_random_float16", "value", "result = random.stateful_rng(1).random((2,), dtype=jnp.float16)")
rng_program("stateful_integers_one_bound", "value", "result = random.stateful_rng(2).integers(5, size=6)")
rng_program("stateful_integers_two_bounds", "value", "result = random.stateful_rng(2).integers(-3, 3, (2, 3))")
rng_program("stateful_uniform_bounds", "value", "result = random.stateful_rng(4).uniform(jnp.zeros(2), 3.)")
rng_program("stateful_rbg_impl", "value", """
rng = random.stateful_rng(8, impl='rbg')
result = jnp.stack([rng.uniform(), rng.uniform()])
""")
rng_program("stateful_seed_in_jit", "value", """
result = jax.jit(lambda s: random.stateful_rng(s).uniform(size=2))(5)
""")
rng_program("stateful_jaxpr", "jaxpr", """
rng = random.stateful_rng(42)
result = jax.make_jaxpr(lambda: rng.uniform(size=2))()
""")
rng_program("stateful_is_pytree", "text", """
rng = random.stateful_rng(42)
result = str(jax.tree.structure(rng)) + ' ' + str(len(jax.tree.leaves(rng)))
""")
rng_program("stateful_error_split_generator", "error", "result = random.stateful_rng(1).split(2).key()")
rng_program("stateful_error_no_seed_in_jit", "error", "result = jax.jit(lambda: random.stateful_rng().uniform())()")
rng_program("stateful_error_returned_from_jit", "error", "result = jax.jit(lambda: random.stateful_rng(3))()")
rng_program("stateful_error_bad_key", "error", "result = random.StatefulPRNG(1, 2)")
rng_program("stateful_error_bad_counter", "error", "result = random.StatefulPRNG(jax.random.key(0), 2)")
rng_program("stateful_error_raw_key", "error", "result = random.StatefulPRNG(jax.random.PRNGKey(0), jax.new_ref(0))")
