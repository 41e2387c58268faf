"""jax.ad_checkpoint: rematerialization (checkpoint / remat), its policies,
checkpoint_name and the saved-residuals report.

Importing this module also gives the NumPy backend its rules for the two
primitives (a remat runs its body; a name is the identity), as
pyjax/__init__ wires the default backend into layers that must not import it.
"""

from pyjax._src.ad_checkpoint import (
    checkpoint,
    checkpoint_name,
    checkpoint_policies,
    print_saved_residuals,
    remat,
)
from pyjax._src.ad_checkpoint import name_p as _name_p
from pyjax._src.backends.numpy.compile import EMITTERS as _EMITTERS
from pyjax._src.backends.numpy.impls import IMPLS as _IMPLS
from pyjax._src.backends.numpy.interpreter import run_jaxpr as _run_jaxpr
from pyjax._src.remat import Offloadable, Recompute, Saveable
from pyjax._src.remat import remat_p as _remat_p


def _remat_impl(*args, jaxpr, **params):
    return _run_jaxpr(jaxpr, _IMPLS, args)


_IMPLS[_remat_p] = _remat_impl
_IMPLS[_name_p] = lambda x, *, name: x
# Compiled code: a remat's body is inlined like a jit's; a name is no code.
_EMITTERS["remat2"] = lambda builder, eqn, ins: builder.inline(eqn.params["jaxpr"], ins)
_EMITTERS["name"] = lambda builder, eqn, ins: list(ins)

__all__ = [
    "Offloadable", "Recompute", "Saveable", "checkpoint", "checkpoint_name", "checkpoint_policies",
    "print_saved_residuals", "remat",
]
