"""jax.experimental.sparse on pyjax: sparse formats as pytrees of arrays,
their primitives and the `sparsify` transformation (docs/sparse.md)."""
