"""The primitives and helpers a Pallas kernel calls.

    program_id    the grid index along an axis        printed `program_id[axis=0]`
    num_programs  the grid size along an axis (a Python int while tracing a
                  kernel whose grid is static, as in JAX)
    multiple_of   a divisibility hint: the value itself
    reciprocal    1 / x (`approx` is a hint here: the result is exact)

The NumPy backend's impls (backends/numpy/impls/pallas.py) read the grid
point the interpreter is running from `core.current_grid_env()`.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src import core as jcore
from pyjax._src import tree_util
from pyjax._src.rules import unimplemented
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.pallas import core as pallas_core

__all__ = ["program_id", "num_programs", "multiple_of", "reciprocal", "when", "loop", "run_scoped", "with_scoped",
           "empty", "empty_like", "empty_ref_like", "broadcast_to", "debug_print", "program_id_p",
           "num_programs_p", "multiple_of_p", "reciprocal_p"]

_I32 = ShapedArray((), np.dtype("int32"))

program_id_p = Primitive("program_id")
program_id_p.declare(sharding_reason="a Pallas kernel's grid index: no operands")
num_programs_p = Primitive("num_programs")
num_programs_p.declare(sharding_reason="a Pallas kernel's grid size: no operands")
multiple_of_p = Primitive("multiple_of").declare(elementwise=True, fusible=False, cost="cheap")
multiple_of_p.declare(sharding_reason='a hint inside Pallas kernels (unplaced blocks)')
reciprocal_p = Primitive("reciprocal").declare(elementwise=True, fusible=False, cost="expensive")
reciprocal_p.declare(sharding_reason='inside Pallas kernels (unplaced blocks)')


@program_id_p.def_abstract_eval
def _program_id_abstract_eval(*, axis):
    return _I32


@num_programs_p.def_abstract_eval
def _num_programs_abstract_eval(*, axis):
    return _I32


multiple_of_p.def_abstract_eval(lambda x, *, values: x)
reciprocal_p.def_abstract_eval(lambda x, *, approx, full_range: x)
# A hint is the identity: its derivative passes the tangent through.
multiple_of_p.def_jvp(lambda primals, tangents, *, values: (multiple_of_p.bind(primals[0], values=values),
                                                            tangents[0]))


def _elementwise_batch(primitive):
    def rule(axis_data, args, dims, **params):
        return primitive.bind(args[0], **params), dims[0]

    return rule


multiple_of_p.def_batch(_elementwise_batch(multiple_of_p))
reciprocal_p.def_batch(_elementwise_batch(reciprocal_p))
# (JAX 0.11 gives these no derivative, nor the grid queries a batching rule:
# vmap of a kernel goes through pallas_call's own rule)
reciprocal_p.def_jvp(unimplemented(""))
for _p in (program_id_p, num_programs_p):
    _p.def_jvp(unimplemented(""))
    _p.def_batch(unimplemented(""))


def program_id(axis: int) -> Any:
    """The index of the grid point being run along `axis` (an i32 scalar)."""
    return program_id_p.bind(axis=int(axis))


def num_programs(axis: int) -> Any:
    """The size of the grid along `axis`: a Python int when the grid is static."""
    env = pallas_core.current_grid_env()
    if env is not None and env[0] is None:  # (tracing a kernel: the grid's sizes are known)
        return env[1][axis]
    return num_programs_p.bind(axis=int(axis))


def multiple_of(x: Any, values: Sequence[int] | int) -> Any:
    """`x`, with the hint that it is a multiple of `values` (accepted: the value is unchanged)."""
    vals = tuple(values) if not isinstance(values, int) else (values,)
    return multiple_of_p.bind(x, values=vals)


def reciprocal(x, *, approx: bool = False, full_range: bool = True):
    """`1 / x`; `approx` allows a faster, less exact result (exact on this backend)."""
    return reciprocal_p.bind(x, approx=approx, full_range=full_range)


def when(condition: Any, /) -> Callable[[Callable[[], None]], None]:
    """Calls the decorated function when `condition` holds: a Python `if` for a
    bool, else a `lax.cond` with the function as its true branch."""
    from pyjax._src.lax.control_flow import cond

    def wrapped(f):
        if isinstance(condition, bool):
            if condition:
                f()
        else:
            cond(condition, f, lambda: None)

    return wrapped


def loop(lower: Any, upper: Any, *, init_carry: Any = None, step: Any = 1,
         unroll: int | bool | None = None) -> Callable[[Callable[..., Any]], Any]:
    """A decorator calling the function for `lower, lower + step, ... < upper`
    (with the carry when `init_carry` is given): a `fori_loop`."""
    from pyjax._src.lax import elementwise as ew
    from pyjax._src.lax.control_flow import fori_loop

    static = all(isinstance(v, (int, np.integer)) for v in (lower, upper, step))
    zero: Any = 0
    if not static:
        from pyjax._src import dtypes

        idx_type = dtypes.result_type(lower, upper, step)
        lower, upper, step = (ew.convert_element_type(v, idx_type) for v in (lower, upper, step))
        zero = np.zeros((), idx_type)

    def decorator(body):
        if init_carry is None:
            body_fn = lambda i, _: body(lower + i * step)
        else:
            body_fn = lambda i, carry: body(lower + i * step, carry)
        trips = pallas_core.cdiv(upper - lower, step)
        return fori_loop(zero, trips, body_fn, init_carry, unroll=unroll)

    return decorator


def _ref_aval_of(t) -> Any:
    if isinstance(t, pallas_core.MemoryRef):
        return t.get_ref_aval()
    from pyjax._src.ref_types import AbstractRef

    return AbstractRef(ShapedArray(tuple(t.shape), np.dtype(t.dtype)))


def run_scoped(f: Callable[..., Any], *types: Any, collective_axes: Any = (), **kw_types: Any) -> Any:
    """Calls `f` on new references of `types` (MemoryRefs such as
    `pl.ANY((8,), jnp.float32)`) that live for the call. (Here: references made
    with `empty_ref`, not JAX's `run_scoped` equation.)"""
    from pyjax._src.ref_primitives import empty_ref, free_ref

    if collective_axes:
        raise NotImplementedError("run_scoped with collective_axes needs a device mesh")
    flat, tree = tree_util.tree_flatten((types, kw_types))
    refs = [empty_ref(a.inner_aval, a.memory_space) for a in map(_ref_aval_of, flat)]
    args, kwargs = tree_util.tree_unflatten(tree, refs)
    out = f(*args, **kwargs)
    for r in refs:
        free_ref(r)
    return out


def with_scoped(*types: Any, collective_axes: Any = (), **kw_types: Any):
    """A decorator form of `run_scoped`: `@pl.with_scoped(pl.ANY((8,), f32))`."""
    return lambda f: run_scoped(f, *types, collective_axes=collective_axes, **kw_types)


def empty(shape, dtype, *, out_sharding=None):
    """An array whose contents are unspecified (zeros here, as on JAX's CPU backend)."""
    from pyjax._src.lax.convenience import empty as lax_empty

    return lax_empty(shape, dtype, out_sharding=out_sharding)


def empty_like(x: object):
    """A pytree like `x` (leaves with `shape` and `dtype`) of unspecified values."""
    return tree_util.tree_map(lambda a: empty(a.shape, a.dtype), x)


def empty_ref_like(x: object) -> Any:
    """A new reference with the shape, dtype and memory space of `x` (a MemoryRef or ShapeDtypeStruct)."""
    from pyjax._src.avals import ShapeDtypeStruct
    from pyjax._src.ref_primitives import new_ref

    if isinstance(x, pallas_core.MemoryRef):
        space = x.memory_space
    elif isinstance(x, ShapeDtypeStruct):
        space = pallas_core.MemorySpace.ANY
    else:
        raise ValueError(f"empty_ref_like does not support {type(x)}")
    return new_ref(empty_like(x), memory_space=space)


def broadcast_to(a: Any, shape: tuple[int, ...]) -> Any:
    """`a` broadcast to `shape` (jnp.broadcast_to's rule)."""
    from pyjax._src.lax.shapes import broadcast_in_dim

    a_shape = tuple(getattr(a, "shape", ()))
    dims = tuple(range(len(shape) - len(a_shape), len(shape)))
    return a if a_shape == tuple(shape) else broadcast_in_dim(a, tuple(shape), dims)


def debug_print(fmt: str, *args: Any):
    """Prints `fmt` formatted with the values of `args` when the kernel runs
    (`{}` placeholders, as `jax.debug.print`)."""
    from pyjax._src.debugging import debug_print as _print

    _print(fmt, *args)
