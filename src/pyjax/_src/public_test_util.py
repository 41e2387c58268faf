"""check_grads: compare automatic derivatives with finite differences.

Forward mode: the JVP of `f` at random tangents against a central
difference. Reverse mode: the VJP against the forward derivative through the
transpose identity <ct, J t> == <J^T ct, t>. Higher orders recurse on the
derivative functions, as JAX's jax.test_util.check_grads does.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from pyjax._src import api, dtypes
from pyjax._src.tree_util import tree_flatten, tree_map

EPS = 1e-4
_GRAD_TOLERANCE = {
    np.dtype(np.float16): 1e-1,
    np.dtype(dtypes.bfloat16): 1e-1,
    np.dtype(np.float32): 2e-2,
    np.dtype(np.float64): 1e-5,
    np.dtype(np.complex64): 2e-2,
    np.dtype(np.complex128): 1e-5,
}


def _tolerance(tree, given):
    if given is not None:
        return given
    leaves = [np.asarray(x) for x in tree_flatten(tree)[0]]
    return max([_GRAD_TOLERANCE.get(x.dtype, 1e-5) for x in leaves] or [1e-5])


def _random_like(tree, rng):
    def sample(x):
        x = np.asarray(x)
        value = rng.standard_normal(x.shape)
        if np.issubdtype(x.dtype, np.complexfloating):
            value = value + 1j * rng.standard_normal(x.shape)
        return np.asarray(value, x.dtype)

    return tree_map(sample, tree)


def _add(tree, scale, other):
    return tree_map(lambda a, b: np.asarray(np.asarray(a, np.float64 if np.asarray(a).dtype.kind != "c" else np.complex128)
                                            + scale * np.asarray(b), np.asarray(a).dtype), tree, other)


def _inner(xs, ys) -> float:
    # The real inner product <x, y> = Re(sum(conj(x) * y)) of complex vectors
    # as real vector spaces: the convention the transpose identity holds in.
    return sum(float(np.real(np.vdot(np.asarray(x, np.complex128), np.asarray(y, np.complex128))))
               for x, y in zip(tree_flatten(xs)[0], tree_flatten(ys)[0], strict=True))


def _conj(tree):
    return tree_map(lambda x: np.conj(x) if np.iscomplexobj(x) else x, tree)


def numerical_jvp(f: Callable, primals: Sequence, tangents: Sequence, eps: float = EPS):
    plus = f(*_add(tuple(primals), eps, tuple(tangents)))
    minus = f(*_add(tuple(primals), -eps, tuple(tangents)))
    return tree_map(lambda p, m: (np.asarray(p, np.float64 if np.asarray(p).dtype.kind != "c" else np.complex128)
                                  - np.asarray(m)) / (2 * eps), plus, minus)


def _check_close(actual, expected, atol, rtol, what: str):
    for a, e in zip(tree_flatten(actual)[0], tree_flatten(expected)[0], strict=True):
        np.testing.assert_allclose(np.asarray(a, np.complex128 if np.asarray(a).dtype.kind == "c" else np.float64),
                                   np.asarray(e), atol=atol, rtol=rtol, err_msg=what)


def check_jvp(f: Callable, f_jvp: Callable, args: Sequence, atol=None, rtol=None, eps: float = EPS, seed: int = 0):
    rng = np.random.default_rng(seed)
    atol, rtol = _tolerance(args, atol), _tolerance(args, rtol)
    tangents = _random_like(tuple(args), rng)
    value, tangent_out = f_jvp(tuple(args), tangents)
    _check_close(value, f(*args), atol, rtol, "JVP primal output")
    _check_close(tangent_out, numerical_jvp(f, args, tangents, eps), atol, rtol, "JVP tangent vs finite differences")


def check_vjp(f: Callable, f_vjp: Callable, args: Sequence, atol=None, rtol=None, eps: float = EPS, seed: int = 0):
    rng = np.random.default_rng(seed)
    atol, rtol = _tolerance(args, atol), _tolerance(args, rtol)
    value, vjp_fun = f_vjp(*args)
    _check_close(value, f(*args), atol, rtol, "VJP primal output")
    tangents = _random_like(tuple(args), rng)
    tangent_out = numerical_jvp(f, args, tangents, eps)
    cotangent = _random_like(value, rng)
    # VJPs of complex functions follow JAX's convention: conj(vjp(conj(ct))).
    cotangent_out = _conj(vjp_fun(_conj(cotangent)))
    _check_close(_inner(tangents, cotangent_out), _inner(tangent_out, cotangent), atol, rtol,
                 "VJP: <J^T ct, t> vs <ct, J t>")


def check_grads(f: Callable, args: Sequence, order: int, modes: Sequence[str] = ("fwd", "rev"),
                atol=None, rtol=None, eps: float | None = None) -> None:
    """Checks `f`'s derivatives of the given order against finite differences.

    Args:
      f: the function to check; takes `args` positionally.
      args: a tuple of arguments (arrays or pytrees of arrays).
      order: the highest order of derivative to check (1, 2, ...).
      modes: "fwd" checks jvp, "rev" checks vjp.
      atol, rtol, eps: tolerances and the finite-difference step.

    Raises:
      AssertionError: if a derivative disagrees with finite differences.
    """
    eps = EPS if eps is None else eps
    args = tuple(args)

    def check(f, args, order):
        if "fwd" in modes:
            check_jvp(f, lambda p, t: api.jvp(f, p, t), args, atol, rtol, eps)
            if order > 1:
                rng = np.random.default_rng(order)
                tangents = _random_like(args, rng)
                check(lambda *a: api.jvp(f, a, tangents)[1], args, order - 1)
        if "rev" in modes:
            check_vjp(f, lambda *a: api.vjp(f, *a), args, atol, rtol, eps)
            if order > 1:
                rng = np.random.default_rng(order + 10)
                value = f(*args)
                cotangent = _random_like(value, rng)
                check(lambda *a: api.vjp(f, *a)[1](cotangent), args, order - 1)

    check(f, args, order)


__all__ = ["check_grads", "check_jvp", "check_vjp", "numerical_jvp"]
