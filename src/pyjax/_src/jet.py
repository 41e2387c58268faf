"""jax.experimental.jet: Taylor-mode higher-order autodiff, and its rules.

The trace is interpreters/jet.py's; this module (a user library: the rules
are written with lax and jax.numpy) fills its rule table and zeros hook and
holds the public API. Inside, a series is the plain Taylor coefficients
x_1..x_K; `jet` (factorial_scaled=True) converts at its boundary to and from
derivatives, term_k = k! x_k, dividing and multiplying by `fact(k)`, which is
JAX's `exp(lgamma(k + 1))` in float32 (so jet's rounding is JAX's). The
rules propagate the coefficients with the recurrences of Griewank & Walther
(Evaluating Derivatives, ch. 13), in JAX's order of operations: each sum is
Python's `sum` (starting from 0), so values and staged equations are JAX's.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

import numpy as np

import pyjax.lax as lax
import pyjax.numpy as jnp
from pyjax._src import core, linear_util as lu
from pyjax._src.custom_derivatives import custom_jvp_call_p
from pyjax._src.custom_vjp import custom_vjp_call_p
from pyjax._src.extend_core import TraceTag
from pyjax._src.interpreters import jet as jet_interp
from pyjax._src.interpreters.jet import JetTrace, JetTracer, ZeroSeries, ZeroTerm, jet_rules, zero_series, zero_term
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.jaxpr import eval_jaxpr
from pyjax._src.jit import jit_p
from pyjax._src.sharding.jit_params import UNSPECIFIED
from pyjax._src.lax.elementwise_ad import _const
from pyjax._src.tree_util import tree_flatten, tree_structure, tree_unflatten, treedef_is_leaf


def jet(fun: Callable, primals, series, factorial_scaled: bool = True, **_) -> tuple[Any, Any]:
    r"""Pushes a truncated Taylor polynomial through ``fun`` (Taylor-mode AD).

    Args:
      fun: Function to be differentiated. Its arguments should be arrays,
        scalars, or standard Python containers of arrays or scalars. It should
        return an array, scalar, or standard Python container of arrays or
        scalars.
      primals: The primal values at which the Taylor approximation of ``fun``
        should be evaluated: a tuple or list with one array or scalar per
        positional parameter of ``fun``.
      series: Higher order Taylor-series coefficients, one tuple or list per
        primal; their common length is the degree of the truncated Taylor
        polynomial.
      factorial_scaled: If True (the default) the k-th term of the input and
        output series is the k-th derivative along the curve (the Taylor
        coefficient times k!); if False, the plain Taylor coefficients.

    Returns:
      A ``(primals_out, series_out)`` pair, where ``primals_out`` is
      ``fun(*primals)`` and, together, ``primals_out`` and ``series_out`` are a
      truncated Taylor polynomial of ``fun`` composed with the input
      polynomial. ``series_out`` has ``primals_out``'s tree structure, with a
      list of terms at each leaf.
    """
    try:
        order, = set(map(len, series))
    except ValueError:
        raise ValueError("jet terms have inconsistent lengths for different arguments") from None
    for pos, (primal, coeffs) in enumerate(zip(primals, series)):
        if not treedef_is_leaf(tree_structure(primal)):
            raise ValueError(f"primal value at position {pos} is not an array")
        for idx, coeff in enumerate(coeffs):
            if not treedef_is_leaf(tree_structure(coeff)):
                raise ValueError(f"term {idx} for argument {pos} is not an array")
    out_tree: list = []

    def flat_fun(*args):
        outs, tree = tree_flatten(fun(*args))
        out_tree.append(tree)
        return outs

    if factorial_scaled:
        series = [[term / fact(k + 1) for k, term in enumerate(terms)] for terms in series]
    f = lu.wrap_init(flat_fun)
    ys, ys_terms = jet_fun(jet_subtrace(f), order).call_wrapped(primals, series)
    if factorial_scaled:
        ys_terms = [[term * fact(k + 1) for k, term in enumerate(terms)] for terms in ys_terms]
    return tree_unflatten(out_tree[-1], ys), tree_unflatten(out_tree[-1], ys_terms)


jet2 = partial(jet, factorial_scaled=False)


def fact(n):
    """n!, as JAX computes it for jet's scaling: exp(lgamma(n + 1))."""
    return lax.exp(lax.lgamma(n + 1.))


