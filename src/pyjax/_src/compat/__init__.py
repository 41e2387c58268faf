"""`jax._src` under `pyjax.install_as_jax()`: the private modules the JAX
ecosystem reads (optax, chex, equinox, flax, haiku, numpyro, blackjax,
jaxtyping), each a small module mapping JAX's names onto pyjax's own.

`public/` holds the public `jax.*` modules pyjax has no module for yet
(`jax.experimental`, `jax.lib`, `jax.version`, ...), `jaxlib/` the `jaxlib`
names libraries read. A submodule is imported on first attribute access,
as `jax._src.xla_bridge` is reachable after `import jax`.
"""

import importlib as _importlib


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return _importlib.import_module(f"jax._src.{name}")
    except ModuleNotFoundError:
        raise AttributeError(f"module 'jax._src' has no attribute '{name}'") from None
