"""`jax.experimental.checkify`: runtime checks turned into values.

`checkify(f, errors)` traces `f` to a jaxpr, then evaluates that jaxpr under
the current trace (eager, jit, vmap, autodiff) while threading an error
state: a boolean "failed", the code of the first failing site, and the
formatting payload of each site. Sites are `check` equations (user checks)
and, as `errors` asks, primitives producing a NaN from NaN-free inputs
(nan_checks), integer division by zero (div_checks) and out-of-bounds
gather indices (index_checks). Calls are inlined; scan and while carry the
state through their bodies, cond returns it from each branch. The result is
an `Error` (a pytree: jit can return it, vmap batches it) and `f`'s outputs.

A site is identified by its equation, so a body traced twice (once to find
its sites, once for real) names the same sites; the first failing site wins.
"""

from __future__ import annotations

import contextvars
import dataclasses
from typing import Any, Callable

import numpy as np

from pyjax._src import core
from pyjax._src.core import Primitive
from pyjax._src.errors import JaxRuntimeError
from pyjax._src.interpreters import batching
from pyjax._src.jaxpr import Effect, Jaxpr, Literal, eval_jaxpr
from pyjax._src.tree_util import register_pytree_node, tree_flatten, tree_unflatten

__all__ = ["DivisionByZeroError", "Error", "ErrorCategory", "FailedCheckError", "debug_check", "init_error", "JaxRuntimeError", "NaNError", "OOBError",
           "all_checks", "check", "check_error", "checkify", "div_checks", "float_checks", "index_checks",
           "nan_checks", "user_checks"]


class JaxException(Exception):
    """The base of the error kinds checkify can find."""


class FailedCheckError(JaxException):
    """A user's `check` whose predicate was False."""


class NaNError(JaxException):
    """A primitive produced a NaN from NaN-free inputs."""


class DivisionByZeroError(JaxException):
    """An integer division or remainder by zero."""


class OOBError(JaxException):
    """An index out of bounds in a gather."""


user_checks = frozenset({FailedCheckError})
nan_checks = frozenset({NaNError})
div_checks = frozenset([DivisionByZeroError])
index_checks = frozenset({OOBError})
float_checks = nan_checks | div_checks
automatic_checks = index_checks | float_checks
all_checks = automatic_checks | user_checks


class ErrorEffect(Effect):
    """The effect of a `check`: kept by DCE until checkify functionalizes it."""

    def __str__(self) -> str:
        return "Error"


error_effect = ErrorEffect()

# Set while checkify traces a function: a `check` may then be staged.
_functionalizing: contextvars.ContextVar = contextvars.ContextVar("checkify_functionalizing", default=False)


# ---------------------------------------------------------------------------
# check and its primitive

check_p = Primitive("check", multiple_results=True)
check_p.declare(sharding_reason='a check with no results (checkify)')
check_p.effects_of = lambda params: frozenset({error_effect})


@check_p.def_abstract_eval
def _check_abstract_eval(pred, *fmt_avals, msg, fmt_tree):
    return []


def _refuse_unfunctionalized() -> None:
    # A check staged outside checkify could never report (JAX's error).
    from pyjax._src.interpreters.staging import DynamicJaxprTrace

    if not _functionalizing.get() and isinstance(core.current_trace(), DynamicJaxprTrace):
        raise ValueError(
            "Cannot abstractly evaluate a checkify.check which was not functionalized. This probably means "
            "you tried to stage (jit/scan/pmap/...) a `check` without functionalizing it through "
            "`checkify.checkify`.")


def _format(msg: str, fmt_tree, values) -> str:
    args, kwargs = tree_unflatten(fmt_tree, list(values))
    return msg.format(*args, **kwargs) + " (`check` failed)"


def check_impl(pred, *fmt_args, msg, fmt_tree) -> list:
    """Eagerly (outside checkify): raises at once when the predicate is False."""
    if not np.all(np.asarray(pred)):
        raise JaxRuntimeError(_format(msg, fmt_tree, [_host(a) for a in fmt_args]))
    return []


