"""rng_bit_generator as JAX lowers it on the CPU: a u32[4] key is viewed as
the u64[2] state XLA's generator takes, and the new state viewed back.
The threefry primitives lower as JAX's CPU lowering does: `threefry2x32`
a private `@threefry2x32` (five trips of a `@closed_call` doing four rounds
and a key injection), `random_split` and `random_fold_in` private
`@_threefry_split` / `@_threefry_fold_in`, `random_bits` (32-bit)
in place; key arrays are their key data."""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.stablehlo.ir import TensorType
from pyjax._src.backends.stablehlo.lowering import LoweringError, register_lowering


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


def _rng_uniform(ctx, a, b, *, shape):
    # XLA's stateful generator (`stablehlo.rng`); IREE has none to draw from
    if not getattr(ctx.mod, "xla_ops", True):
        raise LoweringError("primitive 'rng_uniform' is XLA's stateful `stablehlo.rng`, which IREE does not compile")
    shape_const = ctx.b.constant(np.asarray(shape, np.int64))
    return [ctx.b.emit1("stablehlo.rng", [a, b, shape_const], ctx.out_types, _print_rng_uniform)]


def _print_rng_uniform(op, p, indent, in_func):
    from pyjax._src.backends.stablehlo.builder import _types_sig

    return f"stablehlo.rng {p.vs(op.operands)}, distribution = UNIFORM : {_types_sig(op.operands, op.results)}"


def _identity(ctx, x, **params):
    return [x]  # a key array is its key data in the module


def _random_seed(ctx, seeds, *, impl):
    """Threefry keys from integer seeds, as JAX's threefry_seed: (the seed's
    high word, its low word); a seed narrower than 64 bits has a zero high
    word (XLA's logical shift by its width gives 0)."""
    from pyjax._src.backends.stablehlo.builder import print_with_attr
    from pyjax._src.backends.stablehlo.ir import TensorType as T
    from pyjax._src.random import threefry

    if impl is not threefry.threefry_prng_impl:
        raise LoweringError("random_seed is lowered for threefry keys only")
    b = ctx.b
    shape = tuple(seeds.shape)
    # JAX's form for every width (a logical shift by the width gives 0).
    thirty_two = b.broadcast_to(b.constant(np.array(32, seeds.dtype)), shape)
    high = b.convert(b.elementwise("stablehlo.shift_right_logical", [seeds, thirty_two]), _U32)
    low = b.convert(seeds, _U32)
    cols = [b.reshape(v, shape + (1,)) for v in (high, low)]
    return [b.emit1("stablehlo.concatenate", cols, [T(shape + (2,), _U32)], print_with_attr,
                    text=f"dim = {len(shape)}")]


def register(prims: dict) -> None:
    if "random_seed" in prims:
        register_lowering(prims["random_seed"], _random_seed)
    if "random_clone" in prims:  # JAX's rule: the identity
        register_lowering(prims["random_clone"], _identity)
    register_lowering(prims["random_wrap"], _identity)
    register_lowering(prims["random_unwrap"], _identity)
    register_lowering(prims["threefry2x32"], _threefry2x32_rule)
    register_lowering(prims["random_bits"], _random_bits)
    register_lowering(prims["random_split"], _random_split)
    register_lowering(prims["random_fold_in"], _random_fold_in)
    register_lowering(prims["rng_bit_generator"], _rng_bit_generator)
    if "rng_uniform" in prims:
        register_lowering(prims["rng_uniform"], _rng_uniform)


# --- threefry (JAX's CPU lowering: jitted helpers around a 5-trip loop) --------

_U32 = np.uint32


def _private(ctx, name, args, body, params=()):
    """A private function `name` made once per operand types and `params`
    (what else fixes its result types: a split's shape), then called."""
    from pyjax._src.backends.stablehlo.lowering import dim_operands, private_func

    key = ("threefry", name, tuple(a.type for a in args), params)
    cache = ctx.mod.func_cache
    hit = cache.get(key)
    if hit is None:
        types: list = []

        def emit(fb, fargs):
            outs = body(ctx.with_builder(fb), fargs)
            types.extend(o.type for o in outs)
            return outs

        symbol = private_func(ctx.mod, name, [a.type for a in args], emit)
        cache[key] = hit = (symbol, types)
    return ctx.b.call(hit[0], dim_operands(ctx.mod) + list(args), hit[1])


