"""NumPy impls of the sorting primitive family (being written)."""

IMPLS: dict = {}