def _check_jvp(primals, tangents, **params):
    return check_p.bind(*primals, **params), []


def _check_batch(axis_data, args, dims, **params):
    from pyjax._src.lax.batching_util import moveaxis

    moved = [x if d is batching.not_mapped else moveaxis(x, d, 0) for x, d in zip(args, dims, strict=True)]
    return check_p.bind(*moved, **params), []


check_p.def_jvp(_check_jvp)
check_p.def_transpose(lambda cts, *args, **params: [None] * len(args))
check_p.def_batch(_check_batch)


def _host(value):
    from pyjax._src.array import device_put_numpy

    return device_put_numpy(np.asarray(value))


def _check_scalar_pred(pred: Any, name: str) -> None:
    # JAX's condition: a Python bool, or a boolean array of shape ().
    if isinstance(pred, bool):
        return
    shape, dtype = getattr(pred, "shape", None), getattr(pred, "dtype", None)
    if shape != () or dtype != np.dtype(bool):
        raise TypeError(f"{name} takes a scalar pred as argument, got {pred}")


def check(pred: Any, msg: str, *fmt_args: Any, **fmt_kwargs: Any) -> None:
    """Checks that `pred` is True; under :func:`checkify` a False one becomes
    an :class:`Error` formatted from ``msg.format(*fmt_args, **fmt_kwargs)``.

    Outside checkify, eagerly, a False predicate raises JaxRuntimeError at
    once; staged outside checkify, `check` raises ValueError (JAX's).

    Args:
      pred: a boolean scalar.
      msg: the message, a ``str.format`` template.
      *fmt_args, **fmt_kwargs: arrays (pytrees of arrays) the message formats.
    """
    from pyjax._src.array import Array

    _check_scalar_pred(pred, "check")
    leaves, fmt_tree = tree_flatten((fmt_args, fmt_kwargs))
    for leaf in leaves:
        if not isinstance(leaf, (Array, core.Tracer, np.ndarray, np.generic)):
            raise TypeError("Formatting arguments to checkify.check need to be PyTrees of arrays, but got "
                            f"{leaf!r} of type {type(leaf)}.")
    from pyjax._src.lax._standard import as_array

    _refuse_unfunctionalized()
    check_p.bind(as_array(pred), *[as_array(x) for x in leaves], msg=msg, fmt_tree=fmt_tree)


# ---------------------------------------------------------------------------
# The error value


@dataclasses.dataclass(frozen=True)
class _Site:
    """A place that may fail: its kind and what formats its message."""

    kind: type
    text: str  # a check's template, the primitive's name, or the operand's shape
    fmt_tree: Any = None


class Error:
    """What checkify found: whether a check failed, which one first, and
    the values its message formats. A pytree (jit returns it, vmap batches it)."""

    def __init__(self, pred, code, payloads: dict, sites: dict):
        self._pred, self._code, self._payload, self._metadata = pred, code, payloads, sites

    def _message(self, code: int, payload) -> str:
        site = self._metadata[code]
        values = [np.asarray(v) for v in payload]
        if site.kind is FailedCheckError:
            return _format(site.text, site.fmt_tree, [_host(v) for v in values])
        if site.kind is NaNError:
            return f"nan generated by primitive: {site.text}."
        if site.kind is DivisionByZeroError:
            return "division by zero"
        index, axis, size = (int(v) for v in values)
        return (f"out-of-bounds indexing for array of shape {site.text}: index {index} is out of bounds "
                f"for axis {axis} with size {size}. ")

    def get(self) -> str | None:
        """The message of the first failed check, or None. Under vmap, one
        line per failing example (``at mapped index i: ...``)."""
        if not self._metadata:
            return None
        pred, code = np.asarray(self._pred), np.asarray(self._code)
        if pred.ndim == 0:
            if not pred:
                return None
            c = int(code)
            return self._message(c, self._payload[c])
        lines = []
        for idx in zip(*np.nonzero(pred)):
            c = int(code[idx])
            payload = [np.asarray(v)[idx] for v in self._payload[c]]
            where = ", ".join(map(str, idx))
            lines.append(f"at mapped index {where}: {self._message(c, payload)}")
        return "\n".join(lines) if lines else None

    def get_exception(self) -> JaxException | None:
        """The first failure as an exception of its kind, or None."""
        message = self.get()
        if message is None:
            return None
        kind = self._metadata[int(np.asarray(self._code).ravel()[np.argmax(np.asarray(self._pred).ravel())])].kind
        return kind(message)

    def throw(self) -> None:
        """Raises JaxRuntimeError with the message when a check failed."""
        message = self.get()
        if message is not None:
            raise JaxRuntimeError(message)

    def __repr__(self) -> str:
        return f"Error({self.get()})" if self._metadata else "Error(_pred={}, _code={}, _metadata={}, _payload={})"

    __str__ = __repr__


