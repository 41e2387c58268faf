"""`jax.version`: the JAX release whose API pyjax implements."""

from pyjax._src.install import JAX_VERSION as __version__
from pyjax._src.install import JAX_VERSION_INFO as __version_info__

_version = __version__
_minimum_jaxlib_version = __version__
_minimum_jaxlib_version_info = __version_info__
