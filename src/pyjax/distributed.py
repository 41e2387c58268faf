"""jax.distributed: join the processes of an MPI launch (docs/distributed.md)."""

from pyjax._src.distributed import initialize, is_initialized, shutdown

__all__ = ["initialize", "is_initialized", "shutdown"]
