"""pyjax: JAX's tracing machine in Python."""
