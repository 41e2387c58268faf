"""Symbolic dimensions in StableHLO: the dimension variables of a
shape-polymorphic module as values, and dimension expressions and shapes
computed from them as JAX 0.11 computes them.

A function of a polymorphic module takes one leading scalar argument per
dimension variable (`jax.global_constant = "b"`); while its body is lowered
a `DimEnv` maps each variable to that argument. A dimension expression
evaluates as JAX traces `core.evaluate_shape`: each variable is a weakly
typed scalar of the dimension dtype (int32, or int64 under x64), each
coefficient a strongly typed constant, so `2*b + 1` is `convert(b) * 2 + 1`
and `a*b` is a plain multiply. A shape becomes a `tensor<Nxi32>`: constants
for the static dimensions, reshapes of the computed ones, concatenated.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import numpy as np

from pyjax._src.backends.stablehlo.ir import TensorType, Value, int_list

_STACK: list[DimEnv] = []


class DimEnv:
    """The dimension variables of the function being lowered, by name."""

    def __init__(self, names: Sequence[str], values: Sequence[Value], dtype, mod=None):
        self.names = tuple(names)
        self.values = dict(zip(names, values, strict=True))
        self.dtype = np.dtype(dtype)
        self.mod = mod  # the ModuleContext (floordiv/mod call JAX's @divmod function)


@contextlib.contextmanager
def dim_env(env: DimEnv | None):
    """Makes `env` the dimension variables of the code lowered inside."""
    _STACK.append(env)
    try:
        yield env
    finally:
        _STACK.pop()


def current() -> DimEnv | None:
    """The dimension variables in scope (None outside a polymorphic module)."""
    return _STACK[-1] if _STACK else None


def dim_dtype() -> np.dtype:
    """JAX's dtype for dimension values: the default integer dtype."""
    from pyjax._src import dtypes

    return np.dtype(dtypes.default_int_dtype())


def is_symbolic(shape) -> bool:
    return any(hasattr(d, "get_vars") for d in shape)


# -- evaluating expressions ------------------------------------------------------------------------------
# A partial value is an int (a constant folded in Python, as NumPy scalars
# fold in JAX's trace) or a pair (Value, weak).


def _env() -> DimEnv:
    env = current()
    if env is None:
        raise NotImplementedError("a symbolic dimension is lowered outside an exported shape-polymorphic module "
                                  "(pyjax lowers symbolic shapes only through jax.export)")
    return env


def _strong(b, x, dtype):
    if isinstance(x, int):
        return b.constant(np.asarray(x, dtype))
    value, weak = x
    # JAX's promotion of a weak operand against a strong one: a convert that only drops weakness.
    return b.convert(value, dtype) if weak else value


def _binary(b, name: str, x, y, identity: int, fold):
    if isinstance(x, int) and x == identity:
        return y
    if isinstance(y, int) and y == identity:
        return x
    if isinstance(x, int) and isinstance(y, int):
        return fold(x, y)
    dtype = _env().dtype
    if not isinstance(x, int) and not isinstance(y, int) and x[1] and y[1]:
        return (b.elementwise(name, [x[0], y[0]]), True)
    return (b.elementwise(name, [_strong(b, x, dtype), _strong(b, y, dtype)]), False)


def _mul(b, x, y):
    return _binary(b, "stablehlo.multiply", x, y, 1, lambda p, q: p * q)


def _add(b, x, y):
    return _binary(b, "stablehlo.add", x, y, 0, lambda p, q: p + q)


def _factor(b, f):
    if f[0] in ("floordiv", "mod"):
        q, r = _divmod(b, _partial(b, f[1]), _partial(b, f[2]))
        return q if f[0] == "floordiv" else r
    if f[0] in ("max", "min"):
        return _extremum(b, f[0], _partial(b, f[1]), _partial(b, f[2]))
    if f[0] != "var":
        raise NotImplementedError(f"pyjax does not lower the dimension operation '{f[0]}' (only sums of products "
                                  "of dimension variables, floordiv, mod, max and min)")
    env = _env()
    name = f[1]
    if name not in env.values:
        raise NotImplementedError(f"Encountered dimension variable '{name}' that is not appearing in the shapes "
                                  "of the function arguments")
    return (env.values[name], True)


