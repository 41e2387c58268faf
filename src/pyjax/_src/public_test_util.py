"""check_grads: compare automatic derivatives with finite differences.

The behaviour of JAX 0.11's ``jax.test_util``: forward mode checks the JVP of
``f`` in one random direction against a central difference computed in the
inputs' own dtypes; reverse mode checks the VJP through the transpose
identity ``<J^T ct, t> == <ct, J t>``; ``"lin"`` checks ``linearize``. Higher
orders recurse on the derivative functions. Directions come from
``np.random.RandomState(0)`` and tolerances from JAX's per-dtype tables
(scaled by the number of elements compared), so a check passes or fails here
as it does in JAX.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src import api, config, dtypes
from pyjax._src.tree_util import tree_leaves, tree_map

EPS = 1e-4

ToleranceDict = dict  # dtype -> atol or rtol


def _table(pairs) -> ToleranceDict:
    # dtypes this ml_dtypes lacks (int1/uint1 on old versions) are skipped
    return {np.dtype(t): tol for t, tol in pairs if t is not None}


_FLOAT8_NAMES = ("float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
                 "float8_e5m2", "float8_e5m2fnuz")
_LOW_PRECISION = [(getattr(dtypes, name), 1e-1) for name in _FLOAT8_NAMES] + [
    (dtypes.float4_e2m1fn, 1e0), (dtypes.float8_e8m0fnu, 1e0)]

# Value comparisons (the fallback for dtypes a gradient table does not name):
# integers and booleans must agree exactly.
_default_tolerance: ToleranceDict = _table(
    [(dtypes.float0, 0), (np.bool_, 0), (dtypes.int1, 0), (dtypes.uint1, 0), (dtypes.int2, 0), (dtypes.uint2, 0),
     (dtypes.int4, 0), (dtypes.uint4, 0)]
    + [(t, 0) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)]
    + _LOW_PRECISION
    + [(dtypes.bfloat16, 1e-2), (np.float16, 1e-3), (np.float32, 1e-6), (np.float64, 1e-15),
       (np.complex64, 1e-6), (np.complex128, 1e-15)])

# Derivative comparisons: finite differences in the input dtype are coarse.
default_gradient_tolerance: ToleranceDict = _table(
    _LOW_PRECISION
    + [(dtypes.bfloat16, 1e-1), (np.float16, 1e-2), (np.float32, 2e-3), (np.float64, 1e-5),
       (np.complex64, 1e-3), (np.complex128, 1e-5)])

_UPCAST_TO_FLOAT32 = frozenset(np.dtype(t) for t, _ in _LOW_PRECISION) | {np.dtype(dtypes.bfloat16)}


def _dtype(x: Any) -> np.dtype:
    # a Python scalar has its type's default dtype (float64 for float), as in JAX
    if hasattr(x, "dtype"):
        return x.dtype
    python_default = dtypes.python_scalar_types_to_dtypes.get(type(x))
    return python_default if python_default is not None else np.asarray(x).dtype


def _is_python_scalar(x: Any) -> bool:
    return not isinstance(x, np.generic) and isinstance(x, (bool, int, float, complex))


def tolerance(dtype, tol: float | ToleranceDict | None = None) -> float:
    """The tolerance for ``dtype``: ``tol`` itself, or its entry for the
    canonical dtype, falling back to the value-comparison table."""
    tol = {} if tol is None else tol
    if not isinstance(tol, dict):
        return tol
    tol = {np.dtype(k): v for k, v in tol.items()}
    dtype = dtypes.canonicalize_dtype(np.dtype(dtype))
    return tol.get(dtype, _default_tolerance[dtype])


def _upcast(x: np.ndarray) -> np.ndarray:
    # assert_allclose cannot compute with ml_dtypes floats and narrow ints
    if x.dtype in _UPCAST_TO_FLOAT32:
        return x.astype(np.float32)
    if x.dtype in dtypes._intn_dtypes:
        return x.astype(np.int8 if dtypes.iinfo(x.dtype).min < 0 else np.uint8)
    return x


def _assert_allclose(a: np.ndarray, b: np.ndarray, atol, rtol, err_msg: str) -> None:
    if a.dtype == b.dtype == dtypes.float0:
        np.testing.assert_array_equal(a, b, err_msg=err_msg)
        return
    # a zero tolerance leaves NumPy's default (rtol=1e-7), as JAX does
    kwargs = {name: value for name, value in (("atol", atol), ("rtol", rtol)) if value}
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(_upcast(a), _upcast(b), **kwargs, err_msg=err_msg)


def _assert_close_leaf(a, b, atol, rtol, err_msg: str) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    atol = max(tolerance(a.dtype, atol), tolerance(b.dtype, atol))
    rtol = max(tolerance(a.dtype, rtol), tolerance(b.dtype, rtol))
    # the tolerance grows with the number of elements: one random direction
    # sums every element's rounding error
    _assert_allclose(a, b, atol * a.size, rtol * b.size, err_msg)


def check_close(xs, ys, atol=None, rtol=None, err_msg: str = "") -> None:
    """Asserts two pytrees agree leaf by leaf within per-dtype tolerances."""
    tree_map(functools.partial(_assert_close_leaf, atol=atol, rtol=rtol, err_msg=err_msg), xs, ys)


def _check_dtypes_match(xs, ys) -> None:
    def same(x, y):
        if config.enable_x64.value:
            assert _dtype(x) == _dtype(y)
        else:
            assert dtypes.canonicalize_dtype(_dtype(x)) == dtypes.canonicalize_dtype(_dtype(y))

    tree_map(same, xs, ys)


def _inner_prod(xs, ys):
    def contract(x, y):
        return np.real(np.dot(np.ravel(np.conj(x)), np.ravel(np.asarray(y))))

    return functools.reduce(np.add, tree_leaves(tree_map(contract, xs, ys)))


def _keeping_input_type(fn: Callable) -> Callable:
    # arithmetic in the first input's dtype; Python scalars stay Python scalars
    def wrapped(*args):
        result = np.array(fn(*args), dtype=_dtype(args[0]))
        return result.item() if all(_is_python_scalar(a) for a in args) else result

    return wrapped


_add = functools.partial(tree_map, _keeping_input_type(operator.add))
_sub = functools.partial(tree_map, _keeping_input_type(operator.sub))
_conj = functools.partial(tree_map, _keeping_input_type(np.conj))


def _safe_sub_leaf(x, y):
    # inf - inf is 0 here: an infinite output that does not move has no slope
    dtype = _dtype(x)
    with np.errstate(invalid="ignore"):
        return np.where(np.equal(x, y), np.array(0, dtype), np.subtract(x, y, dtype=dtype))


def _scalar_mul(xs, a):
    def mul(x):
        dtype = _dtype(x)
        result = np.multiply(x, np.array(a, dtype=dtype), dtype=dtype)
        return result.item() if _is_python_scalar(x) else result

    return tree_map(mul, xs)


def _rand_like(rng: np.random.RandomState, x):
    dtype = _dtype(x)
    shape = np.shape(x)
    draw = lambda: np.asarray(rng.randn(*shape), dtype=dtype)
    result = draw()
    if dtypes.issubdtype(dtype, np.complexfloating):
        result = result + dtype.type(1j) * draw()
    return result.item() if _is_python_scalar(x) else result


def numerical_jvp(f: Callable, primals: Sequence, tangents: Sequence, eps: float = EPS):
    """The central difference ``(f(x + eps t) - f(x - eps t)) / (2 eps)``,
    computed in the primals' dtypes."""
    delta = _scalar_mul(tangents, eps)
    f_pos = f(*_add(primals, delta))
    f_neg = f(*_sub(primals, delta))
    return _scalar_mul(tree_map(_safe_sub_leaf, f_pos, f_neg), 0.5 / eps)