def _error_flatten(err: Error):
    codes = sorted(err._payload)
    leaves = [err._pred, err._code] + [v for c in codes for v in err._payload[c]]
    shape = tuple((c, len(err._payload[c])) for c in codes)
    return leaves, (shape, tuple(sorted(err._metadata.items(), key=lambda kv: kv[0])))


def _error_unflatten(aux, leaves) -> Error:
    shape, sites = aux
    it = iter(leaves)
    pred, code = next(it), next(it)
    payloads = {c: tuple(next(it) for _ in range(n)) for c, n in shape}
    return Error(pred, code, payloads, dict(sites))


register_pytree_node(Error, _error_flatten, _error_unflatten)


# ---------------------------------------------------------------------------
# The transformation

class _State:
    """The error state being threaded: pred, code, and each site's payload.
    `codes` maps a site's key (its equation, its kind) to its code."""

    def __init__(self, codes: dict, sites: dict, pred, code, payloads: dict):
        self.codes, self.sites = codes, sites
        self.pred, self.code, self.payloads = pred, code, payloads

    def leaves(self) -> list:
        return [self.pred, self.code] + [v for c in sorted(self.payloads) for v in self.payloads[c]]

    def with_leaves(self, leaves) -> _State:
        it = iter(leaves)
        pred, code = next(it), next(it)
        payloads = {c: tuple(next(it) for _ in self.payloads[c]) for c in sorted(self.payloads)}
        return _State(self.codes, self.sites, pred, code, payloads)

    def fail(self, key, site: _Site, failed, payload: tuple) -> None:
        """Records that the site `key` fails where `failed` is True (first failure wins)."""
        from pyjax import lax

        c = self.codes.setdefault(key, len(self.codes))
        self.sites[c] = site
        first = lax.bitwise_and(failed, lax.bitwise_not(self.pred))
        self.code = lax.select(first, np.int32(c), self.code)
        self.pred = lax.bitwise_or(self.pred, failed)
        old = self.payloads.get(c)
        if old is None:
            self.payloads[c] = tuple(payload)
        else:
            self.payloads[c] = tuple(lax.select(first, new, prev)
                                     for new, prev in zip(payload, old, strict=True))

    def with_payloads_for(self, payload_avals: dict) -> _State:
        """The state with zeros for sites it has not met yet (a body's)."""
        from pyjax import lax

        payloads = dict(self.payloads)
        for c, avals in payload_avals.items():
            if c not in payloads:
                payloads[c] = tuple(lax.full(a.shape, 0, a.dtype) for a in avals)
        return _State(self.codes, self.sites, self.pred, self.code, payloads)


def _reduce_any(x):
    from pyjax import lax

    return lax.reduce_or(x, tuple(range(np.ndim(x)))) if np.ndim(x) else x