def _jet_fun(f, order, primals, series):
    ys, ys_terms = f(TraceTag(), order, primals, series)
    # An output with no series (a constant) gets explicit zero terms.
    filled = [s if s is not zero_series else [jnp.zeros_like(y)] * order
              for y, s in zip(ys, ys_terms)]
    return ys, filled


def _jet_subtrace(f, tag, order, primals, series):
    return jet_interp.jet_flat(f, order, list(primals), list(series), tag)


def _traceable(f, store, in_tree_def, *flat_args):
    xs, xs_terms = tree_unflatten(in_tree_def, flat_args)
    out = f(xs, xs_terms)
    out_flat, out_tree_def = tree_flatten(out)
    store.store(out_tree_def)
    return out_flat


jet_fun = lu.transformation2(_jet_fun)
jet_fun.__doc__ = "`fun(primals, series)` with a fresh tag, zero series instantiated as zeros."
jet_subtrace = lu.transformation2(_jet_subtrace)
jet_subtrace.__doc__ = "`fun(tag, order, primals, series)` run under a JetTrace: (out_primals, out_terms)."
traceable = lu.transformation_with_aux2(_traceable)
traceable.__doc__ = "A flat-in, flat-out `fun(primals, series)`, with its output tree as auxiliary output."

# call primitive -> params updater (JAX's table; pyjax's calls are jit equations).
call_param_updaters: dict = {}


def _zeros_like_strong(x):
    # JAX instantiates a zero term with jnp.zeros of x's shape and strong dtype.
    return jnp.zeros(np.shape(x), dtype=jnp.result_type(x))


jet_interp.zeros_like_hook[:] = [_zeros_like_strong]
jet_interp.inlined_calls.update({custom_jvp_call_p, custom_vjp_call_p})


# ---------------------------------------------------------------------------
# Rule builders


def _install(prim, builder: Callable, *bound, **bound_kw) -> None:
    # The rule of `prim` is `builder` with its leading arguments fixed.
    jet_rules[prim] = partial(builder, *bound, **bound_kw)


def defzero(prim) -> None:
    """Declares `prim` piecewise constant: its output has a zero series."""
    _install(prim, zero_prop, prim)


def zero_prop(prim, primals, series, **params):
    """The rule of a piecewise constant primitive."""
    return prim.bind(*primals, **params), zero_series


def deflinear(prim) -> None:
    """Declares `prim` linear: each term is the primitive applied to the terms."""
    _install(prim, linear_prop, prim)


def linear_prop(prim, primals, series, **params):
    """The rule of a linear primitive."""
    y = prim.bind(*primals, **params)
    ys_terms = [prim.bind(*order_k, **params) for order_k in zip(*series)]
    if prim.multiple_results:
        ys_terms = list(zip(*ys_terms, strict=True))
    return y, ys_terms


def def_deriv(prim, deriv: Callable) -> None:
    """Declares `prim` unary with derivative `deriv`, itself written with
    operations that have rules; the series follows by the chain rule."""
    _install(prim, deriv_prop, prim, deriv)


def _chain(c: list, u: list, v: list) -> list:
    # v' = c u' as series: k v_k = sum_{j=1..k} j c_{k-j} u_j.
    for k in range(1, len(v)):
        v[k] = sum(j * c[k - j] * u[j] for j in range(1, k + 1)) / k
    return v


def deriv_prop(prim, deriv, primals, series):
    """The rule of a unary primitive whose derivative `deriv` is composable."""
    x, = primals
    coeffs, = series
    y = prim.bind(x)
    c0, cs = jet2(deriv, primals, series)
    v = _chain([c0] + cs, [x] + coeffs, _seeded(y, len(coeffs)))
    return v[0], v[1:]


