"""NumPy impls of the windowed primitive family (being written)."""

IMPLS: dict = {}