def _extremum(b, op: str, x, y):
    # JAX's `lax.max`/`lax.min` of the operands' values, which lax does not
    # promote: a constant operand is a strong dimension constant, a weak value
    # stays as it is; the result is weak only when both are.
    if isinstance(x, int) and isinstance(y, int):
        return max(x, y) if op == "max" else min(x, y)
    dtype = _env().dtype
    weak = not isinstance(x, int) and not isinstance(y, int) and x[1] and y[1]
    vals = [b.constant(np.asarray(v, dtype)) if isinstance(v, int) else v[0] for v in (x, y)]
    return (b.elementwise("stablehlo.maximum" if op == "max" else "stablehlo.minimum", vals), weak)


def _divmod(b, x, y):
    # Python's divmod on the traced values, as JAX evaluates a floordiv/mod
    # factor: jnp's jitted `divmod` (calling @floor_divide and @remainder).
    from pyjax._src.avals import ShapedArray
    from pyjax._src.backends.stablehlo.lowering import aval_type, lower_to_func
    from pyjax._src.interpreters.staging import trace_to_jaxpr

    env = _env()
    if isinstance(x, int) and isinstance(y, int):
        return divmod(x, y)
    if env.mod is None:
        raise NotImplementedError("a floordiv/mod dimension is lowered outside an exported module")
    # (a constant is a strong dimension constant; a weak value goes in as it is, and the jitted
    # function's promotion converts it when the other operand is strong, as JAX's trace does)
    xs = [b.constant(np.asarray(v, env.dtype)) if isinstance(v, int) else v[0] for v in (x, y)]
    avals = [ShapedArray((), env.dtype, weak_type=not isinstance(v, int) and v[1]) for v in (x, y)]
    aval = ShapedArray((), env.dtype)
    traced, _ = trace_to_jaxpr(lambda p, q: list(divmod(p, q)), avals)
    (eqn,) = traced.eqns  # the `jit` of jnp.divmod
    symbol = lower_to_func(env.mod, eqn.params["jaxpr"], eqn.params["name"])
    dims = [] if env.mod.global_constant_args else [env.values[n] for n in env.names]
    q, r = b.call(symbol, dims + xs, [aval_type(aval)] * 2)
    return (q, False), (r, False)  # (the jitted function's results are strong)


def _partial(b, d):
    """A dimension as a partial value (ops emitted into `b`)."""
    if not hasattr(d, "get_vars"):
        return int(d)
    terms = []
    for term, coeff in d.terms:
        factors = [v for f, e in reversed(term) for v in [_factor(b, f)] * e]
        value = 1
        if factors:
            value = factors[0]
            for other in factors[1:]:
                value = _mul(b, value, other)
        terms.append(_mul(b, value, coeff))
    total = terms[0]
    for other in terms[1:]:
        total = _add(b, total, other)
    return total


def eval_dims(b, shape) -> list:
    """Each dimension of `shape`: an int when constant, else a scalar
    Value of the dimension dtype (the ops that compute it emitted into `b`)."""
    out = []
    for d in shape:
        v = _partial(b, d)
        if isinstance(v, int):
            # (JAX evaluates the shape as a traced function: a constant dimension is a constant
            # output, dead once the tensor is built, but first seen by the round trip's folder)
            env = current()
            b.constant(np.asarray(v, env.dtype if env is not None else np.int32))
        out.append(v if isinstance(v, int) else v[0])
    return out


def dim_value(b, d, dtype=None) -> Value:
    """The dimension `d` as a scalar tensor (dim_as_value's lowering)."""
    dtype = np.dtype(dtype) if dtype is not None else _env().dtype
    v, = eval_dims(b, [d])
    if isinstance(v, int):
        return b.constant(np.asarray(v, dtype))
    return v if v.dtype == dtype else b.convert(v, dtype)


