"""XLA's arithmetic on NumPy: the rewrites XLA's compiler makes before running
a computation (rewrite.py), their backend-private primitives (fma.py), and
XLA CPU's float functions bit for bit (xla_math.py)."""
