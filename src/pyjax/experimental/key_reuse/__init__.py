"""Key-reuse checking for typed PRNG keys (experimental, as in JAX).

Turn it on with the `jax_debug_key_reuse` option, globally or in a scope::

    jax.config.update("jax_debug_key_reuse", True)
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        a = jax.random.normal(key)
        b = jax.random.normal(key)   # KeyReuseError: the key was consumed by the first draw

While it is on, every function jit traces is analysed (a key consumed twice
inside it raises `jax.errors.KeyReuseError` at trace time), and eager key
Arrays remember whether they were consumed. `jax.random.split`,
`fold_in` and `clone` give keys that may be used again. The analysis and
its helpers (`check_key_reuse`, signatures) are in `._core`; see
docs/random.md.
"""
