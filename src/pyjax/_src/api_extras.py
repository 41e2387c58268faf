"""Top-level utilities of JAX's API: jax.Inline, jax.fwd_and_bwd,
jax.print_environment_info."""

from __future__ import annotations

import enum
import platform
import sys
from typing import Callable, Sequence

__all__ = ["Inline", "fwd_and_bwd", "print_environment_info"]


class Inline(enum.Enum):
    """Enumeration specifying inlining behavior for nested jitted functions.

    Values:
      JAX_EARLY: Inlined during tracing into enclosing jaxprs (``inline=True``).
      JAX_LATE: Inlined during lowering.
      XLA_EARLY: Preserved, and marked for early inlining by the compiler.
      XLA_LATE: Preserved, and marked for late inlining by the compiler.
      AUTO: Automatic inlining policy.

    On pyjax only ``JAX_EARLY`` changes the jaxpr (the call is inlined); the
    others keep the ``jit`` equation, as JAX's jaxprs do, and pyjax's backend
    inlines nested calls when it compiles.
    """

    JAX_EARLY = "jax_early"
    JAX_LATE = "jax_late"
    XLA_EARLY = "xla_early"
    XLA_LATE = "xla_late"
    AUTO = "auto"


def fwd_and_bwd(fun: Callable, argnums: int | Sequence[int], has_aux: bool = False,
                jitted: bool = True) -> tuple[Callable, Callable]:
    """Creates functions ``fwd`` and ``bwd`` for the forward and backward pass of ``fun``.

    ``fwd(*args)`` behaves like ``jax.vjp(fun, *args)`` restricted to the
    arguments ``argnums``: it returns ``(primals_out, residuals)`` (and ``aux``
    third when ``has_aux``), and ``bwd(residuals, cotangent)`` returns the
    cotangents of those arguments (one value when ``argnums`` is an int).
    With ``jitted`` both are jitted, so ``bwd`` compiles once and is reused.

    Example::

      fwd, bwd = jax.fwd_and_bwd(f, argnums=(0, 1))
      y, residuals = fwd(x, W)
      cot_x, cot_W = bwd(residuals, cot_out)
    """
    from pyjax._src.api_ad import vjp
    from pyjax._src.jit import jit

    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    def fwd(*args):
        def partial_fun(*dyn):
            full = list(args)
            for i, value in zip(nums, dyn):
                full[i] = value
            return fun(*full)

        return vjp(partial_fun, *[args[i] for i in nums], has_aux=has_aux)

    def bwd(f_vjp, outgrad):
        grads = f_vjp(outgrad)
        return grads[0] if single else grads

    if jitted:
        fwd, bwd = jit(fwd), jit(bwd)
    return fwd, bwd


def print_environment_info(return_string: bool = False) -> str | None:
    """Returns a string containing local environment & JAX installation information.

    This is useful information to include when asking a question or filing a
    bug. With ``return_string=False`` it is printed instead.
    """
    import numpy as np

    import pyjax

    info = "\n".join([
        f"jax:    {pyjax.__version__}",
        "jaxlib: none (pyjax: a Python implementation of JAX's API on NumPy)",
        f"numpy:  {np.__version__}",
        f"python: {sys.version}",
        f"device info: cpu-{pyjax.device_count()}, {pyjax.device_count()} local devices\"",
        f"process_count: {pyjax.process_count() if hasattr(pyjax, 'process_count') else 1}",
        f"platform: {platform.uname()}",
    ]) + "\n"
    if return_string:
        return info
    print(info)
    return None
