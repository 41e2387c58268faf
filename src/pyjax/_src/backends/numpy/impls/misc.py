"""NumPy impls of the miscellaneous primitives: stack, unstack, tile,
optimization_barrier, device_put, the tokens, the host callbacks (pure_callback,
debug_callback, debug_print) and custom_linear_solve.

The identity primitives return their operands (NumPy buffers are immutable
to pyjax, so no copy is needed); the callbacks call their Python function on
NumPy values, which is also what the jit compiler runs, so a callback fires
at run time under jit.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import checkify, debug_nans, debugging, effects
from pyjax._src.lax import callbacks, identity, linear_solve, stack, tokens
from pyjax._src.tokens import TOKEN_BUFFER

IMPLS: dict = {}


def _stack(*operands, axis):
    return np.stack([np.asarray(x) for x in operands], axis=axis)


def _unstack(operand, *, axis):
    x = np.asarray(operand)
    return [np.take(x, i, axis=axis) for i in range(x.shape[axis])]


def _tile(operand, *, reps):
    return np.tile(np.asarray(operand), reps)


def _identity(*operands, **params):
    return list(operands)


IMPLS[stack.stack_p] = _stack
IMPLS[stack.unstack_p] = _unstack
IMPLS[stack.tile_p] = _tile
IMPLS[identity.optimization_barrier_p] = _identity
IMPLS[identity.device_put_p] = _identity
IMPLS[tokens.create_token_p] = lambda: TOKEN_BUFFER
IMPLS[tokens.after_all_p] = lambda *operands: TOKEN_BUFFER
IMPLS[callbacks.pure_callback_p] = callbacks.pure_callback_impl
IMPLS[debugging.debug_callback_p] = debugging.debug_callback_impl
IMPLS[debugging.debug_print_p] = debugging.debug_print_impl
IMPLS[effects.io_callback_p] = effects.io_callback_impl
IMPLS[debug_nans.float_check_p] = debug_nans.float_check_impl
IMPLS[checkify.check_p] = checkify.check_impl
IMPLS[linear_solve.linear_solve_p] = linear_solve.linear_solve_impl
