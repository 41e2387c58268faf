"""Pallas (`jax.experimental.pallas`): kernels over blocks of arrays, run by
the NumPy backend's interpreter (docs/pallas.md)."""
