"""An eager jax.numpy call's program, as the NumPy backend runs it.

dispatch.py's `Site`s compile the jaxpr of an eager call once per avals and
options (`op by op`: `compile_jaxpr(..., fused=False)`) and then run
`EagerProgram.run` on every call. This module fills that `run`:

- a program over small arrays is specialised (`_specialise`): `jit`
  equations are inlined, equations on literals alone folded once, and when
  one or two equations are left they run as one direct NumPy call
  (`ufunc.reduce`, `ndarray.dot`, `np.where`, or the eval trace's eager
  plan), checked bitwise against the compiled program on the call that
  built it;
- where the compiled program has a native tier (native/), `run` drives it
  (`_tiering`): it counts calls towards the tier, and once the tier is live
  `run` becomes the tier's one-output callable (or stays Python once it is
  dead). jax.numpy sees none of this: it calls `run`.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from pyjax._src import dispatch
from pyjax._src.array import Array
from pyjax._src.jaxpr import Literal
from pyjax._src.jaxpr import Var as _Var
from pyjax._src.jit import jit_p
from pyjax._src.lax import dot as lax_dot
from pyjax._src.lax import elementwise as lax_ew

__all__ = ["fill_eager_program"]

# Specialise only programs whose every value has fewer elements than this:
# below it the backend's impls make exactly the direct calls used here
# (no split across threads, select_n's plain np.where).
_SMALL = 4096


def fill_eager_program(program: dispatch.EagerProgram, closed, compiled, buffers: list) -> None:
    """Sets `program.run` (and `.direct`) for `compiled`, the backend's
    code of the one-output jaxpr `closed`; `buffers` are the inputs of the
    call that built it (the specialisation is checked on them)."""
    program.direct = direct = _specialise(closed, compiled, buffers)
    native = getattr(compiled, "native", None)
    python = direct or _first_output(compiled)
    program.run = python if native is None else _tiering(program, python, native, counts=direct is not None)


def _tiering(program, python, native, counts: bool):
    # `python` until the program's native tier (backends/numpy/native/)
    # is live, then the native code's one-output callable. A direct call
    # (`counts`) reports to the tier itself; the compiled program does so
    # in its own code.
    steps = native.steps_per_call

    def run(*buffers):
        if counts:
            native.run(*buffers)  # (a checked call's native outputs wait in the tier)
        out = python(*buffers)
        if counts:
            native.check(steps, out)
        if native.live or native.dead:
            program.run = native.call1 if native.live and native.call1 is not None else python
        return out

    return run


def _first_output(compiled):
    return lambda *buffers: compiled(*buffers)[0]


# --- specialisation of small programs


_VAR = object()  # in an operand layout: a variable operand (the others are constant buffers)


class _Arg:
    """In a `_Call`'s arguments: the k-th variable operand."""

    __slots__ = ("k",)

    def __init__(self, k: int):
        self.k = k


_ARG = [_Arg(k) for k in range(8)]


class _Call:
    """`fn(*args)`: an argument is an `_Arg`, a nested `_Call` or a constant."""

    __slots__ = ("args", "fn")

    def __init__(self, fn, args: tuple):
        self.fn, self.args = fn, args


def _function(call: _Call, n_inputs: int):
    """`call` as one Python function of the inputs: the bare callable when
    it takes exactly the inputs in order, else generated source that nests
    the calls directly (no lambda per call: ~0.15 us each)."""
    if len(call.args) == n_inputs and all(a is _ARG[k] for k, a in enumerate(call.args)):
        return call.fn
    namespace: dict = {}

    def expr(c) -> str:
        if type(c) is _Arg:
            return f"x{c.k}"
        if type(c) is _Call:
            name = f"f{len(namespace)}"
            namespace[name] = c.fn
            return f"{name}({', '.join(expr(a) for a in c.args)})"
        name = f"c{len(namespace)}"
        namespace[name] = c
        return name

    params = ", ".join(f"x{k}" for k in range(n_inputs))
    body = expr(call)
    namespace["__name__"] = __name__  # (a warning raised in it is pyjax's, not "<string>"'s)
    exec(f"def run({params}):\n    return {body}\n", namespace)  # noqa: S102 (our own source)
    return namespace["run"]


def _bound(fn, layout: tuple) -> _Call:
    # `fn` over the layout's operands: variables numbered in order.
    k = iter(range(len(layout)))
    return _Call(fn, tuple(_ARG[next(k)] if v is _VAR else v for v in layout))