def _auto_checks(state: _State, eqn, ins, outs, errors) -> None:
    from pyjax import lax

    name = eqn.primitive.name
    if NaNError in errors:
        floats = [o for o in outs if np.dtype(core.get_aval(o).dtype).kind in "fc"]
        if floats:
            out_nan = _any_of([_reduce_any(lax.ne(o, o)) for o in floats])
            in_floats = [x for x in ins if np.dtype(core.get_aval(x).dtype).kind in "fc"]
            in_nan = _any_of([_reduce_any(lax.ne(x, x)) for x in in_floats]) if in_floats else None
            failed = out_nan if in_nan is None else lax.bitwise_and(out_nan, lax.bitwise_not(in_nan))
            state.fail((id(eqn), NaNError), _Site(NaNError, name), failed, ())
    if DivisionByZeroError in errors and name in ("div", "rem"):
        divisor = ins[1]
        if np.dtype(core.get_aval(divisor).dtype).kind in "iu":
            failed = _reduce_any(lax.eq(divisor, lax.full_like(divisor, 0)))
            state.fail((id(eqn), DivisionByZeroError), _Site(DivisionByZeroError, name), failed, ())
    if OOBError in errors and name == "gather":
        _gather_oob(state, eqn, ins)
    if OOBError in errors and name == "dynamic_slice":
        _dynamic_slice_oob(state, eqn, ins)


def _any_of(flags):
    from pyjax import lax

    out = flags[0]
    for f in flags[1:]:
        out = lax.bitwise_or(out, f)
    return out


def _gather_oob(state: _State, eqn, ins) -> None:
    from pyjax import lax

    operand, indices = ins[0], ins[1]
    shape = core.get_aval(operand).shape
    dnums, sizes = eqn.params["dimension_numbers"], eqn.params["slice_sizes"]
    for j, axis in enumerate(dnums.start_index_map):
        idx = lax.index_in_dim(indices, j, axis=np.ndim(indices) - 1, keepdims=False)
        _index_check(state, (id(eqn), OOBError, j), shape, axis, idx, shape[axis] - sizes[axis])


def _dynamic_slice_oob(state: _State, eqn, ins) -> None:
    operand, starts = ins[0], ins[1:]
    shape = core.get_aval(operand).shape
    for axis, (idx, size) in enumerate(zip(starts, eqn.params["slice_sizes"], strict=True)):
        _index_check(state, (id(eqn), OOBError, axis), shape, axis, idx, shape[axis] - size)


def _index_check(state: _State, key, shape, axis: int, idx, upper: int) -> None:
    # Fails where an index is outside [0, upper]; the payload is the first
    # such index, the axis and its size (JAX's message).
    from pyjax import lax

    idx = lax.convert_element_type(idx, np.int32)
    bad = lax.bitwise_or(lax.lt(idx, np.int32(0)), lax.gt(idx, np.int32(upper)))
    size = int(np.prod(np.shape(bad)))
    if size == 0:
        return
    flat_bad, flat_idx = lax.reshape(bad, (size,)), lax.reshape(idx, (size,))
    first = lax.argmax(lax.convert_element_type(flat_bad, np.int32), 0, np.int32)
    value = lax.dynamic_index_in_dim(flat_idx, first, keepdims=False)
    payload = (value, lax.full((), axis, np.int32), lax.full((), shape[axis], np.int32))
    state.fail(key, _Site(OOBError, str(tuple(shape))), _reduce_any(bad), payload)


def _checkify_jaxpr(jaxpr: Jaxpr, consts, args, state: _State, errors) -> list:
    """Evaluates `jaxpr` under the current trace, recording failures in `state`."""
    env: dict = dict(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))
    read = lambda v: v.val if type(v) is Literal else env[v]  # noqa: E731
    for eqn in jaxpr.eqns:
        ins = [read(v) for v in eqn.invars]
        outs = _checkify_eqn(eqn, ins, state, errors)
        env.update(zip(eqn.outvars, outs, strict=True))
    return [read(v) for v in jaxpr.outvars]


