"""Eager key-reuse checking (`jax_debug_key_reuse`, `jax.debug_key_reuse`).

While the option is on, each typed key Array remembers whether it has been
consumed (`Array._consumed`: a bool, or an element mask for key arrays
partly used) and where (`_source_info`). Two places check and update it:

* the eager trace: while the option is on, the default trace is a
  `KeyReuseEvalTrace`, which runs each primitive that declares a
  `key_reuse` signature between `check_signature` and `update_consumption`;
* jit's cache entries (jit.py): an entry traced with the option on holds its
  jaxpr's signature and checks its key arguments on every call.

The analysis itself is interpreters/key_reuse.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyjax._src import config, core
from pyjax._src.core import Primitive
from pyjax._src.dispatch import EvalTrace
from pyjax._src.interpreters import key_reuse
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.jaxpr import Effect
from pyjax._src.lax import batching_util
from pyjax._src.tree_util import tree_flatten, tree_unflatten
from pyjax._src.rules import unimplemented


def _eager_signature(primitive, args, params) -> tuple[key_reuse.KeyReuseSignature, tuple, str]:
    rule = primitive.key_reuse
    if isinstance(rule, key_reuse.KeyReuseSignature):
        return rule, (), primitive.name
    if isinstance(rule, key_reuse.BodySignature):
        body = params[rule.param]
        return key_reuse.jaxpr_type_signature(body), tuple(body.consts), rule.eager_name or primitive.name
    # A rule reads the equation: stage this one call to get it.
    def one_call(*xs):
        out = primitive.bind(*xs, **params)
        return list(out) if primitive.multiple_results else [out]

    jaxpr, _ = trace_to_jaxpr(one_call, [core.get_aval(a) for a in args])
    return key_reuse.jaxpr_type_signature(jaxpr), (), primitive.name


class _KeyReuseChecks:
    """Mixed into the eager trace in force (a plain EvalTrace, or
    jax_enable_checks' CheckingEvalTrace): primitives that declare how they
    use keys are checked against, and update, their key operands; every
    primitive then runs as that trace runs it."""

    def process_primitive(self, primitive, args, params):
        run = super().process_primitive
        if primitive.key_reuse is None or not config.debug_key_reuse.value:
            return run(primitive, args, params)
        signature, consts, funcname = _eager_signature(primitive, args, params)
        return key_reuse.call_checked(signature, funcname, args, consts, lambda: run(primitive, args, params),
                                      primitive.multiple_results)


class KeyReuseEvalTrace(_KeyReuseChecks, EvalTrace):
    """The eager trace while key reuse is checked (over a plain EvalTrace)."""


_checking_classes: dict[type, type] = {EvalTrace: KeyReuseEvalTrace}


def _checking_class(cls: type) -> type:
    # The key-reuse trace over another eager trace (CheckingEvalTrace): the
    # checks first, then that trace's own way of running the primitive.
    if cls not in _checking_classes:
        _checking_classes[cls] = type(f"KeyReuse{cls.__name__}", (_KeyReuseChecks, cls),
                                      {"__doc__": f"Key-reuse checks over {cls.__name__}."})
    return _checking_classes[cls]


_plain_trace: list[EvalTrace | None] = [None]


def _on_change() -> None:
    # Installed while the option is on anywhere; the trace asks the option
    # on every call, so a thread with it off is not checked.
    current = core._default_trace[0]
    if config.debug_key_reuse.value:
        if isinstance(current, EvalTrace) and not isinstance(current, _KeyReuseChecks):
            _plain_trace[0] = current
            cls = _checking_class(type(current))
            checking = cls.__new__(cls)
            checking.__dict__.update(current.__dict__)
            core.set_default_trace(checking)
    elif isinstance(current, _KeyReuseChecks) and _plain_trace[0] is not None:
        core.set_default_trace(_plain_trace[0])


config.debug_key_reuse.add_change_hook(_on_change)


# ---------------------------------------------------------------------------
# Static checks and the helpers JAX's key_reuse module offers


def function_type_signature(fun: Callable[..., Any], *args: Any) -> key_reuse.KeyReuseSignature:
    """The key-reuse signature of `fun` traced on `args` (flattened pytrees);
    raises KeyReuseError where it consumes a key twice."""
    from pyjax._src.api import make_jaxpr

    flat, tree = tree_flatten(args)
    jaxpr = make_jaxpr(lambda *xs: fun(*tree_unflatten(tree, xs)))(*flat)
    return key_reuse.jaxpr_type_signature(jaxpr)


def check_key_reuse(fun: Callable[..., Any], /, *args: Any) -> None:
    """Raises KeyReuseError if `fun`, traced on `args`, consumes a typed PRNG key twice."""
    function_type_signature(fun, *args)


class _ConsumeEffect(Effect):
    """Keeps a `consume` or key assertion from dead-code elimination."""

    def __repr__(self):
        return "KeyConsumption"


_effect = _ConsumeEffect()


def _identity_primitive(name: str) -> Primitive:
    p = Primitive(name)
    p.def_impl(lambda x, **_: x)
    p.def_abstract_eval(lambda aval, **_: aval)
    p.effects_of = lambda params: frozenset({_effect})
    p.declare(sharding_reason="the identity on its operand's type (a key-reuse marker)")
    batching_util.vectorized(p)
    p.def_jvp(unimplemented(""))  # (JAX 0.11 has no JVP rule for these markers either)
    return p


consume_p = _identity_primitive("consume")
consume_p.declare(key_reuse=key_reuse.KeyReuseSignature(key_reuse.Sink(0), key_reuse.Forward(0, 0)))


def consume(key):
    """Marks `key` consumed; returns it (consumed)."""
    return consume_p.bind(key)


class HashableArray:
    """A read-only NumPy array usable as a param: hashed and compared by
    shape, dtype and contents (assert_consumed_value's expected mask)."""

    __slots__ = ("val",)

    def __init__(self, value):
        self.val = np.array(value, copy=True)
        self.val.flags.writeable = False

    def __eq__(self, other):
        return (isinstance(other, HashableArray) and self.val.shape == other.val.shape
                and self.val.dtype == other.val.dtype and bool(np.array_equal(self.val, other.val)))

    def __hash__(self):
        return hash((self.val.shape, self.val.dtype, self.val.tobytes()))

    def __repr__(self):
        return f"HashableArray({self.val!r})"

    def __str__(self):
        return f"HashableArray({self.val})"


def _check_consumed_value(eqn, consumed) -> None:
    expected = eqn.params["value"].val
    if not np.all(consumed == expected):
        if np.all(expected):
            raise AssertionError(f"Expected key to be consumed in {eqn}")
        if not np.any(expected):
            raise AssertionError(f"Expected key to not be consumed in {eqn}")
        raise AssertionError(f"Expected {expected}, got {consumed} in {eqn}")


assert_consumed_value_p = _identity_primitive("assert_consumed_value")
assert_consumed_value_p.declare(key_reuse=key_reuse.FORWARD)
# (read by the analysis: the assertion is about the analysis's own state)
assert_consumed_value_p.check_consumed = _check_consumed_value


def assert_unconsumed(key) -> None:
    """Asserts, when a traced function is checked, that `key` is not consumed here."""
    assert_consumed_value_p.bind(key, value=HashableArray(False))


def assert_consumed(key, value=True) -> None:
    """Asserts, when a traced function is checked, that `key` is consumed here
    (`value`: a boolean mask over a key array's elements)."""
    assert_consumed_value_p.bind(key, value=HashableArray(value))