# Primitives whose impl is one ufunc for these output dtype kinds only
# (integer division needs XLA's rounding and division-by-zero rules; float
# division XLA's reciprocals).
_INEXACT_UFUNCS = {(lax_ew.div_p, "c"): np.true_divide}  # (float division: `_division_call`)
_BLAS_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))


def _specialise(closed, compiled, buffers):
    """A direct call computing `closed`'s output from its input buffers, or
    None (the compiled program runs). `jit` equations are inlined and
    literal-only equations folded here; then one or two equations must be
    left, the first reading every input once, in order, the second only the
    first's result. The call is checked against `compiled` on `buffers`
    (the inputs of the call that built it): same dtype, shape and bits, or
    it is not used."""
    jaxpr = closed.jaxpr
    trace = dispatch.eval_trace()
    if any(v.aval.size >= _SMALL for v in (*jaxpr.invars, *jaxpr.outvars)):
        return None
    live: list = []  # (eqn, operands): an operand is a Var (computed per call) or a constant buffer
    env = {v: _buffer(c) for v, c in zip(jaxpr.constvars, closed.consts, strict=True)}
    env.update((v, v) for v in jaxpr.invars)
    if not _flatten(trace, jaxpr, env, live):
        return None
    out = env.get(jaxpr.outvars[0]) if type(jaxpr.outvars[0]) is not Literal else None
    if not 1 <= len(live) <= 2 or out is not live[-1][0].outvars[0]:
        return None
    (eqn, operands), *rest = live
    if [v for v in operands if type(v) is _Var] != list(jaxpr.invars):
        return None
    spec = _direct_call(trace, eqn, operands)
    if rest and spec is not None:
        then_eqn, then_operands = rest[0]
        variables = [v for v in then_operands if type(v) is _Var]
        then = _direct_call(trace, then_eqn, then_operands) if variables == [eqn.outvars[0]] else None
        spec = None if then is None else _Call(then.fn, tuple(spec if a is _ARG[0] else a for a in then.args))
    if spec is None:
        return None
    run = _function(spec, len(jaxpr.invars))
    try:
        with np.errstate(all="ignore"):  # the call being built warns as it runs, not here too
            mine, theirs = run(*buffers), compiled(*buffers)[0]
    except Exception:  # noqa: BLE001  (the compiled program stays in charge)
        return None
    mine, theirs = np.asarray(mine), np.asarray(theirs)
    if mine.dtype != theirs.dtype or mine.shape != theirs.shape or mine.tobytes() != theirs.tobytes():
        return None
    return run


def _flatten(trace, jaxpr, env: dict, live: list) -> bool:
    """Appends `jaxpr`'s equations to `live` with `env` (Var -> Var or
    constant buffer) applied, inlining `jit` bodies and computing
    equations on constants alone at once; False for anything else than
    small single-result equations without effects."""
    for eqn in jaxpr.eqns:
        operands = [_literal(v) if type(v) is Literal else env[v] for v in eqn.invars]
        if eqn.primitive is jit_p:
            body = eqn.params["jaxpr"]
            inner = {v: _buffer(c) for v, c in zip(body.jaxpr.constvars, body.consts, strict=True)}
            inner.update(zip(body.jaxpr.invars, operands, strict=True))
            if not _flatten(trace, body.jaxpr, inner, live):
                return False
            for outer, v in zip(eqn.outvars, body.jaxpr.outvars, strict=True):
                env[outer] = _literal(v) if type(v) is Literal else inner[v]
            continue
        if ((eqn.primitive.multiple_results and len(eqn.outvars) != 1) or eqn.effects
                or any(v.aval.size >= _SMALL for v in eqn.outvars)):
            return False
        if any(type(v) is _Var for v in operands):
            live.append((eqn, operands))
            env[eqn.outvars[0]] = eqn.outvars[0]
            continue
        impl = trace.impls.get(eqn.primitive)
        if impl is None:
            return False
        out = impl(*operands, **eqn.params)
        env[eqn.outvars[0]] = np.asarray(out[0] if eqn.primitive.multiple_results else out, eqn.outvars[0].aval.dtype)
    return True


_FIRST = operator.itemgetter(0)


def _buffer(value):
    return value._value if type(value) is Array else np.asarray(value)


def _literal(literal: Literal):
    # A 0-d array of the literal's dtype: NumPy treats it as that dtype, as
    # compiled code's NumPy scalar, and takes its quickest path for it.
    return np.asarray(literal.val, literal.aval.dtype)


