"""Multi-core execution: large matmuls and compute-bound ufuncs split across a
thread pool (split.py), tiled regions run block by block (tile.py), and
BLAS's own threads limited inside pyjax's calls (blas.py)."""
