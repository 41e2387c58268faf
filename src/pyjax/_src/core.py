"""The tracing core: primitives, bind, traces and tracers.

pyjax is stackless: one context variable holds the current trace, and
`Primitive.bind` hands every operation to it. A trace decides what an
operation means — run it now (the eval trace), record it (staging), push
tangents through it (jvp), move a batch axis through it (batching). A trace
that meets a value that is not one of its own tracers treats it as a
constant; each tracer knows its trace, so values of different traces never
get confused.

    with set_current_trace(trace):   # run user code under `trace`
        out = f(*tracers)

Rules live on the primitive in fixed slots (see rules.py); execution rules
live in the backends, which is why the eval trace is handed its impl table
from above (`set_default_trace`) instead of importing a backend.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Any, Callable

from pyjax._src import config, dtypes, errors
from pyjax._src import avals as avals_mod
from pyjax._src.errors import ShardingTypeError  # noqa: F401  (JAX's home for it: jax._src.core)
from pyjax._src.avals import ShapedArray
from pyjax._src.cache_key import params_storable
from pyjax._src.rules import NOT_DIFFERENTIABLE, NOT_LINEAR, Sentinel, missing_rule_error


# ---------------------------------------------------------------------------
# The current trace: the only global state on the tracing path.

_trace_ctx: ContextVar = ContextVar("pyjax_current_trace", default=None)
_default_trace: list = [None]  # the eval trace, installed once by the dispatch layer
_all_primitives: list = []  # every Primitive made, for set_default_trace to reset their eager plans
_eager_memos: list = []  # other memos of eager plans (see eager_memo)
# The abstract mesh in context when it has an Explicit axis (set by
# sharding/mesh.py on every change of context), else None: then results are
# typed on it where JAX's rules fall back to the context mesh.
typing_mesh: list = [None]
# Called as hook(primitive, impl) by Primitive.def_impl: the dispatch layer
# registers the impl with the default backend (core knows no backend).
_impl_hooks: list = []


def set_default_trace(trace: Trace) -> None:
    """Installs the trace used when no transformation is active (eager).
    The eager plans memoised by the previous one are dropped."""
    _default_trace[0] = trace
    clear_eager_plans()


def clear_eager_plans() -> None:
    """Drops every memoised eager plan (primitives' and jax.numpy's)."""
    for primitive in _all_primitives:
        primitive.eager_plans.clear()
    for memo in _eager_memos:
        memo.clear()


def clear_abstract_eval_memos() -> None:
    """Drops every primitive's memoised abstract evaluations."""
    for primitive in _all_primitives:
        primitive._abstract_eval_cache.clear()
        primitive._typed_eval_cache.clear()


def eager_memo() -> dict:
    """A new dict for memoising eager plans outside a primitive (jax.numpy's
    fast paths); it is cleared with the primitives' plans when the default
    trace changes."""
    memo: dict = {}
    _eager_memos.append(memo)
    return memo


# The trace a transformation made current, or None while evaluating eagerly:
# a bound builtin, as cheap as the check can be (jax.numpy's eager fast
# paths ask it on every call, through dispatch.py).
active_trace: Callable[[], Trace | None] = _trace_ctx.get


def current_trace() -> Trace:
    return _trace_ctx.get() or _default_trace[0]


@contextlib.contextmanager
def set_current_trace(trace: Trace | None):
    token = _trace_ctx.set(trace)
    try:
        yield trace
    finally:
        _trace_ctx.reset(token)


# ---------------------------------------------------------------------------
# Primitives


# The properties a primitive declares (Primitive.declare), and XLA's cost classes.
PROPERTIES = ("elementwise", "broadcasting", "fusible", "cost", "reduction", "body_params", "call_body",
              "effects_of", "key_reuse", "sharding_reason", "abstract_eval_reads_context", "stateful")
COSTS = (None, "cheap", "expensive")


class _NeverStored(dict):
    """A memo that keeps nothing (for `abstract_eval_reads_context`)."""

    def __setitem__(self, key, value) -> None:
        pass


