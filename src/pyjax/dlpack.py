"""DLPack interchange (JAX's jax.dlpack)."""

from pyjax._src.dlpack import from_dlpack as from_dlpack, is_supported_dtype as is_supported_dtype  # noqa: F401
