"""Jaxpr -> StableHLO module: the walk over equations and the rule table.

`LOWERINGS[primitive]` is the primitive's lowering rule, called as
`rule(ctx, *operands, **params)` with the operands already lowered (a
literal becomes a `stablehlo.constant` at its use, as in JAX); it emits ops
through `ctx.b` (a `Builder`) and returns the list of result values.
`NOT_LOWERED[primitive]` is the declared reason a primitive has no rule.
`register_lowering` is the public way in (jax.interpreters.mlir wraps it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.backends.stablehlo.builder import Builder
from pyjax._src.backends.stablehlo.ir import TOKEN, Module, TensorType, Value
from pyjax._src.backends.stablehlo.sharding import constrain_outputs
from pyjax._src.jaxpr import Jaxpr, Literal

LOWERINGS: dict[core.Primitive, Callable] = {}
NOT_LOWERED: dict[core.Primitive, str] = {}


def register_lowering(prim: core.Primitive, rule: Callable) -> None:
    """Registers `rule(ctx, *operands, **params) -> list[Value]` as how
    `prim` lowers to StableHLO."""
    LOWERINGS[prim] = rule
    NOT_LOWERED.pop(prim, None)


def lowering(*prims: core.Primitive) -> Callable:
    """Decorator form of `register_lowering` for one or more primitives."""

    def wrap(rule):
        for prim in prims:
            register_lowering(prim, rule)
        return rule

    return wrap


def declare_not_lowered(reason: str, *prims: core.Primitive) -> None:
    """Records why these primitives have no StableHLO rule (the coverage
    table prints the reason's tag)."""
    for prim in prims:
        if prim not in LOWERINGS:
            NOT_LOWERED[prim] = reason


class LoweringError(NotImplementedError):
    """A primitive without a StableHLO lowering rule."""


def aval_type(aval) -> TensorType:
    """The tensor type of an aval; a PRNG key array is its key data
    (`key<fry>[3]` is `tensor<3x2xui32>`)."""
    from pyjax._src.tokens import AbstractToken

    if isinstance(aval, AbstractToken):
        return TOKEN
    dtype = aval.dtype
    impl = getattr(dtype, "_impl", None)
    if impl is not None:
        shape = tuple(aval.shape) + tuple(impl.key_shape)
        return TensorType(shape, np.uint32)
    if isinstance(dtype, dtypes.ExtendedDType):  # (another extended dtype: its representation type)
        rep = dtype._rules.physical_element_aval(dtype)
        return TensorType(tuple(aval.shape) + tuple(rep.shape), rep.dtype)
    return TensorType(aval.shape, dtype)


class ModuleContext:
    """What one module's lowering shares: the module and the functions
    already lowered (a jaxpr lowered once is called again, as JAX caches
    its lowerings)."""

    def __init__(self, module: Module, host_callbacks: bool = True):
        self.module = module
        self.func_cache: dict = {}
        self.host_callbacks = host_callbacks  # whether host callbacks may lower (not for IREE)
        self.callback_index = 0  # each host callback's index in the module, in lowering order
        self.global_constant_args = False  # (functions called by export's @main: arguments jax.global_constant = "")
        # False for IREE 3.13, whose `select_and_scatter` rejects overlapping windows and breaks ties unlike XLA
        self.select_and_scatter_op = True
        self.shardings = True  # Shardy annotations of sharded types (sharding.py); False for IREE


def ordered_effects(effects) -> list:
    """The ordered effects among `effects`, in pyjax's fixed order (by name;
    JAX's order is its set's), each threaded through a `!stablehlo.token`."""
    from pyjax._src.debugging import OrderedDebugEffect
    from pyjax._src.effects import OrderedIOEffect

    return sorted((e for e in effects if isinstance(e, (OrderedDebugEffect, OrderedIOEffect))), key=str)


class RuleContext:
    """A rule's view: the builder, the module, and the equation's avals."""

    __slots__ = ("mod", "b", "avals_in", "avals_out", "eqn", "tokens")

    def __init__(self, mod: ModuleContext, b: Builder, eqn, tokens: dict | None = None):
        self.mod = mod
        self.b = b
        self.eqn = eqn
        self.tokens = tokens if tokens is not None else {}  # ordered effect -> its current token (updated in place)
        self.avals_in = [v.aval for v in eqn.invars]
        self.avals_out = [v.aval for v in eqn.outvars]

    @property
    def out_types(self) -> list[TensorType]:
        return [aval_type(a) for a in self.avals_out]

    def with_builder(self, b: Builder) -> RuleContext:
        ctx = RuleContext.__new__(RuleContext)
        ctx.mod, ctx.b, ctx.eqn, ctx.avals_in, ctx.avals_out = self.mod, b, self.eqn, self.avals_in, self.avals_out
        ctx.tokens = self.tokens
        return ctx


def literal_value(b: Builder, lit: Literal) -> Value:
    aval = lit.aval
    return b.constant(np.asarray(lit.val, dtype=aval.dtype).reshape(aval.shape))


def const_value(b: Builder, value, aval) -> Value:
    impl = getattr(aval.dtype, "_impl", None)
    if impl is not None:  # a key array constant: its key data
        from pyjax._src.random import keys

        value = keys.key_data_of(value) if hasattr(keys, "key_data_of") else np.asarray(value._base_array)
        return b.constant(np.asarray(value, np.uint32))
    return b.constant(np.asarray(value, dtype=aval.dtype))


def lower_jaxpr(mod: ModuleContext, b: Builder, jaxpr: Jaxpr, args: Sequence[Value],
                consts: Sequence[Value] | None = None, tokens: dict | None = None) -> list[Value]:
    """Emits `jaxpr`'s equations into `b` on `args`; returns its outputs.
    Its constants become `stablehlo.constant`s first (unless given).
    `tokens` (ordered effect -> token) is threaded through the equations
    with ordered effects and left holding the last tokens."""
    env: dict = {}
    tokens = tokens if tokens is not None else {}
    if consts is None:
        consts = [const_value(b, c, v.aval) for v, c in zip(jaxpr.constvars, jaxpr.consts)]
    for v, val in zip(jaxpr.constvars, consts, strict=True):
        env[v] = val
    for v, val in zip(jaxpr.invars, args, strict=True):
        env[v] = val

    def read(x):
        if type(x) is Literal:
            return literal_value(b, x)
        return env[x]

    for eqn in jaxpr.eqns:
        ins = [read(x) for x in eqn.invars]
        rule = LOWERINGS.get(eqn.primitive)
        if rule is None:
            reason = NOT_LOWERED.get(eqn.primitive)
            raise LoweringError(
                f"MLIR translation rule for primitive '{eqn.primitive.name}' not found for platform cpu"
                + (f" (pyjax: {reason})" if reason else ""))
        ctx = RuleContext(mod, b, eqn, tokens)
        outs = rule(ctx, *ins, **eqn.params)
        if mod.shardings:  # (JAX's rules constrain their results to the types' shardings)
            outs = constrain_outputs(ctx, outs)
        for v, o in zip(eqn.outvars, outs, strict=True):
            env[v] = o
    return [read(v) for v in jaxpr.outvars]


def lower_to_func(mod: ModuleContext, jaxpr: Jaxpr, name: str) -> str:
    """`jaxpr` as a private function of the module (once per function, as
    JAX caches the lowering of a jitted call); returns its symbol. A call is
    the same function when its name, its jaxpr's text and its constants
    are and its operands are weakly typed alike (JAX keys on the traced
    jaxpr, which pyjax may trace anew per caller).
    In a shape-polymorphic module the function takes the dimension
    variables first, as JAX's functions there do; then one token per
    ordered effect of its body (returned first, updated)."""
    from pyjax._src.backends.stablehlo import dynamic

    env = dynamic.current()
    weak = tuple(getattr(a, "weak_type", False) for a in jaxpr.in_avals)  # (JAX's trace cache keys on them too)
    key = (name, str(jaxpr), weak, tuple(id(c) for c in jaxpr.consts), env is None, mod.global_constant_args)
    hit = mod.func_cache.get(key)
    if hit is not None:
        return hit[0]
    if mod.global_constant_args:
        env = None  # (export's @main: the sizes it computes from are not arguments of its functions)
    dim_types = [TensorType((), env.dtype)] * len(env.names) if env is not None else []
    effects = ordered_effects(jaxpr.effects)
    lead = len(dim_types) + len(effects)
    func = mod.module.add_func(name, dim_types + [TOKEN] * len(effects) + [aval_type(a) for a in jaxpr.in_avals])
    mod.func_cache[key] = (func.name, jaxpr)  # (the jaxpr kept alive: its id is the key)
    inner = None
    if env is not None:
        func.arg_attrs[:len(dim_types)] = [f'jax.global_constant = "{n}"' for n in env.names]
        inner = dynamic.DimEnv(env.names, func.args[:len(dim_types)], env.dtype)
    func.arg_attrs[len(dim_types):lead] = ["jax.token = true"] * len(effects)
    if mod.global_constant_args:
        func.arg_attrs = ['jax.global_constant = ""'] * len(func.args)
    tokens = dict(zip(effects, func.args[len(dim_types):lead]))
    b = Builder(func.body)
    if mod.global_constant_args:
        inner = dynamic.current()  # (dimension values stay those of @main's computation)
    with dynamic.dim_env(inner):
        outs = lower_jaxpr(mod, b, jaxpr, func.args[lead:], tokens=tokens)
    func.result_types = [TOKEN] * len(effects) + [aval_type(a) for a in jaxpr.out_avals]
    func.result_attrs = ["jax.token = true"] * len(effects) + [None] * len(outs)
    b.ret([tokens[e] for e in effects] + outs)
    return func.name


def dim_operands(mod: ModuleContext) -> list[Value]:
    """What a call passes first in a shape-polymorphic module: the dimension
    variables in scope (none in export's @main computation)."""
    from pyjax._src.backends.stablehlo import dynamic

    env = dynamic.current()
    return [env.values[n] for n in env.names] if env is not None and not mod.global_constant_args else []


def private_func(mod: ModuleContext, name: str, arg_types: Sequence, emit: Callable, dim_attrs: bool = True) -> str:
    """A private function of `arg_types` whose body `emit(builder, args)`
    returns its results; in a polymorphic module it takes the dimension
    variables first (as every function of JAX's there does; a primitive's
    cached lowering, `dim_attrs=False`, without their `jax.global_constant`
    marks, as JAX's). Returns its symbol."""
    from pyjax._src.backends.stablehlo import dynamic

    env = dynamic.current() if not mod.global_constant_args else None
    dims = [TensorType((), env.dtype)] * len(env.names) if env is not None else []
    func = mod.module.add_func(name, dims + list(arg_types))
    inner = None
    if env is not None:
        if dim_attrs:
            func.arg_attrs[:len(dims)] = [f'jax.global_constant = "{n}"' for n in env.names]
        inner = dynamic.DimEnv(env.names, func.args[:len(dims)], env.dtype, env.mod)
    b = Builder(func.body)
    with dynamic.dim_env(inner if env is not None else dynamic.current()):
        outs = emit(b, func.args[len(dims):])
    func.result_types = [o.type for o in outs]
    func.result_attrs = [None] * len(outs)
    b.ret(outs)
    return func.name


def call_jaxpr(ctx: RuleContext, jaxpr: Jaxpr, name: str, args: Sequence[Value]) -> list[Value]:
    """A call of `jaxpr` lowered as the private function `name` (the
    dimension variables in scope passed first, then the tokens of its
    ordered effects, which the call updates)."""
    from pyjax._src.backends.stablehlo import dynamic

    symbol = lower_to_func(ctx.mod, jaxpr, name)
    dims = dim_operands(ctx.mod)
    effects = ordered_effects(jaxpr.effects)
    tokens = [token_for(ctx, e) for e in effects]
    outs = ctx.b.call(symbol, [*dims, *tokens, *args], [TOKEN] * len(effects) + [aval_type(a) for a in jaxpr.out_avals])
    ctx.tokens.update(zip(effects, outs[:len(effects)]))
    return outs[len(effects):]


def token_for(ctx: RuleContext, effect) -> Value:
    """The current token of an ordered effect."""
    try:
        return ctx.tokens[effect]
    except KeyError:
        raise LoweringError(f"pyjax does not lower the ordered effect {effect} of primitive '{ctx.eqn.primitive.name}' "
                            "here (inside control flow or a function without its token)") from None


def inline_jaxpr(ctx: RuleContext, jaxpr: Jaxpr, args: Sequence[Value]) -> list[Value]:
    """`jaxpr`'s equations emitted in place (custom_jvp/vjp calls, remat)."""
    return lower_jaxpr(ctx.mod, ctx.b, jaxpr, args, tokens=ctx.tokens)


def lower_fun(fun: Callable, multiple_results: bool = True) -> Callable:
    """A rule that lowers a primitive as the pyjax function `fun` (traced on
    the operands' avals and the params, its jaxpr emitted in place)."""
    from pyjax._src.interpreters.staging import trace_to_jaxpr
    from pyjax._src.interpreters.staging import DebugInfo

    def rule(ctx: RuleContext, *args, **params):
        def flat(*xs):
            out = fun(*xs, **params)
            return list(out) if multiple_results else [out]

        jaxpr, _ = trace_to_jaxpr(flat, ctx.avals_in, DebugInfo("lower_fun", getattr(fun, "__name__", "fun"), None, None))
        return lower_jaxpr(ctx.mod, ctx.b, jaxpr, args)

    return rule