def _merge_tolerance(tol, default: ToleranceDict):
    if tol is None:
        return default
    if not isinstance(tol, dict):
        return tol
    merged = dict(default)
    merged.update({np.dtype(k): v for k, v in tol.items()})
    return merged


def _labelled(err_msg: str, what: str) -> str:
    return f"{err_msg} {what}" if err_msg else what


def check_jvp(f: Callable, f_jvp: Callable, args: Sequence, atol=None, rtol=None, eps: float = EPS,
              err_msg: str = "") -> None:
    """Check a JVP from automatic differentiation against finite differences.

    Gradients are only checked in a single randomly chosen direction, which
    ensures that the finite difference calculation does not become prohibitively
    expensive even for large input/output spaces.

    Args:
      f: function to check at ``f(*args)``.
      f_jvp: function that calculates ``jax.jvp`` applied to ``f``. Typically this
        should be ``functools.partial(jax.jvp, f)``.
      args: tuple of argument values.
      atol: absolute tolerance for gradient equality.
      rtol: relative tolerance for gradient equality.
      eps: step size used for finite differences.
      err_msg: additional error message to include if checks fail.

    Raises:
      AssertionError: if gradients do not match.
    """
    atol = _merge_tolerance(atol, default_gradient_tolerance)
    rtol = _merge_tolerance(rtol, default_gradient_tolerance)
    rng = np.random.RandomState(0)
    tangent = tree_map(functools.partial(_rand_like, rng), args)
    v_out, t_out = f_jvp(args, tangent)
    _check_dtypes_match(v_out, t_out)
    v_out_expected = f(*args)
    _check_dtypes_match(v_out, v_out_expected)
    t_out_expected = numerical_jvp(f, args, tangent, eps=eps)
    check_close(v_out, v_out_expected, atol=atol, rtol=rtol, err_msg=_labelled(err_msg, "primal"))
    check_close(t_out, t_out_expected, atol=atol, rtol=rtol, err_msg=_labelled(err_msg, "tangent"))


