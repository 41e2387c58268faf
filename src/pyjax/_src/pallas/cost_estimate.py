"""`pl.estimate_cost`: Pallas's rough cost of a function, for a kernel's
`cost_estimate=` (the numbers a TPU compiler schedules by; recorded only,
here).

The function is traced; each equation whose primitive has a cost rule adds
flops, transcendentals and bytes; every input and output is counted as
read or written once. Primitives without a rule (reshapes, reductions,
comparisons, ...) cost nothing, as in JAX 0.11's estimator, whose rules
these are: elementwise binary arithmetic one flop per result element,
unary rounding/negation one flop per element, transcendental functions one
transcendental per element, `integer_pow` by repeated squaring, `dot_general`
two flops per multiply-add, and calls (jit, custom_vjp, run_state) the
cost of their bodies.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable

from pyjax._src import core
from pyjax._src.custom_vjp import custom_vjp_call_p
from pyjax._src.jaxpr import Jaxpr
from pyjax._src.jit import jit_p
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax.dot import dot_general_p
from pyjax._src.pallas.core import CostEstimate
from pyjax._src.tree_util import tree_flatten, tree_unflatten

# primitive -> rule(in_avals, out_avals, **params) -> (flops, transcendentals, bytes)
_COST_RULES: dict[core.Primitive, Callable[..., tuple[int, int, int]]] = {}


def register_cost_rule(primitive: core.Primitive, rule: Callable[..., tuple[int, int, int]]) -> None:
    """Gives `primitive` a cost: `rule(in_avals, out_avals, **params)` returns
    (flops, transcendentals, bytes accessed) of one equation."""
    _COST_RULES[primitive] = rule


@dataclasses.dataclass(frozen=True)
class _Cost:
    flops: int = 0
    transcendentals: int = 0
    bytes_accessed: int = 0

    def __add__(self, other: _Cost) -> _Cost:
        return _Cost(self.flops + other.flops, self.transcendentals + other.transcendentals,
                     self.bytes_accessed + other.bytes_accessed)


def _jaxpr_cost(jaxpr: Jaxpr) -> _Cost:
    total = _Cost()
    for eqn in jaxpr.eqns:
        rule = _COST_RULES.get(eqn.primitive)
        if rule is not None:
            total = total + _Cost(*rule([v.aval for v in eqn.invars], [v.aval for v in eqn.outvars], **eqn.params))
    return total


def _nbytes(aval) -> int:
    return math.prod(aval.shape) * aval.dtype.itemsize


def estimate_cost(fun, *args, **kwargs) -> CostEstimate:
    """A `CostEstimate` of `fun(*args, **kwargs)`: its equations' flops and
    transcendentals, and the bytes of its inputs and outputs. `args` may be
    arrays or `jax.ShapeDtypeStruct`s; keyword arguments are static."""
    from pyjax._src.api import make_jaxpr
    from pyjax._src.avals import ShapeDtypeStruct

    bound = functools.partial(fun, **kwargs)
    flat, tree = tree_flatten(args)
    specs = [ShapeDtypeStruct(tuple(x.shape), x.dtype) for x in flat]
    jaxpr = make_jaxpr(lambda *xs: bound(*tree_unflatten(tree, xs)))(*specs)
    cost = _jaxpr_cost(jaxpr)
    io_bytes = sum(_nbytes(s) for s in specs) + sum(_nbytes(a) for a in jaxpr.out_avals)
    return CostEstimate(flops=cost.flops, transcendentals=cost.transcendentals,
                        bytes_accessed=cost.bytes_accessed + io_bytes)


def _per_output_element(ins, outs, **_):
    return math.prod(outs[0].shape), 0, 0


def _per_input_element(transcendental: bool):
    def rule(ins, outs, **_):
        n = math.prod(ins[0].shape)
        return (0, n, 0) if transcendental else (n, 0, 0)
    return rule


def _integer_pow(ins, outs, *, y, **_):
    # Repeated squaring: one square per bit below the highest, one multiply per set bit.
    per_element = 0 if y in (0, 1) else int(math.floor(math.log2(y))) + bin(y).count("1")
    return math.prod(ins[0].shape) * per_element, 0, 0


def _dot_general(ins, outs, *, dimension_numbers, **_):
    (lhs_contract, rhs_contract), (_, rhs_batch) = dimension_numbers
    x, y = ins[0].shape, ins[1].shape
    flops = 2 * math.prod(x[d] for d in lhs_contract)
    flops *= math.prod(s for i, s in enumerate(x) if i not in lhs_contract)
    flops *= math.prod(s for i, s in enumerate(y) if i not in rhs_contract and i not in rhs_batch)
    return flops, 0, 0


def _body_cost(param: str):
    def rule(ins, outs, **params):
        c = _jaxpr_cost(params[param])
        return c.flops, c.transcendentals, c.bytes_accessed
    return rule


for _p in (ew.add_p, ew.mul_p, ew.sub_p, ew.div_p, ew.min_p, ew.max_p, ew.or_p, ew.and_p, ew.xor_p):
    register_cost_rule(_p, _per_output_element)
for _p in (ew.neg_p, ew.floor_p, ew.ceil_p, ew.round_p, ew.not_p):
    register_cost_rule(_p, _per_input_element(False))
for _p in (ew.cos_p, ew.sin_p, ew.tan_p, ew.sinh_p, ew.cosh_p, ew.tanh_p, ew.acos_p, ew.asin_p, ew.atan_p,
           ew.exp_p, ew.log_p, ew.logistic_p, ew.sqrt_p):
    register_cost_rule(_p, _per_input_element(True))
register_cost_rule(ew.integer_pow_p, _integer_pow)


register_cost_rule(dot_general_p, _dot_general)
register_cost_rule(jit_p, _body_cost("jaxpr"))
register_cost_rule(custom_vjp_call_p, _body_cost(custom_vjp_call_p.call_body))
del _p