def def_comp(prim, comp: Callable, **kwargs) -> None:
    """Declares `prim` equal to the function `comp` built from primitives that
    have rules; the rule runs `comp` under jet (unscaled)."""
    _install(prim, jet2, comp, **kwargs)


def _seeded(first, order: int) -> list:
    # A coefficient list [first, None, ..., None] of length order + 1.
    return [first, *([None] * order)]


# ---------------------------------------------------------------------------
# The rules

for _name in ("le lt gt ge eq ne not and or xor floor ceil round sign stop_gradient is_finite shift_left "
              "shift_right_arithmetic shift_right_logical bitcast_convert_type").split():
    defzero(getattr(lax, _name + "_p"))

from pyjax._src.ad_util import add_any_p  # noqa: E402
from pyjax._src.lax import identity as _identity, stack as _stack, windowed as _windowed  # noqa: E402
from pyjax._src.sharding.api import reshard_p  # noqa: E402

for _p in (lax.neg_p, lax.real_p, lax.complex_p, lax.conj_p, lax.imag_p, lax.add_p, add_any_p, lax.sub_p,
           lax.convert_element_type_p, lax.broadcast_in_dim_p, lax.concatenate_p, lax.split_p, _stack.stack_p,
           _stack.unstack_p, lax.pad_p, lax.reshape_p, lax.squeeze_p, lax.rev_p, lax.transpose_p, lax.slice_p,
           lax.reduce_sum_p, _windowed.reduce_window_sum_p, lax.fft_p, lax.copy_p, _identity.device_put_p,
           reshard_p, lax.cumsum_p):
    deflinear(_p)


def _dynamic_slice_rule(primals_in, series_in, **params):
    operand, *starts = primals_in
    return (lax.dynamic_slice_p.bind(operand, *starts, **params),
            [lax.dynamic_slice_p.bind(terms[0], *starts, **params) for terms in zip(*series_in)])


def _dynamic_update_slice_rule(primals_in, series_in, **params):
    operand, update, *starts = primals_in
    return (lax.dynamic_update_slice_p.bind(operand, update, *starts, **params),
            [lax.dynamic_update_slice_p.bind(*terms[:2], *starts, **params) for terms in zip(*series_in)])


def _cumulative_rule(primals_in, series_in, *, axis: int, reverse: bool, combine_fn: Callable):
    # As JAX: through the parallel prefix scan, differentiable to any order.
    return jet2(partial(lax.associative_scan, combine_fn, axis=axis, reverse=reverse), primals_in, series_in)


jet_rules[lax.dynamic_slice_p] = _dynamic_slice_rule
jet_rules[lax.dynamic_update_slice_p] = _dynamic_update_slice_rule
jet_rules[lax.cumprod_p] = partial(_cumulative_rule, combine_fn=lax.mul)
jet_rules[lax.cummax_p] = partial(_cumulative_rule, combine_fn=lax.max)
jet_rules[lax.cummin_p] = partial(_cumulative_rule, combine_fn=lax.min)

def_deriv(lax.erf_p, lambda x: lax.mul(_const(x, 2. / np.sqrt(np.pi)), lax.exp(lax.neg(lax.square(x)))))
# Primitives whose series is that of an equivalent composition (the
# composition's operations, in this order, are what gets staged).
_COMPOSITIONS: dict = {
    lax.expm1_p: lambda u: lax.exp(u) - 1,
    lax.log1p_p: lambda u: lax.log(1 + u),
    lax.sqrt_p: lambda u: u ** 0.5,
    lax.square_p: lambda u: u * u,
    lax.rsqrt_p: lambda u: u ** -0.5,
    lax.asinh_p: lambda u: lax.log(u + lax.sqrt(lax.square(u) + 1)),
    lax.acosh_p: lambda u: lax.log(u + lax.sqrt(lax.square(u) - 1)),
    lax.atanh_p: lambda u: 0.5 * lax.log(lax.div(1 + u, 1 - u)),
    lax.erfc_p: lambda u: 1 - lax.erf(u),
    lax.rem_p: lambda num, den: num - den * lax.floor(num / den),
    lax.clamp_p: lambda lo, u, hi: lax.min(lax.max(lo, u), hi),
}
for _p, _comp in _COMPOSITIONS.items():
    def_comp(_p, _comp)


