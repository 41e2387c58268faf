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

# Every `*_p` jax.lax has, then the rest from the modules that define them
# (the linear-algebra, PRNG and call primitives jax.lax does not list).
# dir/getattr, not vars: jax.lax's less common families load on first read.
globals().update({name: getattr(_lax, name) for name in dir(_lax)
                  if name.endswith("_p") and isinstance(getattr(_lax, name), _core.Primitive)})
from pyjax._src.ad_checkpoint import name_p  # noqa: E402
from pyjax._src.custom_derivatives import custom_jvp_call_p  # noqa: E402
from pyjax._src.custom_vjp import custom_lin_p, custom_vjp_call_p  # noqa: E402
from pyjax._src.jit import jit_p  # noqa: E402
from pyjax._src.lax.control_flow.common import empty2_p  # noqa: E402
from pyjax._src.lax.linalg import (  # noqa: E402
    cholesky_p, eig_p, eigh_p, hessenberg_p, householder_product_p, lu_p, qr_p, schur_p, svd_p, triangular_solve_p,
    tridiagonal_p, tridiagonal_solve_p,
)
from pyjax._src.random.prng import (  # noqa: E402
    random_bits_p, random_fold_in_p, random_gamma_p, random_seed_p, random_split_p,
)
from pyjax._src.random.threefry import threefry2x32_p  # noqa: E402
from pyjax._src.ref_primitives import get_p, swap_p  # noqa: E402
