"""jax.scipy.optimize: minimize(method="BFGS"), written on lax.while_loop."""