def _erf_inv_rule(primals_in, series_in):
    # The derivative sqrt(pi)/2 exp(y^2) lives on the output, so c, y^2 and
    # exp(y^2) are propagated alongside v, one order behind.
    x, = primals_in
    series, = series_in
    u = [x] + series
    primal_out = lax.erf_inv(x)
    v: list[Any] = _seeded(primal_out, len(series))
    half_sqrt_pi = np.sqrt(np.pi) / 2.
    c: list[Any] = [lax.mul(half_sqrt_pi, lax.exp(lax.square(primal_out)))] + [None] * (len(series) - 1)
    sq: list[Any] = [lax.square(v[0])] + [None] * (len(series) - 1)
    ex: list[Any] = [lax.exp(sq[0])] + [None] * (len(series) - 1)
    for k in range(1, len(series)):
        v[k] = sum(j * c[k - j] * u[j] for j in range(1, k + 1)) / k
        sq[k] = sum(v[k - j] * v[j] for j in range(k + 1))
        ex[k] = sum(j * ex[k - j] * sq[j] for j in range(1, k + 1)) / k
        c[k] = half_sqrt_pi * ex[k]
    k = len(series)
    v[k] = sum(j * c[k - j] * u[j] for j in range(1, k + 1)) / k
    return v[0], v[1:]


def _exp_rule(primals_in, series_in, **_):
    x, = primals_in
    series, = series_in
    u = [x] + series
    v: list[Any] = _seeded(lax.exp(x), len(series))
    _chain(v, u, v)  # exp' = exp: the output is its own derivative's series
    return v[0], v[1:]


def _pow_rule(primals_in, series_in):
    # x ** y = exp(y log x): the exponent's series, then exp's recurrence.
    base, exponent = primals_in
    z, series = jet2(lambda x, y: lax.mul(y, lax.log(x)), primals_in, series_in)
    v: list[Any] = [base ** exponent] + [None] * len(series)
    _chain(v, [z] + series, v)
    return v[0], v[1:]


def _power_by_squares(base, e):
    # base ** e for an integer e, by repeated squaring (recursively, so the
    # staged multiplications come in the recursion's order).
    if e < 0:
        return _power_by_squares(1 / base, -e)
    if e == 0:
        return 1
    if e % 2 == 0:
        return _power_by_squares(base * base, e / 2)
    return base * _power_by_squares(base * base, (e - 1) / 2)


def _integer_pow_rule(primals, series, *, y):
    comp = jnp.ones_like if y == 0 else (lambda u: _power_by_squares(u, y))
    return jet2(comp, primals, series)


def _logistic_rule(primals_in, series_in, **_):
    # sigmoid' = sigmoid (1 - sigmoid): e is that derivative's series.
    x, = primals_in
    series, = series_in
    u = [x] + series
    v: list[Any] = _seeded(lax.logistic(x), len(series))
    e: list[Any] = [v[0] * (1 - v[0])] + [None] * len(series)
    for k in range(1, len(v)):
        v[k] = sum(j * e[k - j] * u[j] for j in range(1, k + 1)) / k
        e[k] = (1 - v[0]) * v[k] - sum(v[j] * v[k - j] for j in range(1, k + 1))
    return v[0], v[1:]


def _tanh_rule(primals_in, series_in, **_):
    # tanh x = 2 sigmoid(2x) - 1.
    x, = primals_in
    series, = series_in
    primal, terms = _logistic_rule((2 * x,), ([2 * t for t in series],))
    return 2 * primal - 1, [2 * t for t in terms]


def _log_rule(primals_in, series_in, **_):
    x, = primals_in
    series, = series_in
    u = [x] + series
    v: list[Any] = _seeded(lax.log(x), len(series))
    for k in range(1, len(v)):
        conv = sum(j * v[j] * u[k - j] for j in range(1, k))
        v[k] = (u[k] - conv / k) / u[0]
    return v[0], v[1:]


