"""NumPy impls of the convolution primitive family (being written)."""

IMPLS: dict = {}
