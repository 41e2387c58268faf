"""`jax.experimental.sparse`: not implemented in pyjax.

The sparse formats exist as names (numpyro imports BCOO at import, and uses
it only for a sparse adjacency matrix); making one raises
NotImplementedError.
"""

from __future__ import annotations

_NOT_HERE = "jax.experimental.sparse is not implemented in pyjax"


class JAXSparse:
    """The base of pyjax's (absent) sparse array formats."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"{_NOT_HERE}: cannot make a {type(self).__name__}")

    @classmethod
    def fromdense(cls, *args, **kwargs):
        raise NotImplementedError(f"{_NOT_HERE}: {cls.__name__}.fromdense")

    @classmethod
    def from_scipy_sparse(cls, *args, **kwargs):
        raise NotImplementedError(f"{_NOT_HERE}: {cls.__name__}.from_scipy_sparse")


class BCOO(JAXSparse):
    """Batched COO sparse array (not implemented)."""


class BCSR(JAXSparse):
    """Batched CSR sparse array (not implemented)."""


class COO(JAXSparse):
    """COO sparse matrix (not implemented)."""


class CSR(JAXSparse):
    """CSR sparse matrix (not implemented)."""


__all__ = ["BCOO", "BCSR", "COO", "CSR", "JAXSparse"]