def _atan2_rule(primals_in, series_in):
    # atan2(x, y) = atan(x / y), atan' = 1 / (1 + q^2).
    primal_out = lax.atan2(*primals_in)
    q, series = jet2(lax.div, primals_in, series_in)
    one = _const(q, 1)
    c0, cs = jet2(lambda z: lax.div(one, 1 + lax.square(z)), (q,), (series,))
    v = _chain([c0] + cs, [q] + series, [primal_out] + [None] * len(series))
    return v[0], v[1:]


def _div_rule(primals_in, series_in):
    x, y = primals_in
    u = [x] + series_in[0]
    w = [y] + series_in[1]
    v: list[Any] = [None] * len(u)
    for k in range(len(v)):
        conv = sum(v[j] * w[k - j] for j in range(k))
        v[k] = (u[k] - conv) / w[0]
    return v[0], v[1:]


def _sinusoidal_rule(sign, fns, which, primals_in, series_in, **_):
    # sin and cos (sinh and cosh) are each other's derivatives: both series together.
    x, = primals_in
    series, = series_in
    u = [x] + series
    s: list[Any] = [fns[0](x)] + [None] * len(series)
    c: list[Any] = [fns[1](x)] + [None] * len(series)
    for k in range(1, len(s)):
        s[k] = sum(j * u[j] * c[k - j] for j in range(1, k + 1)) / k
        c[k] = sum(j * u[j] * s[k - j] for j in range(1, k + 1)) / k * sign
    out = (s, c)[which]
    return out[0], out[1:]


def _bilinear_rule(prim, primals_in, series_in, **params):
    # Leibniz: v_k = sum_j op(u_j, w_{k-j}).
    u = [primals_in[0]] + series_in[0]
    w = [primals_in[1]] + series_in[1]
    v = [sum(prim.bind(u[j], w[k - j], **params) for j in range(k + 1)) for k in range(len(u))]
    return v[0], v[1:]


def _gather_rule(primals_in, series_in, **params):
    operand, indices = primals_in
    return (lax.gather_p.bind(operand, indices, **params),
            [lax.gather_p.bind(g, indices, **params) for g in series_in[0]])


def _chooser_rule(prim, primals_in, series_in, **params):
    # Terms are averaged over the positions attaining the extremum.
    operand, = primals_in
    gs, = series_in
    primal_out = prim.bind(operand, **params)
    axes = params["axes"]
    shape = [1 if i in axes else d for i, d in enumerate(np.shape(operand))]
    hits = lax.convert_element_type(lax.eq(operand, lax.reshape(primal_out, shape)), gs[0].dtype)
    counts = lax.reduce_sum(hits, axes)
    return primal_out, [lax.div(lax.reduce_sum(lax.mul(g, hits), axes), counts) for g in gs]


def _abs_rule(primals_in, series_in, **params):
    x, = primals_in
    zero = lax.full_like(x, 0, shape=())
    signs = lax.select(lax.lt(x, zero), lax.full_like(x, -1), lax.full_like(x, 1.0))
    return lax.abs_p.bind(x, **params), [signs * t for t, in zip(*series_in)]


def _select_n_rule(primals_in, series_in, **params):
    which, *cases = primals_in
    return lax.select_n(which, *cases), [lax.select_n(which, *terms[1:]) for terms in zip(*series_in)]


def _extremum_rule(greater: bool, primals_in, series_in):
    # Where the operands tie, each term is the two terms' mean.
    x, y = jnp.broadcast_arrays(*primals_in) if greater else primals_in
    wins = x > y if greater else x < y
    ties = x == y
    primal_out = lax.select(wins, x, y)

    def term(x_k, y_k):
        chosen = lax.select(wins, x_k, y_k)
        return lax.select(ties, (x_k + y_k) / 2, chosen)

    if greater:
        return primal_out, [term(*jnp.broadcast_arrays(*terms)) for terms in zip(*series_in)]
    return primal_out, [term(*terms) for terms in zip(*series_in)]


