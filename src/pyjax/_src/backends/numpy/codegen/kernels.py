"""Which kernel an equation calls: the one answer both code generators use.

The Python code generator (compile.py) and the C one (native/) must call
the same kernel for an equation, or the native tier would not compute what
the Python code computes. This module answers for both:

- `backend_impl(impls, primitive)`: the impl `impls` holds for `primitive`
  when it is the NumPy backend's own registration (install() registers the
  backend's table), else None. Kernel shortcuts apply only to the backend's
  own impls: a caller's specialised impl is never bypassed.
- `ufunc_of(eqn, impl, own)`: the NumPy ufunc the equation's code may call
  directly instead of its impl (the impl is that ufunc, or declares it as
  `impl.ufunc`; float `div` and `rem` are one ufunc for inexact dtypes).
- `c_ufunc_of(eqn, impl)`: the same for C, which also calls SciPy's ufunc
  loops where the impl is one (`logistic` is `expit` for floats).
- `IDENTITIES`: primitives whose impl returns its operand (no code).

`UFUNCS` (primitive name -> ufunc) lists the direct ufuncs of the backend's
table, derived from it when it is registered.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from pyjax._src import dtypes
from pyjax._src.backends.numpy.impls import lazy_scipy

__all__ = ["IDENTITIES", "UFUNCS", "backend_impl", "c_ufunc_of", "register_backend_impls", "ufunc_of"]

# The backend's own table (the same dict object: an entry replaced in it,
# as tests do, is the backend's from then on).
_backend: dict = {}

# Primitive name -> the ufunc compiled code calls for it, from the table.
UFUNCS: dict[str, np.ufunc] = {}

# Primitives whose default impl returns its operand: the output is renamed to
# the input at compile time and no code is emitted.
IDENTITIES = frozenset({"stop_gradient"})

# Primitives whose impl is one ufunc for inexact dtypes only (integers need
# XLA's rounding and division-by-zero rules): (ufunc, the dtype kinds).
_INEXACT_UFUNCS: dict[str, tuple[np.ufunc, str]] = {
    "div": (np.true_divide, "fc"), "rem": (np.fmod, "f"),
}

# Impls that are a SciPy ufunc for some dtype kinds: C calls its loop.
# name -> (a loader of the ufunc, the dtype kinds it serves); SciPy is imported on first use.
C_IMPL_UFUNCS: dict[str, tuple[Callable[[], np.ufunc], str]] = {"logistic": (lambda: lazy_scipy.special.expit, "f")}


def register_backend_impls(table: dict) -> None:
    """Makes `table` the backend's own impls (install() calls this once)."""
    global _backend
    _backend = table
    UFUNCS.clear()
    UFUNCS.update({primitive.name: ufunc for primitive, impl in table.items()
                   if (ufunc := _direct_ufunc(impl)) is not None})


def backend_impl(impls: dict, primitive) -> Callable | None:
    """`impls[primitive]` when it is the backend's own impl of it, else None."""
    impl = impls.get(primitive)
    return impl if impl is not None and impl is _backend.get(primitive) else None


def _direct_ufunc(impl: Callable) -> np.ufunc | None:
    # An impl that is itself a ufunc (and gets no params) is called directly;
    # one that impls/standard.py wraps in a params-dropping function (`exp`
    # has an `accuracy` param) carries its ufunc as `impl.ufunc`.
    fn = impl if isinstance(impl, np.ufunc) else getattr(impl, "ufunc", None)
    return fn if isinstance(fn, np.ufunc) else None


def broadcast_divisor(name: str, ins: list, out_aval) -> bool:
    """A float division by a broadcast divisor is XLA's product with the
    reciprocal: the impl computes it (rewrite.py does it before jit
    compiles; this covers jaxprs compiled without that pass)."""
    return name == "div" and len(ins) == 2 and ins[1].aval.shape != out_aval.shape


def _inexact_ufunc(name: str, dtype: np.dtype) -> np.ufunc | None:
    entry = _INEXACT_UFUNCS.get(name)
    return entry[0] if entry is not None and np.dtype(dtype).kind in entry[1] else None


def ufunc_of(eqn, impl: Callable, own: bool) -> np.ufunc | None:
    """The ufunc compiled code calls for `eqn` (whose impl is `impl`, `own`
    when that is the backend's own), or None: the impl runs."""
    if any(isinstance(v.aval.dtype, dtypes.ExtendedDType) for v in eqn.invars):
        return None  # key buffers have no ufunc loops; the impl compares keys (eq, ne)
    if isinstance(impl, np.ufunc) and impl.nout == 1 and not eqn.params:
        return impl  # the table's impl is a ufunc itself: same call, and out= applies
    if not own or not eqn.outvars:
        return None
    # Only when the impl is the params-dropping wrapper of exactly this ufunc
    # (impls/standard.py marks it): a specialised impl is never bypassed.
    name, out_aval = eqn.primitive.name, eqn.outvars[0].aval
    ufunc = getattr(impl, "ufunc", None)
    if isinstance(ufunc, np.ufunc) and out_aval.dtype not in getattr(impl, "exact_dtypes", ()):
        return ufunc
    if broadcast_divisor(name, eqn.invars, out_aval):
        return None
    return _inexact_ufunc(name, out_aval.dtype)


def c_ufunc_of(eqn, impl: Callable) -> np.ufunc | None:
    """The ufunc whose loop C code calls for `eqn` (the backend's own `impl`), or None."""
    ufunc = ufunc_of(eqn, impl, True)
    entry = C_IMPL_UFUNCS.get(eqn.primitive.name)
    if ufunc is None and entry is not None and eqn.outvars[0].aval.dtype.kind in entry[1]:
        ufunc = entry[0]()
    return ufunc
