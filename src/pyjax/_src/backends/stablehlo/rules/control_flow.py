"""Control flow: `while` as `stablehlo.while` (its constants carried in the
loop state, as JAX does), `cond` as `stablehlo.case`, and `scan` as JAX
lowers it on the CPU (a while loop over an index, slicing the inputs and
updating the stacked outputs through private functions)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from pyjax._src.backends.stablehlo.builder import Builder, print_generic
from pyjax._src.backends.stablehlo.ir import TOKEN, Block, TensorType
from pyjax._src.backends.stablehlo.lowering import aval_type, lower_jaxpr, ordered_effects, register_lowering, token_for
from pyjax._src.backends.stablehlo.sharding import constrain, respec
from pyjax._src.backends.stablehlo.rules.reductions import reduce_monoid, region_return


def print_while(op, p, indent, in_func):
    cond, body = op.regions
    inits = ", ".join(f"{p.v(a)} = {p.v(x)}" for a, x in zip(cond.args, op.operands))
    types = ", ".join(str(v.type) for v in op.operands)
    pad = " " * indent
    cond_lines = "\n".join(p.block_body(cond, indent + 2))
    body_lines = "\n".join(p.block_body(body, indent + 2))
    return (f"stablehlo.while({inits}) : {types}\n{pad}cond {{\n{cond_lines}\n{pad}}} do {{\n{body_lines}\n{pad}}}")


def emit_while(ctx, inits, cond_fn, body_fn):
    """A `stablehlo.while` over `inits`: `cond_fn(b, values) -> pred`,
    `body_fn(b, values) -> new values`."""
    types = [v.type for v in inits]
    cond = Block(types, "iterArg")
    body = Block(types, "iterArg")
    cb = Builder(cond)
    region_return(cb, [cond_fn(cb, cond.args)])
    bb = Builder(body)
    region_return(bb, body_fn(bb, body.args))
    return ctx.b.emit("stablehlo.while", list(inits), types, print_while, regions=[cond, body])


def _while(ctx, *args, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    # The tokens of the body's ordered effects lead the loop state (JAX's order).
    effects = ordered_effects(body_jaxpr.effects)
    nt = len(effects)
    cconsts, bconsts, carry = args[:cond_nconsts], args[cond_nconsts:cond_nconsts + body_nconsts], \
        args[cond_nconsts + body_nconsts:]
    nc, nb = nt + cond_nconsts, nt + body_nconsts

    def cond_fn(b, vals):
        (pred,) = lower_jaxpr(ctx.mod, b, cond_jaxpr, list(vals[nt:nc]) + list(vals[nc + body_nconsts:]))
        if pred.shape:  # a batched predicate: any lane still running
            pred = reduce_monoid(b, pred, range(len(pred.shape)), "or", "false", TensorType((), np.bool_))
        return pred

    batched = bool(cond_jaxpr.out_avals[0].shape)

    def body_fn(b, vals):
        old = list(vals[nc + body_nconsts:])
        tokens = dict(zip(effects, vals[:nt]))
        new = lower_jaxpr(ctx.mod, b, body_jaxpr, list(vals[nc:nc + body_nconsts]) + old, tokens=tokens)
        if batched:  # lanes whose predicate is false keep their carry
            (pred,) = lower_jaxpr(ctx.mod, b, cond_jaxpr, list(vals[nt:nc]) + old)
            rank = len(pred.shape)
            new = [b.select(b.broadcast_in_dim(pred, n.shape, list(range(rank))), n, o) for n, o in zip(new, old)]
        return [tokens[e] for e in effects] + list(vals[nt:nc + body_nconsts]) + new

    inits = [token_for(ctx, e) for e in effects] + list(cconsts) + list(bconsts) + list(carry)
    outs = emit_while(ctx, inits, cond_fn, body_fn)
    ctx.tokens.update(zip(effects, outs[:nt]))
    return outs[nc + body_nconsts:]


def _cond(ctx, index, *ops, branches):
    # Each branch takes the tokens of the ordered effects of any branch and
    # returns them first (a branch without the effect returns them as given).
    effects = ordered_effects(frozenset().union(*(br.effects for br in branches)))
    outer = [token_for(ctx, e) for e in effects]
    blocks = []
    for branch in branches:
        block = Block()
        bb = Builder(block)
        tokens = dict(zip(effects, outer))
        outs = lower_jaxpr(ctx.mod, bb, branch, ops, tokens=tokens)
        region_return(bb, [tokens[e] for e in effects] + outs)
        blocks.append(block)
    results = ctx.b.emit("stablehlo.case", [index], [TOKEN] * len(effects) + ctx.out_types, print_generic,
                         regions=blocks)
    ctx.tokens.update(zip(effects, results[:len(effects)]))
    return results[len(effects):]


def register(prims: dict) -> None:
    register_lowering(prims["while"], _while)
    register_lowering(prims["cond"], _cond)
    register_lowering(prims["scan"], _scan)


# --- scan ------------------------------------------------------------------------
# JAX lowers scan on the CPU by tracing its own implementation: a while loop
# over an index whose state is (the inputs the body reads, index, carry,
# stacked outputs); each step slices the inputs with the jitted helper
# `dynamic_index_in_dim`, calls the body as the private `closed_call`, and
# writes the outputs with `dynamic_update_index_in_dim`. With `unroll=k` the
# inputs are reshaped to (trips, k, ...) and each trip runs k steps on
# static slices; the leftover steps run after the loop.


def _lead(ctx, b, v, elem):
    """`v` constrained to `elem` (the sharding of one step's element, or
    None) behind unsharded leading dimensions, as JAX's scan types its
    blocks, pieces and stacked outputs."""
    if elem is None or ctx is None:
        return v
    return constrain(ctx.mod, b, v, None, SimpleNamespace(mesh=elem.mesh, spec=(None,) * (len(v.shape) - len(elem.spec))
                                                           + tuple(elem.spec)))


def _index_helper(ctx, b, x, i, elem=None):
    """`func.call @dynamic_index_in_dim(x, i)`: x[i] along axis 0 (`elem`
    the sharding of one step's element, which JAX constrains to)."""
    out = TensorType(x.shape[1:], x.dtype)

    def body(c, args):
        arr, idx = args
        starts = [idx] + [c.b.constant(np.zeros((), idx.dtype)) for _ in arr.shape[1:]]
        from pyjax._src.backends.stablehlo.builder import print_with_attr
        from pyjax._src.backends.stablehlo.ir import int_list

        piece = c.b.emit1("stablehlo.dynamic_slice", [arr, *starts], [TensorType((1,) + arr.shape[1:], arr.dtype)],
                          print_with_attr, text=f"sizes = {int_list((1,) + arr.shape[1:])}")
        piece = _lead(c, c.b, piece, elem)
        return [_lead(c, c.b, c.b.reshape(piece, arr.shape[1:]), elem)]

    key = (x.type, i.type, _spec_key(elem))
    return _lead(ctx, b, _call_helper(ctx, b, "dynamic_index_in_dim", key, [x, i], [out], body), elem)


def _spec_key(s):
    return None if s is None else (tuple(s.mesh.axis_names), tuple(s.spec))


def _update_helper(ctx, b, acc, upd, i, elem=None):
    """`func.call @dynamic_update_index_in_dim(acc, upd, i)`: acc[i] = upd
    (`elem` as for _index_helper)."""

    def body(c, args):
        arr, u, idx = args
        grown = c.b.broadcast_in_dim(u, (1,) + u.shape, list(range(1, len(u.shape) + 1)))
        grown = _lead(c, c.b, grown, elem)
        starts = [idx] + [c.b.constant(np.zeros((), idx.dtype)) for _ in u.shape]
        from pyjax._src.backends.stablehlo.rules.shapes import _print_dus

        out = c.b.emit1("stablehlo.dynamic_update_slice", [arr, grown, *starts], [arr.type], _print_dus)
        return [_lead(c, c.b, out, elem)]

    key = (acc.type, upd.type, i.type, _spec_key(elem))
    return _lead(ctx, b, _call_helper(ctx, b, "dynamic_update_index_in_dim", key, [acc, upd, i], [acc.type], body),
                 elem)


def _call_helper(ctx, b, name, key, args, out_types, body):
    from pyjax._src.backends.stablehlo.lowering import dim_operands, private_func

    cache = ctx.mod.func_cache
    full_key = ("helper", name, key)
    symbol = cache.get(full_key)
    if symbol is None:
        symbol = cache[full_key] = private_func(ctx.mod, name, [a.type for a in args],
                                                lambda fb, fargs: body(ctx.with_builder(fb), fargs))
    return b.call(symbol, dim_operands(ctx.mod) + list(args), out_types)[0]


def _static_index(b, x, k, ctx=None, elem=None):
    """x[k] along axis 0 with a static k: a slice and a reshape."""
    piece = _lead(ctx, b, b.slice(x, [k] + [0] * (len(x.shape) - 1), [k + 1] + list(x.shape[1:])), elem)
    return _lead(ctx, b, b.reshape(piece, x.shape[1:]), elem)


def _stack(b, values, ctx=None, elem=None):
    grown = [_lead(ctx, b, b.broadcast_in_dim(v, (1,) + v.shape, list(range(1, len(v.shape) + 1))), elem)
             for v in values]
    if len(grown) == 1:
        return grown[0]
    from pyjax._src.backends.stablehlo.builder import print_with_attr

    shape = (sum(g.shape[0] for g in grown),) + grown[0].shape[1:]
    return _lead(ctx, b, b.emit1("stablehlo.concatenate", grown, [TensorType(shape, grown[0].dtype)], print_with_attr,
                                 text="dim = 0"), elem)


def _concat0(b, values, ctx=None, elem=None):
    from pyjax._src.backends.stablehlo.builder import print_with_attr

    shape = (sum(v.shape[0] for v in values),) + values[0].shape[1:]
    return _lead(ctx, b, b.emit1("stablehlo.concatenate", list(values), [TensorType(shape, values[0].dtype)],
                                 print_with_attr, text="dim = 0"), elem)


def _trips_value(bb, trips):
    # The trip count as a value (a symbolic length: from the module's dimension arguments).
    if hasattr(trips, "get_vars"):
        from pyjax._src.backends.stablehlo import dynamic

        return dynamic.dim_value(bb, trips, np.int32)
    return bb.constant(np.array(trips, np.int32))


def _scan_blocks(b, xs, y_avals, length, trips, unroll, rem, reverse, ctx=None, x_elems=None, y_elems=None):
    """The scanned inputs as the loop reads them (in (trips, unroll) blocks
    when unrolled, the remainder's steps apart), and the zero outputs the loop
    fills: (xss, yss, xs_rem, ys_empty); each constrained to its element's
    sharding (`x_elems`, `y_elems`) behind the leading dimensions."""
    xs_rem, ys_empty = [], []
    x_elems, y_elems = x_elems or [None] * len(xs), y_elems or [None] * len(y_avals)

    def zeros(a, e, lead):
        return _lead(ctx, b, b.broadcast_in_dim(b.constant(np.zeros((), a.dtype)), (*lead, *a.shape), []), e)

    if unroll == 1:
        return xs, [zeros(a, e, (length,)) for a, e in zip(y_avals, y_elems)], xs_rem, ys_empty
    main = []
    for x, e in zip(xs, x_elems):
        if rem:
            cut = rem if reverse else trips * unroll
            lo = _lead(ctx, b, b.slice(x, [0] * len(x.shape), [cut] + list(x.shape[1:])), e)
            hi = _lead(ctx, b, b.slice(x, [cut] + [0] * (len(x.shape) - 1), list(x.shape)), e)
            part_main, part_rem = (hi, lo) if reverse else (lo, hi)
            xs_rem.append(part_rem)
            main.append(part_main)
        else:
            main.append(x)
    xss = [_lead(ctx, b, b.reshape(x, (trips, unroll) + x.shape[1:]), e) for x, e in zip(main, x_elems)] if trips else []
    if trips:
        yss = [zeros(a, e, (trips, unroll)) for a, e in zip(y_avals, y_elems)]
    else:  # fully unrolled: the (empty) outputs of no trips, joined with the steps' below
        yss = []
        ys_empty = [zeros(a, e, (0,)) for a, e in zip(y_avals, y_elems)]
    return xss, yss, xs_rem, ys_empty


def _scan(ctx, *args, reverse, length, jaxpr, ft_in, ft_out, unroll, **params):
    from pyjax._src.backends.stablehlo.lowering import dim_operands, lower_to_func

    consts, carry, xs = (list(part) for part in ft_in.update(list(args)).unpack())
    n_carry = len(carry)
    y_avals = [v.aval for v in jaxpr.outvars[n_carry:]]
    # The tokens of the body's ordered effects lead the loop state and the
    # body's calls (JAX threads them through its while loop's carry).
    effects = ordered_effects(jaxpr.effects)
    nt = len(effects)
    toks = [token_for(ctx, e) for e in effects]  # the current tokens, replaced by each call of the body

    def call_body(bb, operands):  # (the body's function is made at its first call, as JAX traces it there)
        outs = bb.call(lower_to_func(ctx.mod, jaxpr, "closed_call"), dim_operands(ctx.mod) + toks + list(operands),
                       [TOKEN] * nt + body_types)
        toks[:] = outs[:nt]
        return [constrain(ctx.mod, bb, o, v.aval) for o, v in zip(outs[nt:], jaxpr.outvars)]

    body_types = [aval_type(v.aval) for v in jaxpr.outvars]
    b = ctx.b
    unroll = (length or 1) if unroll is True else max(int(unroll), 1)
    trips, rem = divmod(length, unroll)
    if unroll != 1 and trips == 1 and rem == 0:
        trips, rem = 0, length

    def steps(bb, n, carry, blocks):  # n static steps of the body on x blocks of leading size n
        ys = []
        for s in range(n):
            k = n - s - 1 if reverse else s
            x = [_static_index(bb, blk, k, ctx, e) for blk, e in zip(blocks, x_elems)]
            outs = call_body(bb, consts_in + carry + x)
            carry, y = outs[:n_carry], outs[n_carry:]
            ys.append(y)
        if reverse:
            ys.reverse()
        stacked = [_stack(bb, [y[j] for y in ys], ctx, y_elems[j]) for j in range(len(y_avals))]
        return carry, stacked

    x_elems = [respec(a, lambda spec: spec[1:]) for a in ctx.avals_in[len(consts) + n_carry:]]
    y_elems = [respec(a, lambda spec: spec[1:]) for a in ctx.avals_out[n_carry:]]
    xss, yss, xs_rem, ys_empty = _scan_blocks(b, xs, y_avals, length, trips, unroll, rem, reverse, ctx, x_elems, y_elems)
    consts_in = consts
    # No trips (a zero-length scan): the outputs are the empty ones made above.
    ys_out = [] if trips else (yss if unroll == 1 else ys_empty)
    if trips:
        i0 = b.constant(np.zeros((), np.int32))
        n_body = len(xss) + len(consts)

        def cond_fn(cb, vals):
            return cb.compare("LT", vals[nt + n_body], _trips_value(cb, trips))

        def body_fn(bb, vals):
            nonlocal consts_in
            toks[:] = vals[:nt]
            vals = vals[nt:]
            loop_xss, loop_consts = list(vals[:len(xss)]), list(vals[len(xss):n_body])
            i_, loop_carry = vals[n_body], list(vals[n_body + 1:n_body + 1 + n_carry])
            loop_yss = list(vals[n_body + 1 + n_carry:])
            i = i_
            if reverse:
                t = bb.elementwise("stablehlo.subtract", [_trips_value(bb, trips), i_])
                i = bb.elementwise("stablehlo.subtract", [t, bb.constant(np.array(1, np.int32))])
            x = [_index_helper(ctx, bb, blk, i, e) for blk, e in zip(loop_xss, x_elems)]
            saved, consts_in = consts_in, loop_consts
            if unroll == 1:
                outs = call_body(bb, loop_consts + loop_carry + x)
                new_carry, ys = outs[:n_carry], outs[n_carry:]
            else:
                new_carry, ys = steps(bb, unroll, loop_carry, x)
            consts_in = saved
            new_yss = [_update_helper(ctx, bb, acc, y, i, e) for acc, y, e in zip(loop_yss, ys, y_elems)]
            nxt = bb.elementwise("stablehlo.add", [i_, bb.constant(np.array(1, np.int32))])
            return toks + loop_xss + loop_consts + [nxt] + list(new_carry) + new_yss

        outs = emit_while(ctx, toks + xss + consts + [i0] + carry + yss, cond_fn, body_fn)
        toks[:], outs = outs[:nt], outs[nt:]
        # (JAX's while constrains each sharded result: the carry and the outputs)
        carry = [constrain(ctx.mod, b, o, a) for o, a in zip(outs[n_body + 1:n_body + 1 + n_carry], ctx.avals_out)]
        ys_out = [_lead(ctx, b, y, e) for y, e in zip(outs[n_body + 1 + n_carry:], y_elems)]
        if unroll != 1:
            ys_out = [_lead(ctx, b, b.reshape(y, (trips * unroll,) + y.shape[2:]), e) for y, e in zip(ys_out, y_elems)]
    if unroll != 1 and rem:
        carry, ys_rem = steps(b, rem, carry, xs_rem)
        if ys_out:
            ys_out = [_concat0(b, [r, m] if reverse else [m, r], ctx, e) for m, r, e in zip(ys_out, ys_rem, y_elems)]
        else:
            ys_out = ys_rem
    ctx.tokens.update(zip(effects, toks))
    return list(carry) + ys_out
