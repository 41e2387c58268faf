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
    # the looser of the two dtypes' tolerances applies
    atol, rtol = (max(tolerance(x.dtype, tol) for x in (a, b)) for tol in (atol, rtol))
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
        factor = np.array(a, dtype=dtype)
        result = np.multiply(x, factor, dtype=dtype)
        return result.item() if _is_python_scalar(x) else result

    return tree_map(mul, xs)


def _rand_like(rng: np.random.RandomState, x):
    dtype = _dtype(x)
    shape = np.shape(x)
    draw = lambda: np.asarray(rng.randn(*shape), dtype=dtype)
    result = draw()
    if np.iscomplexobj(result):
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


def _gradient_check_setup(atol, rtol):
    # both checks compare against the gradient tables unless told otherwise, and
    # draw their directions from the same seeded stream as JAX's test_util
    tols = dict(atol=_merge_tolerance(atol, default_gradient_tolerance),
                rtol=_merge_tolerance(rtol, default_gradient_tolerance))
    return tols, functools.partial(_rand_like, np.random.RandomState(0))


def check_jvp(f: Callable, f_jvp: Callable, args: Sequence, atol=None, rtol=None, eps: float = EPS,
              err_msg: str = "") -> None:
    """Compare a forward-mode derivative with a central finite difference.

    One random tangent direction is drawn, so the cost stays that of two extra
    evaluations of ``f`` however large its inputs are.

    Args:
      f: the function, evaluated at ``f(*args)``.
      f_jvp: maps ``(primals, tangents)`` to ``(primal_out, tangent_out)``, usually
        ``functools.partial(jax.jvp, f)``.
      args: the point at which to differentiate, a tuple.
      atol: absolute tolerance, a number or a dict from dtype to number.
      rtol: relative tolerance, a number or a dict from dtype to number.
      eps: the finite-difference step.
      err_msg: text prefixed to the failure message.

    Raises:
      AssertionError: when the primal or tangent outputs disagree.

    Example:
      >>> import functools
      >>> import pyjax as jax
      >>> import pyjax.numpy as jnp
      >>> from pyjax.test_util import check_jvp
      >>> check_jvp(jnp.sin, functools.partial(jax.jvp, jnp.sin), (0.5,))
    """
    tols, rand_like = _gradient_check_setup(atol, rtol)
    direction = tree_map(rand_like, args)
    out, out_dot = f_jvp(args, direction)
    _check_dtypes_match(out, out_dot)
    reference = f(*args)
    _check_dtypes_match(out, reference)
    finite_difference = numerical_jvp(f, args, direction, eps=eps)
    check_close(out, reference, **tols, err_msg=_labelled(err_msg, "primal"))
    check_close(out_dot, finite_difference, **tols, err_msg=_labelled(err_msg, "tangent"))


def check_vjp(f: Callable, f_vjp: Callable, args: Sequence, atol=None, rtol=None, eps: float = EPS,
              err_msg: str = "") -> None:
    """Compare a reverse-mode derivative with a central finite difference.

    With a random input direction ``t`` and a random output cotangent ``c``, the
    check is the transpose identity ``<vjp(c), t> == <c, J t>``, where ``J t`` is
    taken by finite differences.

    Args:
      f_vjp: maps ``*primals`` to ``(primal_out, vjp_fun)``, usually
        ``functools.partial(jax.vjp, f)``.
      f, args, atol, rtol, eps, err_msg: as for :func:`check_jvp`.

    Raises:
      AssertionError: when the primal outputs or the two inner products disagree.

    Example:
      >>> import functools
      >>> import pyjax as jax
      >>> import pyjax.numpy as jnp
      >>> from pyjax.test_util import check_vjp
      >>> check_vjp(jnp.sin, functools.partial(jax.vjp, jnp.sin), (0.5,))
    """
    tols, rand_like = _gradient_check_setup(atol, rtol)
    out, vjp_fun = f_vjp(*args)
    check_close(out, f(*args), **tols, err_msg=_labelled(err_msg, "primal"))
    direction = tree_map(rand_like, args)
    jvp_estimate = numerical_jvp(f, args, direction, eps=eps)
    out_cotangent = tree_map(rand_like, out)
    # VJPs of complex functions follow JAX's convention: conj(vjp(conj(ct))).
    in_cotangent = _conj(vjp_fun(_conj(out_cotangent)))
    check_close(_inner_prod(direction, in_cotangent), _inner_prod(jvp_estimate, out_cotangent), **tols,
                err_msg=_labelled(err_msg, "cotangent projection"))


def _jvp_from_linearize(f: Callable, primals, tangents):
    out, f_lin = api.linearize(f, *primals)
    return out, f_lin(*tangents)


def _vjp_of_output(f: Callable) -> Callable:
    # the function whose derivatives test second-order reverse mode: pull the
    # output itself back as the cotangent
    def pulled_back(*primals):
        out, vjp_fun = api.vjp(f, *primals)
        return vjp_fun(out)

    return pulled_back


def check_grads(f: Callable, args: Sequence, order: int, modes: Sequence[str] = ("fwd", "rev"),
                atol=None, rtol=None, eps: float | None = None) -> None:
    """Compare derivatives of ``f`` up to ``order`` with finite differences.

    Each requested mode is checked in one random direction (see
    :func:`check_jvp` and :func:`check_vjp`); higher orders repeat the check on
    the derivative function itself.

    Args:
      f: the function, evaluated at ``f(*args)``.
      args: the point at which to differentiate, a tuple.
      order: the highest derivative order checked.
      modes: any of ``"fwd"`` (``jax.jvp``), ``"rev"`` (``jax.vjp``) and
        ``"lin"`` (``jax.linearize``).
      atol: absolute tolerance, a number or a dict from dtype to number.
      rtol: relative tolerance, a number or a dict from dtype to number.
      eps: the finite-difference step (``1e-4`` when not given).

    Raises:
      AssertionError: when any checked derivative disagrees.

    Example:
      >>> import pyjax.numpy as jnp
      >>> from pyjax.test_util import check_grads
      >>> check_grads(jnp.tanh, (0.3,), order=2)
    """
    args = tuple(args)
    tols = dict(atol=atol, rtol=rtol, eps=eps or EPS)
    # mode -> (label, the checker, how to build f's derivative function, and
    # the arguments that derivative takes)
    plans = {
        "fwd": ("JVP", check_jvp, lambda g: functools.partial(api.jvp, g), lambda a: (a, a)),
        "rev": ("VJP", check_vjp, lambda g: functools.partial(api.vjp, g), None),
        "lin": ("LIN", check_jvp, lambda g: functools.partial(_jvp_from_linearize, g), lambda a: (a, a)),
    }

    def check(g, g_args, remaining, context):
        for mode in ("fwd", "rev", "lin"):
            if mode not in modes:
                continue
            label, checker, derivative, next_args = plans[mode]
            msg = f"{label} of {context}" if context else label
            checker(g, derivative(g), g_args, **tols, err_msg=msg)
            if remaining > 1:
                if next_args is None:
                    check(_vjp_of_output(g), g_args, remaining - 1, msg)
                else:
                    check(derivative(g), next_args(g_args), remaining - 1, msg)

    check(f, args, order, "")


__all__ = ["check_grads", "check_jvp", "check_vjp", "check_close", "numerical_jvp"]
