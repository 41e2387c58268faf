"""Which programs, loops and row regions get a native tier: the plans the
code generator asks for through tiers.py (`native_program`, `native_loop`)
and rows.py (`native_rows`, `plausible_eqn`).
"""

from __future__ import annotations

import numpy as np

from pyjax._src import config
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.jaxpr import Jaxpr
from pyjax._src.backends.numpy.codegen import kernels
from pyjax._src.backends.numpy.native import build
from pyjax._src.backends.numpy.native.build import _headers, available
from pyjax._src.backends.numpy.native.csource import _Unsupported
from pyjax._src.backends.numpy.native.emit import _check_values, _program_source, _scan_source, _while_source
from pyjax._src.backends.numpy.native.keys import KEY_OPS, SHIFTS
from pyjax._src.backends.numpy.native.lapack import LAPACK_OPS
from pyjax._src.backends.numpy.native.loop import NativeLoop
from pyjax._src.backends.numpy.native.points import POINT_OPS
from pyjax._src.backends.numpy.native.ops import _VIEWS
from pyjax._src.backends.numpy.native.settings import MAX_CONST_BYTES, MIN_CTYPES_PROGRAM_EQNS, MIN_PROGRAM_EQNS

# Primitives whose default impl, for these dtype kinds, is exactly this
# ufunc's call although compiled code calls the impl (it has other cases).
_IMPL_UFUNCS = kernels.C_IMPL_UFUNCS  # (logistic: SciPy's expit for floats)


def native_scan(eqn, impls: dict) -> NativeLoop | None:
    """The native tier for a `scan` equation, or None (the Python loop only)."""
    p = eqn.params
    consts, carry, _ = p["ft_in"].unpack()
    body = p["jaxpr"]
    if not available() or body.consts or not _plain(eqn.invars, eqn.outvars) or not _plausible([body.jaxpr], impls):
        return None
    return NativeLoop(lambda: _scan_source(body.jaxpr, len(consts), len(carry), p["length"], p["reverse"], impls),
                      [v.aval for v in eqn.invars], [v.aval for v in eqn.outvars], "scan")


def native_while(eqn, impls: dict) -> NativeLoop | None:
    """The native tier for a `while` equation with a scalar predicate, or None."""
    p = eqn.params
    cond, body = p["cond_jaxpr"], p["body_jaxpr"]
    if (not available() or cond.consts or body.consts or not _plain(eqn.invars, eqn.outvars)
            or not _plausible([cond.jaxpr, body.jaxpr], impls)):
        return None
    return NativeLoop(lambda: _while_source(cond.jaxpr, body.jaxpr, p["cond_nconsts"], p["body_nconsts"], impls),
                      [v.aval for v in eqn.invars], [v.aval for v in eqn.outvars], "while")


def native_loop(eqn, impls: dict) -> NativeLoop | None:
    """The loop tier (tiers.py): the native tier of a `scan` or `while`
    equation, or None."""
    if eqn.primitive.name == "scan":
        return native_scan(eqn, impls)
    if eqn.primitive.name == "while":
        return native_while(eqn, impls)
    return None


def native_program(jaxpr: Jaxpr, impls: dict) -> NativeLoop | None:
    """The native tier of a straight-line jitted program of at least
    `MIN_PROGRAM_EQNS` equations on small values, or None. Its steps are
    its equations: it tiers up after `AFTER_STEPS` equations run."""
    # (Whether native_call.c builds is known after the first native build.)
    fast_calls = _headers() is not None and build._caller_state != [None]
    shortest = MIN_PROGRAM_EQNS if fast_calls else MIN_CTYPES_PROGRAM_EQNS
    if shortest == MIN_PROGRAM_EQNS and len(jaxpr.eqns) == 1 and _costly_alone(jaxpr.eqns[0], impls):
        shortest = 1
    if not _small_consts(jaxpr) or not available() or not _plain(jaxpr.invars, jaxpr.outvars):
        return None
    eqns = _inlined_eqns(jaxpr)  # (a jitted jax.numpy function is one `jit` equation)
    if eqns < shortest or not _plausible([jaxpr], impls):
        return None
    native = NativeLoop(lambda: _program_source(jaxpr, impls), [v.aval for v in jaxpr.invars],
                        [v.aval for v in jaxpr.outvars], "program")
    native.steps_per_call = eqns
    return native


def _small_consts(jaxpr: Jaxpr) -> bool:
    # Constants (a closed-over array) are written into the source as their
    # values (emit.py `_program_source`): small NumPy-typed ones only.
    # (Not a mutable Ref's buffer: its value changes between calls.)
    if len(jaxpr.consts) != len(jaxpr.constvars):
        return False
    for var, value in zip(jaxpr.constvars, jaxpr.consts):
        if (type(var.aval) is not ShapedArray or not isinstance(var.aval.dtype, np.dtype)  # (keys: extended dtypes)
                or not (isinstance(value, (np.ndarray, np.generic)) or type(value) is Array)):
            return False
        value = np.asarray(value)
        if not isinstance(value.dtype, np.dtype) or value.dtype.kind not in "biufc" or value.nbytes > MAX_CONST_BYTES:
            return False
    return True