def _rounds_body(c, args):
    """The loop body (@closed_call): four rounds, then the key injection."""
    b = c.b
    j, x0, x1, ka, kb, kc, r0, r1 = args
    j1 = b.elementwise("stablehlo.add", [j, b.constant(np.array(1, np.int32))])
    rots = []
    for k in range(4):
        rots.append(b.reshape(b.slice(r0, [k], [k + 1]), ()))
    for rot in rots:
        x0 = b.elementwise("stablehlo.add", [x0, x1])
        left = b.elementwise("stablehlo.shift_left", [x1, b.broadcast_to(rot, x1.shape)])
        back = b.elementwise("stablehlo.subtract", [b.constant(np.array(32, _U32)), rot])
        right = b.elementwise("stablehlo.shift_right_logical", [x1, b.broadcast_to(back, x1.shape)])
        x1 = b.elementwise("stablehlo.xor", [x0, b.elementwise("stablehlo.or", [left, right])])
    x0 = b.elementwise("stablehlo.add", [x0, b.broadcast_to(ka, x0.shape)])
    x1 = b.elementwise("stablehlo.add", [x1, b.broadcast_to(kb, x1.shape)])
    step = b.elementwise("stablehlo.add", [j, b.constant(np.array(1, np.int32))])
    x1 = b.elementwise("stablehlo.add", [x1, b.broadcast_to(b.convert(step, _U32), x1.shape)])
    return [j1, x0, x1, kb, kc, ka, r1, r0]


def _threefry_body(c, args):
    from pyjax._src.backends.stablehlo.rules.control_flow import emit_while

    b = c.b
    k0, k1, x0, x1 = args
    r0 = b.constant(np.array([13, 15, 26, 6], _U32))
    r1 = b.constant(np.array([17, 29, 16, 24], _U32))
    k2 = b.elementwise("stablehlo.xor", [b.elementwise("stablehlo.xor", [k0, k1]), b.constant(np.array(0x1BD11BDA, _U32))])
    x0 = b.elementwise("stablehlo.add", [x0, b.broadcast_to(k0, x0.shape)])
    x1 = b.elementwise("stablehlo.add", [x1, b.broadcast_to(k1, x1.shape)])
    j0 = b.constant(np.array(0, np.int32))
    i0 = b.constant(np.array(0, np.int32))
    if getattr(c.mod, "threefry_unrolled", False):
        # (for IREE: a loop's condition is read back to the host each turn, a sync per
        # round of every draw; the five rounds in line are the same operations. Without
        # the loop, IREE 3.13's runtime no longer fails when it folds a key word to a
        # constant (a seed's high word 0), as it did in copy_buffer; docs/iree.md)
        vals = [j0, x0, x1, k1, k2, k0, r0, r1]
        for _ in range(5):
            vals = _rounds_body(c, vals)
        return vals[1:3]

    def cond_fn(cb, vals):
        return cb.compare("LT", vals[0], cb.constant(np.array(5, np.int32)))

    def body_fn(bb, vals):
        outs = _private(c.with_builder(bb), "closed_call", list(vals[1:]), _rounds_body)
        nxt = bb.elementwise("stablehlo.add", [vals[0], bb.constant(np.array(1, np.int32))])
        return [nxt] + list(outs)

    outs = emit_while(c.with_builder(b), [i0, j0, x0, x1, k1, k2, k0, r0, r1], cond_fn, body_fn)
    return [outs[2], outs[3]]


def threefry2x32(ctx, k0, k1, x0, x1):
    return _private(ctx, "threefry2x32", [k0, k1, x0, x1], _threefry_body)


def _threefry2x32_rule(ctx, k0, k1, x0, x1):
    return threefry2x32(ctx, k0, k1, x0, x1)


def _key_words(b, key):
    return [b.reshape(b.slice(key, [k], [k + 1]), ()) for k in range(2)]


