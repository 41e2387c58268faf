"""jax.typing: JAX's static type annotations.

- ``ArrayLike``: a value that can be converted to an array (an Array, a NumPy
  array or scalar, a Python scalar; not a list or tuple). Annotate inputs
  with it.
- ``DTypeLike``: a value convertible to a dtype (a string, a scalar type, a
  ``np.dtype``, anything with a ``dtype`` attribute).

Annotate outputs with ``jax.Array``.
"""

from pyjax._src.typing import ArrayLike, DTypeLike

__all__ = ["ArrayLike", "DTypeLike"]