def _costly_alone(eqn, impls: dict) -> bool:
    # Equations whose impl alone costs more than a native call: a reduction
    # (`ufunc.reduce`, ~1 us) and XLA's saturating float-to-int conversion
    # (range checks around the cast, ~3 us).
    if getattr(impls.get(eqn.primitive), "reduce_ufunc", None) is not None:
        return True
    if eqn.primitive.name == "convert_element_type":
        src, dst = eqn.invars[0].aval.dtype, eqn.outvars[0].aval.dtype
        return src.kind == "f" and dst.kind in "iu"
    return False


def _inlined_eqns(jaxpr: Jaxpr) -> int:
    # Equations once jit, remat and custom_jvp/vjp calls are written in line.
    n = 0
    for eqn in jaxpr.eqns:
        key = eqn.primitive.call_body
        n += _inlined_eqns(eqn.params[key].jaxpr) if key is not None else 1
    return n


def native_rows(body: Jaxpr, consts_n: int, rows: int, region: Jaxpr, impls: dict,
                parallel: bool = False, tiles: dict | None = None, sums: int = 0,
                sum_rows: int = 1) -> NativeLoop | None:
    """The native tier of a row region (rows.py): `region` run as a loop of
    `body` over its `rows` rows (its first `consts_n` inputs are scalars
    and columns, the others and its outputs are read and written a row at a
    time; `tiles` and the last `sums` outputs, column sums: emit.py
    `_scan_source`), or None. Its steps are rows; `parallel`: shared among
    the cores (not with column sums, which add the rows in order)."""
    if not available() or not _plain(region.invars, region.outvars) or not _plausible([body], impls):
        return None
    return NativeLoop(lambda: _scan_source(body, consts_n, 0, rows, False, impls, parallel and not sums,
                                           tiles, sums, sum_rows, fuse=True),
                      [v.aval for v in region.invars],
                      [v.aval for v in region.outvars], "row loop",
                      reports=parallel and not sums and _reports(region.invars))


# A row loop shared among the cores whose float inputs hold at least this
# many bytes scans them for new classes of value itself, each block of rows
# as it reads them (native_call.c, emit.py `_watch_lines`): native_call.c's
# scan before the call would be a pass through memory of its own, on one
# core. Smaller inputs stay in the caches from that scan to the loop, and a
# loop on one core gains nothing; both keep native_call.c's scan, and with
# it their output written into a dead input (a reporting loop writes a
# fresh one while it watches). Measured in docs/performance.md (session 18).
REPORT_MIN_BYTES = 1 << 18


def _reports(invars) -> bool:
    return sum(v.aval.size * v.aval.dtype.itemsize for v in invars
               if isinstance(v.aval.dtype, np.dtype) and v.aval.dtype.kind == "f") >= REPORT_MIN_BYTES


# Equations the C code may be written for (`_emit` decides for sure, on the
# build thread); anything else keeps the Python code without a tier.
_NATIVE_NAMES = frozenset({"dot_general", "fma", "row_dot", "max", "min", "clamp", "select_n", "integer_pow", "convert_element_type", "sign",
                           "dynamic_slice", "dynamic_update_slice", "concatenate", "stack", "scatter", "erf_inv", "iota", "pad",
                           *_VIEWS, *_IMPL_UFUNCS, *KEY_OPS, *SHIFTS, *LAPACK_OPS, *POINT_OPS})


def _plain(*var_lists) -> bool:
    # A native function's own inputs and outputs are NumPy arrays (keys are
    # native values only inside it: their buffers are record arrays).
    return all(isinstance(v.aval.dtype, np.dtype) for vs in var_lists for v in vs)


def _plausible(jaxprs: list, impls: dict) -> bool:
    try:
        _check_values(jaxprs)
    except _Unsupported:
        return False
    return all(plausible_eqn(eqn, impls) for jaxpr in jaxprs for eqn in jaxpr.eqns)


def plausible_eqn(eqn, impls: dict) -> bool:
    """Whether native code may be written for `eqn` (`_emit` decides for
    sure, on the build thread)."""
    impl = kernels.backend_impl(impls, eqn.primitive)
    if eqn.effects or impl is None:
        return False
    if eqn.primitive.name in ("random_split", "random_bits") and not config.threefry_partitionable.value:
        return False  # (keys.py writes the default layout only; the setting is part of jit's cache key)
    key = eqn.primitive.call_body
    if eqn.primitive.name == "cond":
        return _plausible([b.jaxpr for b in eqn.params["branches"]], impls)
    if key is not None:
        return _plausible([eqn.params[key].jaxpr], impls)
    return (eqn.primitive.name in _NATIVE_NAMES or getattr(impl, "reduce_ufunc", None) is not None
            or (not eqn.primitive.multiple_results and kernels.ufunc_of(eqn, impl, True) is not None))
