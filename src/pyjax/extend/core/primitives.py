"""pyjax.extend.core.primitives: the built-in primitives, by JAX's names."""

from __future__ import annotations

import pyjax.lax as _lax
from pyjax._src import core as _core
from pyjax._src.ad_util import add_any_p as add_jaxvals_p
from pyjax._src.closed_call import closed_call_p
from pyjax._src.extend_core import CallPrimitive as _CallPrimitive
from pyjax._src.remat import remat_p

# JAX's call of a wrapped function: pyjax's binds in line (it is never an equation).
call_p = _CallPrimitive("call")

# Every `*_p` jax.lax has, then the rest by their primitive names (the
# linear-algebra, PRNG and call primitives that jax.lax does not list).
globals().update({name: value for name, value in vars(_lax).items()
                  if name.endswith("_p") and isinstance(value, _core.Primitive)})
_BY_NAME = {p.name: p for p in _core._all_primitives}
for _name in ("cholesky", "custom_jvp_call", "custom_lin", "custom_vjp_call", "device_put", "eig", "eigh",
              "empty2", "hessenberg", "householder_product", "jit", "lu", "name", "qr", "random_bits",
              "random_fold_in", "random_gamma", "random_seed", "random_split", "schur", "svd", "threefry2x32",
              "triangular_solve", "tridiagonal", "tridiagonal_solve"):
    if f"{_name}_p" not in globals():
        globals()[f"{_name}_p"] = _BY_NAME[_name]
del _name, _BY_NAME