def _checkify_eqn(eqn, ins, state: _State, errors) -> list:
    from pyjax import lax

    p = eqn.primitive
    if p is check_p:
        if FailedCheckError in errors:
            failed = _reduce_any(lax.bitwise_not(ins[0]))
            state.fail((id(eqn), FailedCheckError), _Site(FailedCheckError, eqn.params["msg"],
                                                          eqn.params["fmt_tree"]), failed, tuple(ins[1:]))
        return []
    if p.call_body is not None:  # jit, remat, custom_jvp/vjp calls, ...: inlined
        body = eqn.params[p.call_body]
        return _checkify_jaxpr(body, body.consts, ins, state, errors)
    if p.name == "scan":
        return _checkify_scan(eqn, ins, state, errors)
    if p.name == "while":
        return _checkify_while(eqn, ins, state, errors)
    if p.name == "cond":
        return _checkify_cond(eqn, ins, state, errors)
    outs = p.bind(*ins, **eqn.params)
    outs = list(outs) if p.multiple_results else [outs]
    _auto_checks(state, eqn, ins, outs, errors)
    return outs


def _discover(run: Callable, state: _State, example_args) -> dict:
    """The payload avals of the sites `run(state, *args)` meets (traced
    aside, not kept): a body's sites must be in the carry from the start."""
    from pyjax._src.api import make_jaxpr

    found: dict = {}

    def probe(*args):
        probe_state = _State(state.codes, state.sites, state.pred, state.code, dict(state.payloads))
        run(probe_state, *args)
        for c, payload in probe_state.payloads.items():
            found[c] = tuple(core.get_aval(v) for v in payload)
        return []

    avals = [core.get_aval(a) for a in example_args]
    token = _functionalizing.set(True)
    try:
        make_jaxpr(probe)(*[np.zeros(a.shape, a.dtype) for a in avals])
    finally:
        _functionalizing.reset(token)
    return found


def _checkify_scan(eqn, ins, state: _State, errors) -> list:
    from pyjax._src.lax.control_flow import scan

    params = eqn.params
    body = params["jaxpr"]
    n_consts, n_carry, _ = (len(group) for group in params["ft_in"].unpack())
    consts, carry, xs = ins[:n_consts], ins[n_consts:n_consts + n_carry], ins[n_consts + n_carry:]

    def run(st, *vals):
        return _checkify_jaxpr(body, body.consts, [*consts, *vals], st, errors)

    example = [*carry, *[_first(x) for x in xs]]
    full = state.with_payloads_for(_discover(run, state, example))

    def step(carry_ext, x):
        err_leaves, c = carry_ext
        st = full.with_leaves(err_leaves)
        outs = run(st, *c, *x)
        return (st.leaves(), outs[:n_carry]), outs[n_carry:]

    (err_leaves, carry_out), ys = scan(step, (full.leaves(), list(carry)), list(xs), length=params["length"],
                                       reverse=params["reverse"], unroll=params["unroll"])
    _adopt(state, full.with_leaves(err_leaves))
    return [*carry_out, *ys]


def _first(x):
    from pyjax import lax

    return lax.index_in_dim(x, 0, keepdims=False)


def _adopt(state: _State, new: _State) -> None:
    state.pred, state.code, state.payloads = new.pred, new.code, new.payloads


def _checkify_while(eqn, ins, state: _State, errors) -> list:
    from pyjax._src.lax.control_flow import while_loop

    params = eqn.params
    cond_j, body_j = params["cond_jaxpr"], params["body_jaxpr"]
    nc, nb = params["cond_nconsts"], params["body_nconsts"]
    cond_consts, body_consts, init = ins[:nc], ins[nc:nc + nb], ins[nc + nb:]

    def run(st, *vals):
        return _checkify_jaxpr(body_j, body_j.consts, [*body_consts, *vals], st, errors)

    full = state.with_payloads_for(_discover(run, state, init))

    def cond_fun(carry_ext):
        return eval_jaxpr(cond_j, cond_j.consts, *cond_consts, *carry_ext[1])[0]

    def body_fun(carry_ext):
        st = full.with_leaves(carry_ext[0])
        outs = run(st, *carry_ext[1])
        return st.leaves(), list(outs)

    err_leaves, outs = while_loop(cond_fun, body_fun, (full.leaves(), list(init)))
    _adopt(state, full.with_leaves(err_leaves))
    return list(outs)


