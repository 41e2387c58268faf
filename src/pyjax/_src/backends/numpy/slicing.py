"""NumPy impls of the slicing primitive family (being written)."""

IMPLS: dict = {}
