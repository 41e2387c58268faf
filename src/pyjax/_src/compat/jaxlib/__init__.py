"""`jaxlib` under `pyjax.install_as_jax()`: the version libraries read
(pyjax has no compiled extension; its backend is NumPy)."""

from pyjax._src.install import JAX_VERSION as __version__

from pyjax._src.compat.jaxlib import version  # noqa: E402