def shape_tensor(b, shape) -> Value:
    """`shape` as a `tensor<Nxi32>` (JAX's `eval_dynamic_shape_as_tensor`)."""
    dims = eval_dims(b, shape)
    parts = []
    for d in dims:
        if isinstance(d, int):
            parts.append(b.constant(np.array([d], np.int32)))
        else:
            if d.dtype != np.int32:
                d = b.convert(d, np.int32)
            parts.append(b.reshape(d, (1,)))
    if not parts:
        return b.constant(np.zeros((0,), np.int32))
    if len(parts) == 1:
        return parts[0]
    return concatenate(b, parts, 0)


def concatenate(b, parts: Sequence[Value], dim: int) -> Value:
    from pyjax._src.backends.stablehlo.builder import print_with_attr

    shape = list(parts[0].shape)
    shape[dim] = sum(p.shape[dim] for p in parts)
    return b.emit1("stablehlo.concatenate", list(parts), [TensorType(shape, parts[0].dtype)], print_with_attr,
                   text=f"dim = {dim}")


# -- the dynamic shape ops ---------------------------------------------------------------------------------


def dynamic_broadcast_in_dim(b, x: Value, shape, dims) -> Value:
    from pyjax._src.backends.stablehlo.builder import _types_sig

    target = shape_tensor(b, shape)

    def printer(op, p, indent, in_func):
        return (f"stablehlo.dynamic_broadcast_in_dim {p.vs(op.operands)}, dims = {int_list(dims)} : "
                f"{_types_sig(op.operands, op.results)}")

    return b.emit1("stablehlo.dynamic_broadcast_in_dim", [x, target], [TensorType(shape, x.dtype)], printer)


def dynamic_reshape(b, x: Value, shape) -> Value:
    from pyjax._src.backends.stablehlo.builder import print_functional

    target = shape_tensor(b, shape)
    return b.emit1("stablehlo.dynamic_reshape", [x, target], [TensorType(shape, x.dtype)], print_functional)


def dynamic_iota(b, shape, dtype, dim: int) -> Value:
    from pyjax._src.backends.stablehlo.builder import _types_sig

    target = shape_tensor(b, shape)

    def printer(op, p, indent, in_func):
        return f"stablehlo.dynamic_iota {p.v(op.operands[0])}, dim = {dim} : {_types_sig(op.operands, op.results)}"

    return b.emit1("stablehlo.dynamic_iota", [target], [TensorType(shape, dtype)], printer)


def real_dynamic_slice(b, x: Value, start, limit, strides) -> Value:
    """A slice whose bounds are symbolic: the bounds as shape tensors (JAX's `real_dynamic_slice`)."""
    from pyjax._src import shape_poly
    from pyjax._src.backends.stablehlo.builder import print_functional

    shape = [shape_poly.dim_max(0, (l - s + st - 1) // st) for s, l, st in zip(start, limit, strides)]
    operands = [x, shape_tensor(b, start), shape_tensor(b, limit), shape_tensor(b, strides)]
    return b.emit1("stablehlo.real_dynamic_slice", operands, [TensorType(shape, x.dtype)], print_functional)


def dynamic_slice(b, x: Value, starts, sizes, out_type) -> Value:
    """`dynamic_slice` with symbolic sizes, as JAX lowers it: the starts
    clamped into [0, shape - sizes] as shape tensors, then a
    `real_dynamic_slice` to start + sizes."""
    from pyjax._src.backends.stablehlo.builder import print_functional, print_same_type

    sizes_t = shape_tensor(b, sizes)
    zeros = shape_tensor(b, [0] * len(sizes))
    parts = [b.reshape(i if i.dtype == np.int32 else b.convert(i, np.int32), (1,)) for i in starts]
    starts_t = parts[0] if len(parts) == 1 else concatenate(b, parts, 0)
    limit = b.elementwise("stablehlo.subtract", [shape_tensor(b, x.shape), sizes_t])
    start = b.emit1("stablehlo.clamp", [zeros, starts_t, limit], [starts_t.type], print_same_type)
    end = b.elementwise("stablehlo.add", [start, sizes_t])
    strides = shape_tensor(b, [1] * len(sizes))
    return b.emit1("stablehlo.real_dynamic_slice", [x, start, end, strides], [out_type], print_functional)