def _checkify_cond(eqn, ins, state: _State, errors) -> list:
    from pyjax._src.lax.control_flow import switch

    branches = eqn.params["branches"]
    index, ops = ins[0], ins[1:]
    runs = [(lambda st, *vals, b=b: _checkify_jaxpr(b, b.consts, list(vals), st, errors)) for b in branches]
    found: dict = {}
    for run in runs:
        found.update(_discover(run, state, ops))
    full = state.with_payloads_for(found)

    def branch(run):
        def taken(err_leaves, vals):
            st = full.with_leaves(err_leaves)
            outs = run(st, *vals)
            return st.leaves(), list(outs)
        return taken

    err_leaves, outs = switch(index, [branch(r) for r in runs], full.leaves(), list(ops))
    _adopt(state, full.with_leaves(err_leaves))
    return list(outs)


def checkify(f: Callable, errors: frozenset = user_checks) -> Callable[..., tuple[Error, Any]]:
    """Functionalizes the checks of `f`: the returned function gives
    ``(error, out)`` instead of raising.

    Args:
      f: the function to check; it may call :func:`check`, jit, vmap, grad,
        scan, while_loop and cond.
      errors: which failures to look for: a union of ``user_checks``,
        ``nan_checks``, ``div_checks``, ``index_checks`` (``float_checks``,
        ``all_checks``).

    Returns:
      A function of `f`'s arguments returning an :class:`Error` and `f`'s outputs.

    Example:
      >>> def f(x):
      ...   checkify.check(x > 0, "x must be positive, got {}", x)
      ...   return jnp.log(x)
      >>> err, out = checkify.checkify(f)(jnp.float32(-1.0))
      >>> err.get()
      'x must be positive, got -1.0 (`check` failed)'
    """
    from pyjax._src.api import make_jaxpr

    def checked(*args, **kwargs):
        flat, in_tree = tree_flatten((args, kwargs))
        out_tree_box: list = []

        def flat_fun(*leaves):
            a, k = tree_unflatten(in_tree, list(leaves))
            out_leaves, out_tree = tree_flatten(f(*a, **k))
            out_tree_box.append(out_tree)
            return out_leaves

        token = _functionalizing.set(True)
        try:
            closed = make_jaxpr(flat_fun)(*flat)
        finally:
            _functionalizing.reset(token)
        state = _State({}, {}, np.bool_(False), np.int32(-1), {})
        outs = _checkify_jaxpr(closed.jaxpr, closed.consts, flat, state, errors)
        return Error(state.pred, state.code, state.payloads, dict(state.sites)), tree_unflatten(out_tree_box[-1],
                                                                                                 outs)

    return checked


ErrorCategory = type  # the kinds of errors: subclasses of JaxException (JAX's type[JaxException])

init_error = Error(np.bool_(False), np.int32(-1), {}, {})  # no error (the start of a functionalized program)


def debug_check(pred: Any, msg: str, *fmt_args: Any, **fmt_kwargs: Any) -> None:
    """Like :func:`check` under :func:`checkify`; elsewhere it does nothing
    (neither raises eagerly nor refuses to be staged)."""
    _check_scalar_pred(pred, "debug_check")
    if _functionalizing.get():
        check(pred, msg, *fmt_args, **fmt_kwargs)


def check_error(error: Error) -> None:
    """Raises `error`'s failure (eagerly), or re-stages it as a check under checkify."""
    error.throw()