def _scatter_add_series(primals_in, series_in, **params):
    operand, indices, updates = primals_in
    primal_out = lax.scatter_add_p.bind(operand, indices, updates, **params)
    return primal_out, [lax.scatter_add_p.bind(d1, indices, d2, **params) for d1, _, d2 in zip(*series_in)]


def _jit_rule(primals_in, series_in, *, jaxpr, **params):
    # One jit equation whose body is the jet of the body: inputs are the
    # primals then each primal's terms; outputs likewise.
    flat_in, in_tree = tree_flatten((list(primals_in), [list(s) for s in series_in]))
    order = len(series_in[0])
    store: list = []

    def body(*args):
        primals, series = tree_unflatten(in_tree, args)
        f = lu.wrap_init(lambda *xs: eval_jaxpr(jaxpr, jaxpr.consts, *xs))
        outs, out_tree = tree_flatten(jet_fun(jet_subtrace(f), order).call_wrapped(primals, series))
        store.append(out_tree)
        return outs

    avals = [core.get_aval(x) for x in flat_in]
    body_jaxpr, _ = trace_to_jaxpr(body, avals, jaxpr.debug_info)
    n_series_in, n_series_out = len(primals_in) * order, len(jaxpr.outvars) * order
    new = dict(params, donated_invars=tuple(params["donated_invars"]) + (False,) * n_series_in)
    if "in_shardings" in params:
        new["in_shardings"] = tuple(params["in_shardings"]) + (UNSPECIFIED,) * n_series_in
        new["out_shardings"] = tuple(params["out_shardings"]) + (UNSPECIFIED,) * n_series_out
    outs = jit_p.bind(*flat_in, jaxpr=body_jaxpr, **new)
    return tree_unflatten(store[-1], outs)


jet_rules[lax.erf_inv_p] = _erf_inv_rule
jet_rules[lax.exp_p] = _exp_rule
jet_rules[lax.pow_p] = _pow_rule
jet_rules[lax.integer_pow_p] = _integer_pow_rule
jet_rules[lax.logistic_p] = _logistic_rule
jet_rules[lax.tanh_p] = _tanh_rule
jet_rules[lax.log_p] = _log_rule
jet_rules[lax.atan2_p] = _atan2_rule
jet_rules[lax.div_p] = _div_rule
jet_rules[lax.sin_p] = partial(_sinusoidal_rule, -1, (lax.sin, lax.cos), 0)
jet_rules[lax.cos_p] = partial(_sinusoidal_rule, -1, (lax.sin, lax.cos), 1)
jet_rules[lax.sinh_p] = partial(_sinusoidal_rule, 1, (lax.sinh, lax.cosh), 0)
jet_rules[lax.cosh_p] = partial(_sinusoidal_rule, 1, (lax.sinh, lax.cosh), 1)
for _p in (lax.dot_general_p, lax.mul_p, lax.conv_general_dilated_p):
    jet_rules[_p] = partial(_bilinear_rule, _p)
jet_rules[lax.gather_p] = _gather_rule
jet_rules[lax.reduce_max_p] = partial(_chooser_rule, lax.reduce_max_p)
jet_rules[lax.reduce_min_p] = partial(_chooser_rule, lax.reduce_min_p)
jet_rules[lax.abs_p] = _abs_rule
jet_rules[lax.select_n_p] = _select_n_rule
jet_rules[lax.max_p] = partial(_extremum_rule, True)
jet_rules[lax.min_p] = partial(_extremum_rule, False)
jet_rules[lax.scatter_add_p] = _scatter_add_series
jet_rules[jit_p] = _jit_rule


__all__ = ["JetTrace", "JetTracer", "ZeroSeries", "ZeroTerm", "call_param_updaters", "def_comp", "def_deriv",
           "deflinear", "defzero", "deriv_prop", "fact", "jet", "jet2", "jet_fun", "jet_rules", "jet_subtrace",
           "linear_prop", "traceable", "zero_prop", "zero_series", "zero_term"]
