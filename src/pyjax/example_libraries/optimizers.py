"""Optimizers: gradient-based optimization as (init, update, get_params).

An optimizer is built from a function of its hyperparameters returning
three functions on one array: ``init(x0) -> state``, ``update(i, g, state)
-> state`` (step ``i``, gradient ``g``) and ``get_params(state) -> x``. The
``@optimizer`` decorator lifts them to pytrees of parameters; the state is
an ``OptimizerState`` (itself a pytree, so it can go through ``jit``). Step
sizes are numbers or schedules (functions of the step number). As in JAX's
``jax.example_libraries.optimizers``, this is an example library; optax is
the full-featured one.

Example:
    opt_init, opt_update, get_params = optimizers.sgd(step_size=1e-3)
    opt_state = opt_init(params)
    def step(i, opt_state):
        g = jax.grad(loss)(get_params(opt_state))
        return opt_update(i, g, opt_state)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from collections import namedtuple
import builtins
import functools
from functools import partial

import pyjax as jax
import pyjax.numpy as jnp


def safe_map(f, *args):
    """``map`` that insists its argument sequences have one length; returns a list."""
    args = list(map_builtin(list, args))
    n = len(args[0])
    for a in args[1:]:
        assert len(a) == n, f"length mismatch: {list(map_builtin(len, args))}"
    return list(map_builtin(f, *args))


def safe_zip(*args):
    """``zip`` that insists its arguments have one length; returns a list."""
    args = list(map_builtin(list, args))
    n = len(args[0])
    for a in args[1:]:
        assert len(a) == n, f"length mismatch: {list(map_builtin(len, args))}"
    return list(zip_builtin(*args))


def unzip2(xys):
    """Splits a sequence of pairs into two tuples."""
    firsts, seconds = [], []
    for a, b in xys:
        firsts.append(a)
        seconds.append(b)
    return tuple(firsts), tuple(seconds)


map_builtin, zip_builtin = builtins.map, builtins.zip
# The module's map and zip are the checked ones, as in JAX's.
map = safe_map
zip = safe_zip


OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
jax.tree_util.register_pytree_node(
    OptimizerState,
    lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
    lambda aux, children: OptimizerState(children[0], aux[0], aux[1]))


Array = Any
Params = Any  # nests of arrays
State = Any  # one parameter's optimizer state
Updates = Params  # gradients have the parameters' structure
InitFn = Callable[[Params], OptimizerState]
Step = int
UpdateFn = Callable[[Step, Updates, OptimizerState], OptimizerState]
ParamsFn = Callable[[OptimizerState], Params]


class Optimizer(NamedTuple):
    init_fn: InitFn
    update_fn: UpdateFn
    params_fn: ParamsFn


Schedule = Callable[[Step], float]


def optimizer(opt_maker: Callable[..., tuple[Callable[[Params], State], Callable[[Step, Updates, Params], Params],
                                             Callable[[State], Params]]]) -> Callable[..., Optimizer]:
    """Decorator to make an optimizer defined for arrays generalize to containers.

    ``opt_maker(*hyperparameters)`` returns ``(init, update, get_params)`` on
    single arrays; the decorated function returns an :class:`Optimizer` whose
    functions take pytrees of arrays and keep an :class:`OptimizerState`.
    """
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            x0_flat, tree = jax.tree.flatten(x0_tree)
            states_flat, subtrees = unzip2(map(jax.tree.flatten, [init(x0) for x0 in x0_flat]))
            return OptimizerState(states_flat, tree, subtrees)

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = opt_state
            grad_flat, grad_tree_def = jax.tree.flatten(grad_tree)
            if grad_tree_def != tree:
                raise TypeError("optimizer update function was passed a gradient tree that did not match the "
                                f"parameter tree structure with which it was initialized: parameter tree {tree} "
                                f"and grad tree {grad_tree_def}.")
            states = map(jax.tree.unflatten, subtrees, states_flat)
            new_states = map(partial(update, i), grad_flat, states)
            new_flat, new_subtrees = unzip2(map(jax.tree.flatten, new_states))
            for before, after in zip(subtrees, new_subtrees):
                if after != before:
                    raise TypeError("optimizer update function produced an output structure that did not match "
                                    f"its input structure: input {before} and output {after}.")
            return OptimizerState(new_flat, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, tree, subtrees = opt_state
            states = map(jax.tree.unflatten, subtrees, states_flat)
            return jax.tree.unflatten(tree, map(get_params, states))

        return Optimizer(tree_init, tree_update, tree_get_params)

    return tree_opt_maker


def _first(state):
    return state[0]


@optimizer
def sgd(step_size):
    """Construct optimizer triple for stochastic gradient descent.

    Args:
      step_size: positive scalar, or a callable representing a step size schedule
        that maps the iteration index to a positive scalar.
    """
    step_size = make_schedule(step_size)
    return (lambda x0: x0), (lambda i, g, x: x - step_size(i) * g), (lambda x: x)


@optimizer
def momentum(step_size: Schedule, mass: float):
    """Construct optimizer triple for SGD with momentum (``mass``)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * velocity, velocity

    return init, update, _first