def _counts(b, shape):
    """iota over `shape` (an int: one axis) as two 32-bit words (hi, lo), as
    JAX's iota_2x32_shape: each axis's iota times its row-major stride, summed."""
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if not shape:  # JAX's iota_2x32_shape of () is two zero constants
        zero = b.constant(np.zeros((), _U32))
        return zero, zero
    iotas = [b.iota(shape, np.uint64, d) for d in range(len(shape))]
    strides = [int(np.prod(shape[d + 1:], dtype=np.int64)) for d in range(len(shape))]
    counts = None
    for it, stride in zip(iotas, strides):
        term = b.elementwise("stablehlo.multiply",
                             [b.broadcast_to(b.constant(np.array(stride, np.uint64)), shape), it])
        counts = term if counts is None else b.elementwise("stablehlo.add", [counts, term])
    shifted = b.elementwise("stablehlo.shift_right_logical",
                            [counts, b.broadcast_to(b.constant(np.array(32, np.uint64)), shape)])
    lo = b.convert(counts, _U32)
    hi = b.convert(shifted, _U32)
    return hi, lo


def _random_bits(ctx, key, *, bit_width, shape):
    """JAX's partitionable threefry bits: the two words of each count's
    hash xored (32 bits), converted to 8 or 16 bits (the low bits, as
    XLA's convert), or joined high << 32 | low (64 bits)."""
    from pyjax._src import config

    if bit_width not in (8, 16, 32, 64) or key.shape != (2,) or not config.threefry_partitionable.value:
        raise LoweringError("random_bits is lowered for one threefry key with jax_threefry_partitionable on only")
    b = ctx.b
    k0, k1 = _key_words(b, key)
    hi, lo = _counts(b, shape)
    a, c = threefry2x32(ctx, k0, k1, hi, lo)
    if bit_width == 64:
        wide = [b.convert(v, np.uint64) for v in (a, c)]
        thirty_two = b.broadcast_to(b.constant(np.array(32, np.uint64)), tuple(wide[0].shape))
        return [b.elementwise("stablehlo.or", [b.elementwise("stablehlo.shift_left", [wide[0], thirty_two]), wide[1]])]
    bits = b.elementwise("stablehlo.xor", [a, c])
    return [bits if bit_width == 32 else b.convert(bits, np.dtype(f"uint{bit_width}"))]


def _split_body(c, args):
    b = c.b
    (key,) = args
    n = c.avals_out[0].shape[0]
    k0, k1 = _key_words(b, key)
    hi, lo = _counts(b, n)
    a, d = threefry2x32(c, k0, k1, hi, lo)
    cols = [b.broadcast_in_dim(v, (n, 1), [0]) for v in (a, d)]
    from pyjax._src.backends.stablehlo.builder import print_with_attr
    from pyjax._src.backends.stablehlo.ir import TensorType as T

    return [b.emit1("stablehlo.concatenate", cols, [T((n, 2), _U32)], print_with_attr, text="dim = 1")]


def _random_split(ctx, key, *, shape):
    if len(shape) != 1 or key.shape != (2,):
        raise LoweringError("random_split is lowered for one key split along one axis only")
    return _private(ctx, "_threefry_split", [key], _split_body, tuple(shape))


def _fold_in_body(c, args):
    from pyjax._src.backends.stablehlo.builder import print_with_attr
    from pyjax._src.backends.stablehlo.ir import TensorType as T

    b = c.b
    key, msg = args
    hi = b.broadcast_in_dim(b.elementwise("stablehlo.shift_right_logical", [msg, b.constant(np.array(32, _U32))]),
                            (1,), [])
    lo = b.broadcast_in_dim(b.elementwise("stablehlo.and", [msg, b.constant(np.array(0xFFFFFFFF, _U32))]), (1,), [])
    words = b.emit1("stablehlo.concatenate", [hi, lo], [T((2,), _U32)], print_with_attr, text="dim = 0")
    k0, k1 = _key_words(b, key)
    a, d = threefry2x32(c, k0, k1, b.slice(words, [0], [1]), b.slice(words, [1], [2]))
    return [b.emit1("stablehlo.concatenate", [a, d], [T((2,), _U32)], print_with_attr, text="dim = 0")]


def _random_fold_in(ctx, key, msg):
    if key.shape != (2,) or msg.shape != ():
        raise LoweringError("random_fold_in is lowered for one key and one message only")
    return _private(ctx, "_threefry_fold_in", [key, msg], _fold_in_body)
