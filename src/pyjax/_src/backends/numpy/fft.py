"""NumPy impls of the fft primitive family (being written)."""

IMPLS: dict = {}
