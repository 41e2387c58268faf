"""NumPy impls of the special primitive family (being written)."""

IMPLS: dict = {}