def check_vjp(f: Callable, f_vjp: Callable, args: Sequence, atol=None, rtol=None, eps: float = EPS,
              err_msg: str = "") -> None:
    """Check a VJP from automatic differentiation against finite differences.

    Gradients are only checked in a single randomly chosen direction, which
    ensures that the finite difference calculation does not become prohibitively
    expensive even for large input/output spaces.

    Args:
      f: function to check at ``f(*args)``.
      f_vjp: function that calculates ``jax.vjp`` applied to ``f``. Typically this
        should be ``functools.partial(jax.vjp, f)``.
      args: tuple of argument values.
      atol: absolute tolerance for gradient equality.
      rtol: relative tolerance for gradient equality.
      eps: step size used for finite differences.
      err_msg: additional error message to include if checks fail.

    Raises:
      AssertionError: if gradients do not match.
    """
    atol = _merge_tolerance(atol, default_gradient_tolerance)
    rtol = _merge_tolerance(rtol, default_gradient_tolerance)
    rand_like = functools.partial(_rand_like, np.random.RandomState(0))
    v_out, vjpfun = f_vjp(*args)
    v_out_expected = f(*args)
    check_close(v_out, v_out_expected, atol=atol, rtol=rtol, err_msg=_labelled(err_msg, "primal"))
    tangent = tree_map(rand_like, args)
    tangent_out = numerical_jvp(f, args, tangent, eps=eps)
    cotangent = tree_map(rand_like, v_out)
    # VJPs of complex functions follow JAX's convention: conj(vjp(conj(ct))).
    cotangent_out = _conj(vjpfun(_conj(cotangent)))
    ip = _inner_prod(tangent, cotangent_out)
    ip_expected = _inner_prod(tangent_out, cotangent)
    check_close(ip, ip_expected, atol=atol, rtol=rtol, err_msg=_labelled(err_msg, "cotangent projection"))


def _jvp_from_linearize(f: Callable, primals, tangents):
    primal_out, f_lin = api.linearize(f, *primals)
    return primal_out, f_lin(*tangents)


def check_grads(f: Callable, args: Sequence, order: int, modes: Sequence[str] = ("fwd", "rev"),
                atol=None, rtol=None, eps: float | None = None) -> None:
    """Check gradients from automatic differentiation against finite differences.

    Gradients are only checked in a single randomly chosen direction, which
    ensures that the finite difference calculation does not become prohibitively
    expensive even for large input/output spaces.

    Args:
      f: function to check at ``f(*args)``.
      args: tuple of argument values.
      order: forward and backwards gradients up to this order are checked.
      modes: lists of gradient modes to check ('fwd', 'rev' and/or 'lin').
      atol: absolute tolerance for gradient equality.
      rtol: relative tolerance for gradient equality.
      eps: step size used for finite differences.

    Raises:
      AssertionError: if gradients do not match.
    """
    args = tuple(args)
    eps = eps or EPS
    jvp_check = functools.partial(check_jvp, atol=atol, rtol=rtol, eps=eps)
    vjp_check = functools.partial(check_vjp, atol=atol, rtol=rtol, eps=eps)

    def check(f, args, order, err_msg=""):
        if "fwd" in modes:
            msg = f"JVP of {err_msg}" if err_msg else "JVP"
            jvp_check(f, functools.partial(api.jvp, f), args, err_msg=msg)
            if order > 1:
                check(functools.partial(api.jvp, f), (args, args), order - 1, msg)
        if "rev" in modes:
            msg = f"VJP of {err_msg}" if err_msg else "VJP"
            vjp_check(f, functools.partial(api.vjp, f), args, err_msg=msg)
            if order > 1:
                def f_vjp(*primals):
                    out, vjp_fun = api.vjp(f, *primals)
                    return vjp_fun(out)

                check(f_vjp, args, order - 1, msg)
        if "lin" in modes:
            msg = f"LIN of {err_msg}" if err_msg else "LIN"
            jvp_check(f, functools.partial(_jvp_from_linearize, f), args, err_msg=msg)
            if order > 1:
                check(functools.partial(_jvp_from_linearize, f), (args, args), order - 1, msg)

    check(f, args, order)


__all__ = ["check_grads", "check_jvp", "check_vjp", "check_close", "numerical_jvp"]
