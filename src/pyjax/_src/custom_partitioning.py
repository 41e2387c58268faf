"""custom_partitioning (JAX 0.11's jax.experimental.custom_partitioning).

In JAX the decorated function's body is what runs, and the callbacks (or a
Shardy sharding rule) tell XLA's partitioner how to split it across
devices. pyjax has no XLA partitioner: a call stages one
`custom_partitioning` equation holding the body's jaxpr and the rule, and
runs the body as given — what JAX does on CPU with one device. As in JAX,
the equation has no JVP or batching rule, and a rule must be given
(`sharding_rule`: JAX 0.11 uses Shardy and refuses callbacks alone).
"""

from __future__ import annotations

import functools
from typing import Any

from pyjax._src.core import Primitive
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.jaxpr import body_effects, eval_jaxpr
from pyjax._src.rules import unimplemented, SHARDING_OF_CALL
from pyjax._src.tree_util import tree_flatten, tree_unflatten

BATCHING = "\u2026"


class CompoundFactor(tuple):
    """Factors that together make up one dimension."""

    def __new__(cls, *factors):
        if len(factors) < 2:
            raise ValueError("A compound factor should contain at least two factors")
        for f in factors:
            if not isinstance(f, str):
                raise ValueError(f"Each element of CompoundFactor must be a str, but got {type(f)}")
            if f == BATCHING:
                raise ValueError("Ellipsis can't be used in a compound factor")
        return tuple.__new__(cls, factors)


class ArrayMapping(tuple):
    """The factors of each dimension of one operand or result."""

    def __new__(cls, *dim_mappings):
        for i, d in enumerate(dim_mappings):
            if not isinstance(d, (str, CompoundFactor)):
                raise ValueError("Each element of ArrayMapping must be a str or CompoundFactor, but got "
                                 f"{type(d)}")
            if d == BATCHING and i != 0:
                raise ValueError("Ellipsis can only be used at the beginning of a dimension")
        return tuple.__new__(cls, dim_mappings)


class SdyShardingRule:
    """A Shardy sharding rule: the operands' and results' factor mappings."""

    def __init__(self, operand_mappings, result_mappings, *, reduction_factors=(), need_replication_factors=(),
                 permutation_factors=(), **factor_sizes):
        self.operand_mappings = tuple(operand_mappings)
        self.result_mappings = tuple(result_mappings)
        self.reduction_factors = tuple(reduction_factors)
        self.need_replication_factors = tuple(need_replication_factors)
        self.permutation_factors = tuple(permutation_factors)
        self.factor_sizes = factor_sizes

    def __str__(self):
        return f"SdyShardingRule({self.operand_mappings}, {self.result_mappings}, {self.factor_sizes})"


def _parse_mapping(text: str) -> ArrayMapping:
    dims: list = []
    compound: list | None = None
    for tok in text.replace("(", " ( ").replace(")", " ) ").split():
        if tok == "(":
            compound = []
        elif tok == ")":
            dims.append(CompoundFactor(*compound))
            compound = None
        else:
            tok = BATCHING if tok == "..." else tok
            (compound if compound is not None else dims).append(tok)
    return ArrayMapping(*dims)


def str_to_sdy_sharding_rule(rule: str, **kwargs) -> SdyShardingRule:
    """'i j, j k -> i k' (parentheses for compound factors, ... for batching)."""
    if "->" not in rule:
        raise ValueError(f"There is no -> in rule: {rule}")
    ins, outs = rule.split("->", 1)
    parse = lambda side: tuple(_parse_mapping(m) for m in side.split(",")) if side.strip() else ()
    return SdyShardingRule(parse(ins), parse(outs), **kwargs)


custom_partitioning_p = Primitive("custom_partitioning", multiple_results=True).declare(
    body_params=("call",), call_body="call")
custom_partitioning_p.declare(sharding_reason=SHARDING_OF_CALL)
custom_partitioning_p.effects_of = body_effects("call")
custom_partitioning_p.def_abstract_eval(lambda *avals, call, **_: list(call.out_avals))
custom_partitioning_p.def_impl(lambda *args, call, **_: eval_jaxpr(call, call.consts, *args))
custom_partitioning_p.def_jvp(unimplemented(""))  # (JAX 0.11 has neither rule)
custom_partitioning_p.def_batch(unimplemented(""))


class custom_partitioning:
    """Wraps `fun`, whose partitioning across devices `def_partition` describes."""

    def __init__(self, fun, static_argnums=()):
        self.fun = fun
        self.static_argnums = tuple(static_argnums)
        self.partition = self.infer_sharding_from_operands = self.propagate_user_sharding = None
        self.decode_shardings = True
        self.sharding_rule = None
        functools.update_wrapper(self, fun)

    def def_partition(self, partition, infer_sharding_from_operands=None, propagate_user_sharding=None,
                      decode_shardings=True, sharding_rule=None, *, reduction_factors=(),
                      need_replication_factors=(), permutation_factors=(), **factor_sizes):
        self.partition = partition
        (self.infer_sharding_from_operands,
         self.propagate_user_sharding) = (infer_sharding_from_operands, propagate_user_sharding)
        self.decode_shardings = decode_shardings
        if isinstance(sharding_rule, str):
            sharding_rule = str_to_sdy_sharding_rule(
                sharding_rule, reduction_factors=reduction_factors, need_replication_factors=need_replication_factors,
                permutation_factors=permutation_factors, **factor_sizes)
        self.sharding_rule = sharding_rule
        return partition

    def __call__(self, *args, **kwargs):
        if self.partition is None:
            raise AttributeError(f"custom_partitioning function {getattr(self.fun, '__name__', self.fun)!r} "
                                 "has no partition: call def_partition first")
        if self.sharding_rule is None:
            raise NotImplementedError(
                "Shardy is used, but sharding propagation callbacks instead of sharding_rule are provided. "
                "Need to provide sharding_rule to migrate to Shardy.")
        if kwargs:  # folded into positional arguments, as JAX does
            import inspect
            bound = inspect.signature(self.fun).bind(*args, **kwargs)
            bound.apply_defaults()
            if bound.kwargs:
                raise TypeError("keyword-only arguments are not supported by custom_partitioning")
            args = bound.args
        static = tuple(args[i] for i in self.static_argnums)
        dyn = tuple(a for i, a in enumerate(args) if i not in self.static_argnums)
        flat, in_tree = tree_flatten(dyn)
        from pyjax._src.core import get_aval
        out_tree_box: list = []

        def body(*xs):
            it = iter(tree_unflatten(in_tree, list(xs)))
            full = [args[i] if i in self.static_argnums else next(it) for i in range(len(args))]
            outs, out_tree = tree_flatten(self.fun(*full))
            out_tree_box.append(out_tree)
            return outs

        jaxpr, _ = trace_to_jaxpr(body, [get_aval(x) for x in flat])
        outs = custom_partitioning_p.bind(
            *flat, call=jaxpr, partition=self.partition, infer_sharding_from_operands=None,
            propagate_user_sharding=None, decode_shardings=self.decode_shardings,
            in_tree=in_tree, out_tree=out_tree_box[0], sharding_rule=self.sharding_rule, static_args=static)
        return tree_unflatten(out_tree_box[0], outs)


__all__ = ["ArrayMapping", "BATCHING", "CompoundFactor", "SdyShardingRule", "custom_partitioning",
           "custom_partitioning_p"]