class Primitive:
    """A named operation with its rule slots.

    Semantic rules are stored on the primitive (abstract_eval, jvp, transpose,
    batch); backends keep their own tables keyed by the primitive. Rules of
    single-output primitives return one value; `multiple_results` primitives
    return lists.
    """

    def __init__(self, name: str, *, multiple_results: bool = False):
        self.name = name
        self.multiple_results = multiple_results
        # Properties declared once (`declare`, where the primitive is
        # defined), read by transformations and backends, which derive their
        # tables from them instead of keeping lists of names.
        # `elementwise`: each output element depends only on the operands'
        # elements at its index (rank-0 operands broadcast). `broadcasting`:
        # operands' size-1 axes broadcast too (lax's n-ary rule). `fusible`:
        # XLA's loop fusion fuses a producer into this consumer (None:
        # undeclared). `cost`: "cheap" or "expensive", as XLA's
        # HloInstruction::IsExpensive (None: undeclared). `reduction`: reduces
        # its one operand over the axes in params["axes"]. `body_params`: the
        # params holding jaxprs. `call_body`: for a call primitive, the param
        # holding the jaxpr its equation evaluates on its operands.
        self.elementwise: bool = False
        self.broadcasting: bool = False
        self.fusible: bool | None = None
        self.cost: str | None = None
        self.reduction: bool = False
        self.body_params: tuple[str, ...] = ()
        self.call_body: str | None = None
        self.abstract_eval: Callable | Sentinel | None = None
        # (out, *avals, **params) -> out with its placement: runs beside the
        # abstract eval where an operand's type names a sharding (None: the
        # abstract eval's result stands). Raises ShardingTypeError.
        self.sharding_rule: Callable | None = None
        # Why a primitive has no sharding rule, declared where it is defined
        # (a call, a reference, a collective...; tools/coverage.py shows it).
        self.sharding_reason: str | None = None
        # True where the abstract eval reads context beyond (avals, params).
        self.abstract_eval_reads_context: bool = False
        # True where a result is not a function of (operands, params) alone
        # (XLA's stateful generator): two equal equations are never merged.
        self.stateful: bool = False
        self.jvp: Callable | Sentinel | None = None
        self.transpose: Callable | Sentinel | None = None
        self.batch: Callable | Sentinel | None = None
        # Params JAX leaves out of the jaxpr text, or prints only when set.
        self.pp_hidden: Callable[[str, Any], bool] | None = None
        # params -> the effects of an equation of this primitive (None: none).
        # Staging records them on the equation; dead-code elimination keeps
        # effectful equations whatever their outputs.
        self.effects_of: Callable[[dict], frozenset] | None = None
        # How it treats typed PRNG keys (interpreters/key_reuse.py): a
        # KeyReuseSignature or a rule eqn -> one (None: it consumes every key
        # operand, and eager key-reuse checking leaves it alone).
        self.key_reuse: Any = None
        self._abstract_eval_cache: dict = {}
        self._typed_eval_cache: dict = {}  # (under a context mesh with Explicit axes)
        # The eval trace's memo of eager calls on Arrays: (operand avals...,
        # param values...) -> (call, out_aval, exact). Filled and cleared by
        # dispatch.EvalTrace; hot wrappers read it to skip the trace machinery.
        self.eager_plans: dict = {}
        _all_primitives.append(self)

    def __repr__(self):
        return self.name

    def bind(self, *args, **params):
        return (_trace_ctx.get() or _default_trace[0]).process_primitive(self, args, params)

    def declare(self, **properties) -> Primitive:
        """Declares properties of this primitive (see `PROPERTIES`); returns it."""
        for key, value in properties.items():
            if key not in PROPERTIES:
                raise TypeError(f"unknown primitive property {key!r}; known: {', '.join(PROPERTIES)}")
            if key == "cost" and value not in COSTS:
                raise ValueError(f"cost must be one of {COSTS}, got {value!r}")
            if key == "body_params":
                value = tuple(value)
            if key == "abstract_eval_reads_context" and value:
                # Its result depends on more than (avals, params) — e.g. the
                # named axes' sizes: nothing is memoised.
                self._abstract_eval_cache = _NeverStored()
                self._typed_eval_cache = _NeverStored()
            setattr(self, key, value)
        return self

    # JAX's class attributes that libraries read (jax.extend.core.Primitive).
    call_primitive = False
    map_primitive = False
    ref_primitive = False
    is_effectful = None

    # --- definition helpers, each returns its argument so they stack as decorators
    def def_impl(self, impl: Callable) -> Callable:
        """Defines how the primitive runs eagerly: `impl(*arrays, **params)`
        gets concrete Arrays and returns the result (a list of them for
        `multiple_results`). The default backend runs it, eagerly and inside
        compiled code; `primitive.impl` is then this function."""
        self.impl = impl
        for hook in _impl_hooks:
            hook(self, impl)
        return impl

    def impl(self, *args, **params):
        """Runs the primitive eagerly on concrete values (JAX's `Primitive.impl`)."""
        trace = _default_trace[0]
        token = _trace_ctx.set(trace)
        try:
            return trace.process_primitive(self, args, params)
        finally:
            _trace_ctx.reset(token)

    def bind_with_trace(self, trace: Trace, args, avals_or_params, params: dict | None = None, /):
        """Binds under `trace` instead of the current one: JAX 0.11's
        `(trace, args, avals, params)`, or the older `(trace, args, params)`."""
        if params is None:
            params = avals_or_params
        token = _trace_ctx.set(trace)
        try:
            return trace.process_primitive(self, tuple(args), params)
        finally:
            _trace_ctx.reset(token)

    def def_abstract_eval(self, rule):
        self.abstract_eval = rule
        return rule

    def def_effectful_abstract_eval(self, rule):
        """An abstract evaluation returning `(avals, effects)`. The avals
        fill the abstract_eval slot; pyjax takes an equation's effects from
        `effects_of(params)` instead, so effects returned here are not
        recorded (declare `effects_of` for an effectful primitive)."""
        def abstract_eval(*avals, **params):
            return rule(*avals, **params)[0]

        self.abstract_eval = abstract_eval
        self.effectful_abstract_eval = rule
        return rule

    def def_jvp(self, rule):
        self.jvp = rule
        return rule

    def def_transpose(self, rule):
        self.transpose = rule
        return rule

    def def_batch(self, rule):
        self.batch = rule
        return rule

    def rule(self, slot: str) -> Callable:
        """The rule in `slot`, or JAX's missing-rule error naming this primitive."""
        rule = getattr(self, slot)
        if rule is None or isinstance(rule, Sentinel):
            why = getattr(rule, "why", "")
            if rule is NOT_LINEAR or rule is NOT_DIFFERENTIABLE:
                why = ""
            raise missing_rule_error(slot, self.name, why)
        return rule

    def out_avals(self, avals: tuple, params: dict):
        """Abstract evaluation, memoised on (avals, params): interned avals make
        the lookup an identity hash. Returns an aval, or a list of avals."""
        if typing_mesh[0] is not None:
            return self._out_avals_on_mesh(avals, params, typing_mesh[0])
        try:
            key = (avals, *params.values()) if params else avals
            return self._abstract_eval_cache[key]
        except KeyError:
            out = self.rule("abstract_eval")(*avals, **params)
            if self.sharding_rule is not None and _names_sharding(avals):
                out = _run_sharding_rule(self, out, avals, params)
            # Outputs no buffer can hold are not memoised, so that the eval
            # trace's hit path (which reads this memo) never runs them
            # unchecked; tracing them is fine and merely not memoised.
            # Nor are params holding floats (cache_key.params_storable): their
            # key would equal an int's, and answer for it.
            if not avals_mod.any_too_big(out) and (not params or params_storable(params.values())):
                self._abstract_eval_cache[key] = out
            return out
        except TypeError:  # an unhashable param: no caching
            out = self.rule("abstract_eval")(*avals, **params)
            if self.sharding_rule is not None and _names_sharding(avals):
                out = _run_sharding_rule(self, out, avals, params)
            return out

    def def_sharding_rule(self, rule):
        self.sharding_rule = rule
        return rule

    def _out_avals_on_mesh(self, avals: tuple, params: dict, mesh):
        # Under a context mesh with Explicit axes the sharding rule runs even
        # on operands on no mesh: JAX types some results (n-ary ops, iota,
        # broadcast_in_dim, ...) on the context mesh. Memoised apart, per mesh.
        try:
            key = (mesh, avals, *params.values())
            return self._typed_eval_cache[key]
        except KeyError:
            pass
        except TypeError:
            key = None
        out = self.rule("abstract_eval")(*avals, **params)
        if self.sharding_rule is not None:
            out = _run_sharding_rule(self, out, avals, params)
        if key is not None and not avals_mod.any_too_big(out) and (not params or params_storable(params.values())):
            self._typed_eval_cache[key] = out
        return out