@optimizer
def nesterov(step_size: Schedule, mass: float):
    """Construct optimizer triple for SGD with Nesterov momentum."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * (mass * velocity + g), velocity

    return init, update, _first


@optimizer
def adagrad(step_size, momentum=0.9):
    """Construct optimizer triple for Adagrad (with momentum).

    Adaptive Subgradient Methods for Online Learning and Stochastic
    Optimization: http://www.jmlr.org/papers/volume12/duchi11a/duchi11a.pdf
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq += jnp.square(g)
        g_sq_inv_sqrt = jnp.where(g_sq > 0, 1. / jnp.sqrt(g_sq), 0.0)
        m = (1. - momentum) * (g * g_sq_inv_sqrt) + momentum * m
        return x - step_size(i) * m, g_sq, m

    return init, update, _first


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """Construct optimizer triple for RMSProp."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
        return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad

    return init, update, _first


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """Construct optimizer triple for RMSProp with momentum."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom

    return init, update, _first


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Construct optimizer triple for Adam.

    Args:
      step_size: positive scalar, or a schedule.
      b1: optional, decay rate of the first moment estimate (default 0.9).
      b2: optional, decay rate of the second moment estimate (default 0.999).
      eps: optional, a positive scalar for numerical stability (default 1e-8).
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        # Bias correction, with the decay rates in the moments' dtype.
        mhat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        vhat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
        return x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps), m, v

    return init, update, _first


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Construct optimizer triple for AdaMax (a variant of Adam based on the infinity norm)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        x = x - (step_size(i) / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))) * m / (u + eps)
        return x, m, u

    return init, update, _first


@optimizer
def sm3(step_size, momentum=0.9):
    """Construct optimizer triple for SM3.

    Memory-Efficient Adaptive Optimization for Large-Scale Learning:
    https://arxiv.org/abs/1901.11150
    """
    step_size = make_schedule(step_size)

    def splice(seq, i, x):
        out = list(seq)
        out[i:i + 1] = x
        return out

    def broadcast_into(ndim, x, axis):
        return x[tuple(splice([None] * ndim, axis, [slice(None)]))]

    def init(x0):
        shape = x0.shape
        x0 = jnp.atleast_1d(x0)
        # One accumulator per axis, of that axis' length.
        return x0, jnp.zeros_like(x0), [jnp.zeros(n, dtype=x0.dtype) for n in x0.shape], shape

    def update(i, g, state):
        x, m, vs, shape = state
        vs = [broadcast_into(g.ndim, v, axis) for axis, v in enumerate(vs)]
        accum = functools.reduce(jnp.minimum, vs) + jnp.square(g)
        accum_inv_sqrt = jnp.where(accum > 0, 1. / jnp.sqrt(accum), 0)
        m = (1. - momentum) * (g * accum_inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        vs = [accum.max(splice(range(x.ndim), j, [])) for j in range(x.ndim)]
        return x, m, vs, shape

    def get_params(state):
        x, _, _, shape = state
        return x.reshape(shape)

    return init, update, get_params


# ---- learning rate schedules

def constant(step_size) -> Schedule:
    """The schedule whose step size is always ``step_size``."""
    def schedule(i):
        return step_size
    return schedule


def exponential_decay(step_size, decay_steps, decay_rate):
    """``step_size * decay_rate ** (i / decay_steps)``."""
    def schedule(i):
        return step_size * decay_rate ** (i / decay_steps)
    return schedule


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False):
    """``step_size / (1 + decay_rate * i / decay_steps)`` (the quotient floored with ``staircase``)."""
    if staircase:
        def schedule(i):
            return step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
    else:
        def schedule(i):
            return step_size / (1 + decay_rate * i / decay_steps)
    return schedule


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0):
    """From ``step_size`` to ``final_step_size`` over ``decay_steps`` steps, along ``(1 - t) ** power``."""
    def schedule(step_num):
        step_num = jnp.minimum(step_num, decay_steps)
        step_mult = (1 - step_num / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size
    return schedule


def piecewise_constant(boundaries: Any, values: Any):
    """``values[k]`` for steps past ``k`` of the ``boundaries``."""
    boundaries = jnp.array(boundaries)
    values = jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if not boundaries.shape[0] == values.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")

    def schedule(i):
        return values[jnp.sum(i > boundaries)]
    return schedule


def make_schedule(scalar_or_schedule: float | Schedule) -> Schedule:
    """A schedule as it is, or a number as a constant schedule."""
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


# ---- utilities

def l2_norm(tree):
    """Compute the l2 norm of a pytree of arrays. Useful for weight decay."""
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in jax.tree.leaves(tree)))


def clip_grads(grad_tree, max_norm):
    """Clip gradients stored as a pytree of arrays to maximum norm ``max_norm``."""
    norm = l2_norm(grad_tree)
    return jax.tree.map(lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm)), grad_tree)


# ---- serialization

class JoinPoint:
    """Marks the boundary between two joined (nested) pytrees."""

    def __init__(self, subtree):
        self.subtree = subtree

    # Pytrees of arrays look iterable; so does a join point.
    def __iter__(self):
        yield self.subtree


def unpack_optimizer_state(opt_state):
    """Converts an OptimizerState to a marked pytree (JoinPoint leaves holding each parameter's state).

    Useful for serializing optimizer states.
    """
    states_flat, tree_def, subtree_defs = opt_state
    subtrees = map(jax.tree.unflatten, subtree_defs, states_flat)
    return jax.tree.unflatten(tree_def, [JoinPoint(s) for s in subtrees])


def pack_optimizer_state(marked_pytree):
    """The inverse of :func:`unpack_optimizer_state`: a marked pytree back to an OptimizerState."""
    sentinels, tree_def = jax.tree.flatten(marked_pytree)
    assert all(isinstance(s, JoinPoint) for s in sentinels)
    states_flat, subtree_defs = unzip2(map(jax.tree.flatten, [s.subtree for s in sentinels]))
    return OptimizerState(states_flat, tree_def, subtree_defs)
