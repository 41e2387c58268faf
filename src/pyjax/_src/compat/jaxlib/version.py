"""`jaxlib.version`."""

from pyjax._src.install import JAX_VERSION as __version__
from pyjax._src.install import JAX_VERSION_INFO as __version_info__

_version = __version__