def _run_sharding_rule(primitive, out, avals, params):
    # A one-result rule whose placement names a mesh axis twice: JAX's
    # "illegally sharded result" error (sharding_rules.with_spec marks it).
    try:
        return primitive.sharding_rule(out, *avals, **params)
    except Exception as e:  # noqa: BLE001  (DuplicateSpecError, marked with the entries)
        entries = getattr(e, "entries", None)
        if entries is None or primitive.multiple_results:
            raise
        dims = ",".join(f"{d}" if a is None else f"{d}@{a}" if isinstance(a, str) else f"{d}@({','.join(a)})"
                        for d, a in zip(out.shape, entries))
        raise ShardingTypeError(
            f"{primitive.name} operation with inputs: {', '.join(a.str_short(True) for a in avals)} produces an "
            f"illegally sharded result: {out.str_short(True).split('[')[0]}[{dims}]") from e


def _names_sharding(avals) -> bool:
    # Whether an operand's type names a placement (only then do sharding rules run).
    for a in avals:
        if getattr(a, "sharding", None) is not None:
            return True
    return False


# ---------------------------------------------------------------------------
# Traces and tracers


class Trace:
    """Gives primitives their meaning. Subclasses implement process_primitive
    and, for higher-order primitives, the hooks they need."""

    def process_primitive(self, primitive: Primitive, args: tuple, params: dict):
        raise NotImplementedError

    def is_valid(self) -> bool:
        return getattr(self, "valid", True)

    # JAX 0.11's remaining Trace API, which libraries call.
    def invalidate(self) -> None:
        self.valid = False

    def full_raise(self, x):
        return x

    @property
    def main(self):
        """The trace's tag (JAX keeps `main` as the tag's old name)."""
        return getattr(self, "tag", None)


