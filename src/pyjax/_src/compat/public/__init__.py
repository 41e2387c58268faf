"""Public `jax.*` modules pyjax has no module of its own for (see compat)."""
