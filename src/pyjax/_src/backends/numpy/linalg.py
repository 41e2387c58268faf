"""NumPy impls of the linalg primitive family (being written)."""

IMPLS: dict = {}
