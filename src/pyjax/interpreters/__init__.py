"""pyjax.interpreters: the transformations' rule tables (JAX's `jax.interpreters`).

`ad` and `batching` hold the JVP, transpose and batching rules as views of
each primitive's own rule slots; `partial_eval` traces functions to jaxprs;
`mlir` has only what a library needs to say "lower this primitive like this
function" (pyjax's backend runs the function); `xla` and `pxla` the few
names JAX 0.11 keeps there.
"""

from pyjax.interpreters import ad, batching, mlir, partial_eval, pxla, xla

__all__ = ["ad", "batching", "mlir", "partial_eval", "pxla", "xla"]
