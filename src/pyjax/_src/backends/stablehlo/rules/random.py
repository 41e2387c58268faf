"""rng_bit_generator as JAX lowers it on the CPU: a u32[4] key is viewed as
the u64[2] state XLA's generator takes, and the new state viewed back.
(The threefry PRNG primitives are declared not lowered: JAX expands them
into jitted helpers, `@_threefry_split`, `@threefry2x32` ..., with `sdy`
sharding constraints on the key data; not reproduced yet.)"""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.stablehlo.ir import TensorType
from pyjax._src.backends.stablehlo.lowering import register_lowering


def _print_rng(op, p, indent, in_func):
    outs = ", ".join(str(r.type) for r in op.results)
    return (f"stablehlo.rng_bit_generator {p.v(op.operands[0])}, algorithm = {op.attrs['algorithm']} : "
            f"({op.operands[0].type}) -> ({outs})")


def _rng_bit_generator(ctx, key, *, shape, dtype, algorithm, **params):
    b = ctx.b
    name = getattr(algorithm, "name", str(algorithm)).replace("RNG_", "")
    out = TensorType(shape, dtype)
    as_u32 = key.dtype == np.uint32
    state = key
    if as_u32:
        n = key.shape[0] // 2
        state = b.bitcast_convert(b.reshape(key, (n, 2)), TensorType((n,), np.uint64))
    new_state, bits = b.emit("stablehlo.rng_bit_generator", [state], [state.type, out], _print_rng,
                             algorithm=name, result_hints=("output_state", "output"))
    if as_u32:
        new_state = b.reshape(b.bitcast_convert(new_state, TensorType((new_state.shape[0], 2), np.uint32)), key.shape)
    return [new_state, bits]


def _identity(ctx, x, **params):
    return [x]  # a key array is its key data in the module


def register(prims: dict) -> None:
    register_lowering(prims["random_wrap"], _identity)
    register_lowering(prims["random_unwrap"], _identity)
    register_lowering(prims["rng_bit_generator"], _rng_bit_generator)