class Tracer:
    """A stand-in for an array while a function is being traced.

    Carries an aval and its trace. Operators and array methods are installed
    by the numpy layer (the same set as on Array); conversions to concrete
    Python values raise the tracer errors of `pyjax.errors`.
    """

    __slots__ = ("_trace", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, trace: Trace, aval: ShapedArray | None = None):
        # (pyjax's tracers set their own fields; this is JAX's constructor,
        # for a library's Tracer subclass, which has a __dict__ for the aval.)
        self._trace = trace
        if aval is not None:
            self._jax_aval = aval

    @property
    def aval(self) -> ShapedArray:
        aval = getattr(self, "_jax_aval", None)
        if aval is None:
            raise NotImplementedError(f"{type(self).__name__} defines no aval")
        return aval

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    def __len__(self):
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __bool__(self):
        raise errors.TracerBoolConversionError(self)

    def __int__(self):
        raise errors.ConcretizationTypeError(self, f"The problem arose with the `int` function. ")

    def __float__(self):
        raise errors.ConcretizationTypeError(self, f"The problem arose with the `float` function. ")

    def __complex__(self):
        raise errors.ConcretizationTypeError(self, f"The problem arose with the `complex` function. ")

    def __index__(self):
        raise errors.TracerIntegerConversionError(self)

    def __array__(self, *args, **kwargs):
        raise errors.TracerArrayConversionError(self)

    def __hash__(self):
        raise TypeError(f"unhashable type: '{type(self).__name__}'")

    def item(self, *args):
        raise errors.ConcretizationTypeError(self, "The problem arose with the `item` function. ")

    def tolist(self):
        raise errors.ConcretizationTypeError(self, "The problem arose with the `tolist` function. ")

    def __repr__(self):
        return f"{type(self).__name__}<{self.aval}>"

    def __setitem__(self, index, value):
        setter = getattr(self.aval, "_setitem", None)
        if setter is not None:  # a traced mutable array reference (jax.Ref) writes through its aval
            return setter(self, index, value)
        raise TypeError(
            f"'{type(self).__name__}' object does not support item assignment. JAX arrays are "
            "immutable. Instead of ``x[idx] = y``, use ``x = x.at[idx].set(y)`` or another "
            ".at[] method: https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html"
        )

    def full_lower(self):
        return self


def trace_state_clean() -> bool:
    """Whether no transformation is being traced (the eval trace is current):
    libraries check it before touching global state."""
    trace = _trace_ctx.get()
    return trace is None or trace is _default_trace[0]


def get_aval(x) -> ShapedArray:
    """The aval of an Array, a tracer, a NumPy value or a Python scalar."""
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval
    return concrete_aval(x)


_scalar_avals: dict = {}


def python_scalar_aval(tx: type) -> ShapedArray:
    """The aval of a Python bool/int/float/complex under the current config."""
    key = (tx, config.trace_context_id())
    aval = _scalar_avals.get(key)
    if aval is None:
        dtype = dtypes.canonicalize_dtype(dtypes.python_scalar_types_to_dtypes[tx])
        aval = _scalar_avals[key] = ShapedArray((), dtype, tx is not bool)
    return aval


def concrete_aval(x) -> ShapedArray:
    """The aval of a concrete value: Python scalars are weakly typed (except
    bool), NumPy values are not; dtypes are canonicalized (x64 off: 32 bits)."""
    tx = type(x)
    if tx in dtypes.python_scalar_types_to_dtypes:
        return python_scalar_aval(tx)
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        raise TypeError(f"Value {x!r} of type {tx} is not a valid JAX type")
    return ShapedArray(getattr(x, "shape", ()), dtypes.canonicalize_array_dtype(dtype), False)