def _direct_call(trace, eqn, operands: list):
    """The NumPy call of `eqn` on its variable operands (in order) with its
    constant operands bound; None when there is none."""
    primitive, params = eqn.primitive, eqn.params
    avals = [v.aval for v in eqn.invars]
    out_aval = eqn.outvars[0].aval
    layout = tuple(_VAR if type(v) is _Var else v for v in operands)
    n_vars = sum(v is _VAR for v in layout)
    impl = trace.impls.get(primitive)
    ufunc = getattr(impl, "reduce_ufunc", None)  # a reduction whose impl is `ufunc.reduce` (impls.py)
    if ufunc is not None and n_vars == 1 and avals[0].ndim and avals[0].size:
        own_dtype = impl.reduce_in_own_dtype
        axes, dtype = params["axes"], avals[0].dtype
        # A float max/min orders its zeros after `ufunc.reduce` (impls.py `reduce_call`).
        reduce = impl.reduce_call if dtype.kind in "fV" and hasattr(impl, "reduce_call") else ufunc.reduce
        # NumPy sums floats in their own dtype anyway; it widens small ints and bools.
        dtype = dtype if own_dtype and dtype.kind not in "fc" else None
        if dtype is None and axes == (0,) and avals[0].ndim == 1:
            return _Call(reduce, (_ARG[0],))  # its defaults: axis 0, NumPy's dtype
        return _Call(reduce, (_ARG[0], axes[0] if len(axes) == 1 else axes, dtype))
    if primitive is lax_dot.dot_general_p and n_vars == 2:
        (lc, rc), (lb, _) = params["dimension_numbers"]
        lhs, rhs = avals
        if (not lb and len(lc) == 1 and lhs.ndim in (1, 2) and rhs.ndim in (1, 2)
                and lc[0] == lhs.ndim - 1 and rc[0] == 0
                and lhs.dtype == rhs.dtype == out_aval.dtype and lhs.dtype in _BLAS_DTYPES):
            return _Call(np.ndarray.dot, (_ARG[0], _ARG[1]))  # as compiled code calls it (`a.dot(b)`)
    if primitive.multiple_results:
        # One result by signature (a sort of one operand): as the impl says it
        # computes that result alone, else the first of the impl's results.
        if impl is None:
            return None
        single = getattr(impl, "single_result", None)
        if single is not None:
            return _bound(functools.partial(single, **params), layout)
        return _Call(_FIRST, (_bound(functools.partial(impl, **params), layout),))
    if primitive is lax_ew.select_n_p and len(layout) == 3 and avals[0].dtype == np.bool_ and avals[0].ndim:
        return _where_call(*layout)
    if primitive is lax_ew.div_p and out_aval.dtype.kind == "f":
        return _division_call(layout, avals, out_aval)
    if len(avals) in (1, 2):
        key = (*avals, *params.values())
        try:  # (the bare plan: a memoised one, or one built for this program alone)
            plan = primitive.eager_plans.get(key) or trace.make_plan(primitive, tuple(avals), params)
        except TypeError:
            return None
        if plan and plan[1] == out_aval:
            call = plan[0] if plan[2] else _INEXACT_UFUNCS.get((primitive, out_aval.dtype.kind))
            if call is not None:
                return _bound(call, layout)
    return None


def _division_call(layout, avals, out_aval):
    # As XLA divides (backends/numpy/xla/rewrite.py): elementwise, a division;
    # by a scalar constant broadcast over the result, a product with its
    # reciprocal. Anything else (a broadcast or full-shape constant divisor,
    # whose treatment depends on whether JAX fuses the equations) is left
    # to the compiled program.
    dividend, divisor = layout
    if dividend is not _VAR:
        return None
    if divisor is _VAR:
        return _Call(np.true_divide, (_ARG[0], _ARG[1])) if avals[1].shape == out_aval.shape else None
    if np.ndim(divisor) or not out_aval.ndim:
        return None
    reciprocal = np.true_divide(np.ones((), out_aval.dtype), divisor)
    return _Call(np.multiply, (_ARG[0], reciprocal))


def _where_call(which, false_case, true_case):
    # select_n(which, false_case, true_case) is np.where(which, true, false).
    if which is not _VAR:
        return None
    k = iter(range(1, 3))
    false_arg = _ARG[next(k)] if false_case is _VAR else false_case
    true_arg = _ARG[next(k)] if true_case is _VAR else true_case
    if false_case is not _VAR and true_case is not _VAR:
        return None
    return _Call(np.where, (_ARG[0], true_arg, false_arg))
