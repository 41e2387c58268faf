"""jax.ref: mutable array references.

    r = jax.new_ref(jnp.zeros(3))    # Ref{f32[3]}
    r[...] = r[...] + 1              # get and swap
    jax.ref.addupdate(r, 0, 2.0)     # r[0] += 2.0
    jax.freeze(r)                    # the contents, an Array
"""

from pyjax._src.ref_primitives import empty_ref, free_ref, freeze, new_ref
from pyjax._src.ref_primitives import ref_addupdate as addupdate
from pyjax._src.ref_primitives import ref_get as get
from pyjax._src.ref_primitives import ref_set as set  # noqa: A001
from pyjax._src.ref_primitives import ref_swap as swap
from pyjax._src.ref_types import AbstractRef, Ref

__all__ = ["Ref", "empty_ref", "free_ref", "freeze", "new_ref", "AbstractRef", "get", "set", "swap", "addupdate"]
