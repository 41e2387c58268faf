"""lax.linalg.qdwh (polar decomposition), recorded from JAX 0.11.0 in ``qdwh.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py qdwh

u and h, the iteration count and the convergence flag for square, tall,
ill-conditioned, padded (dynamic_shape), complex, batched (vmap) and jitted
inputs, with max_iterations and eps, and the shape error.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

# QR and Cholesky factorizations from LAPACK and from XLA round differently.
TOLERANCE = (2e-4, 2e-5)

X = "jnp.asarray(np.random.default_rng({seed}).normal(size={shape}).astype(np.float32))"

for name, shape, seed in (("square", (4, 4), 0), ("tall", (6, 3), 1), ("square5", (5, 5), 2)):
  program(f"qdwh_{name}", "value", f"""
x = {X.format(seed=seed, shape=shape)}
u, h, k, c = lax.linalg.qdwh(x)
result = jnp.concatenate([u.ravel(), h.ravel(), jnp.array([k, c], jnp.float32)])
""")
program("qdwh_ill_conditioned", "value", """
x = jnp.diag(jnp.array([1.0, 1e-3, 1e-6]))
u, h, k, c = lax.linalg.qdwh(x)
result = jnp.concatenate([u.ravel(), h.ravel(), jnp.array([k, c], jnp.float32)])
""")
program("qdwh_max_iterations", "value", """
u, h, k, c = lax.linalg.qdwh(jnp.diag(jnp.array([1.0, 1e-3, 1e-6])), max_iterations=2)
result = jnp.array([k, c], jnp.int32)
""")
program("qdwh_eps", "value", f"""
u, h, k, c = lax.linalg.qdwh({X.format(seed=3, shape=(3, 3))}, eps=1e-3)
result = jnp.concatenate([u.ravel(), jnp.array([k, c], jnp.float32)])
""")
program("qdwh_dynamic_shape", "value", f"""
xp = jnp.zeros((6, 4)).at[:4, :3].set({X.format(seed=4, shape=(4, 3))})
u, h, k, c = lax.linalg.qdwh(xp, dynamic_shape=(4, 3))
result = jnp.concatenate([u.ravel(), h.ravel(), jnp.array([k, c], jnp.float32)])
""")
program("qdwh_complex", "value", """
rng = np.random.default_rng(5)
x = jnp.asarray((rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))).astype(np.complex64))
u, h, k, c = lax.linalg.qdwh(x)
result = jnp.concatenate([jnp.abs(u @ h - x).ravel() < 1e-4, jnp.abs(u.conj().T @ u - jnp.eye(3)).ravel() < 1e-4,
                          jnp.array([k == 6, c])])
""")
program("qdwh_vmap", "value", """
xs = jnp.stack([jnp.eye(3), 2 * jnp.eye(3), jnp.diag(jnp.array([1.0, 0.1, 0.01]))])
u, h, k, c = jax.vmap(lax.linalg.qdwh)(xs)
result = jnp.concatenate([u.ravel(), h.ravel(), k.astype(jnp.float32), c.astype(jnp.float32)])
""")
program("qdwh_jit", "value", f"""
u, h, k, c = jax.jit(lambda x: lax.linalg.qdwh(x, max_iterations=5))({X.format(seed=6, shape=(4, 2))})
result = jnp.concatenate([u.ravel(), h.ravel(), jnp.array([k, c], jnp.float32)])
""")
program("qdwh_zero_matrix", "value", """
u, h, k, c = lax.linalg.qdwh(jnp.zeros((2, 2)))
result = jnp.concatenate([h.ravel(), jnp.array([k], jnp.float32)])
""")
program("qdwh_wide_error", "error", "lax.linalg.qdwh(jnp.ones((2, 3)))")
program("qdwh_output_types", "text", """
u, h, k, c = lax.linalg.qdwh(jnp.eye(2))
result = str([jax.typeof(v) for v in (u, h, k, c)])
""")
