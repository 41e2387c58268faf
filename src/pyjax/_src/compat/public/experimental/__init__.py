"""Shims for `jax.experimental` submodules pyjax has no module of its own for
yet (`hijax`, `layout`): `pyjax.experimental.__getattr__` imports them from
here, for the ecosystem under `pyjax.install_as_jax()`."""
