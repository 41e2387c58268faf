"""pyjax.interpreters.pxla: the name JAX 0.11 still keeps here."""

from __future__ import annotations


def create_compile_options(*args, **kwargs):
    """XLA compile options: pyjax compiles jaxprs to NumPy code, not with XLA."""
    raise NotImplementedError("create_compile_options: pyjax does not compile with XLA (StableHLO lowering and "
                              "XLA compilation are issue 27)")


__all__ = ["create_compile_options"]
