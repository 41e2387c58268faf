"""scan: a loop over the leading axis of arrays, carrying a state.

`lax.scan(f, init, xs)` traces `f` once into the body of one `scan`
equation:

    c:f32[] d:f32[5] = scan[
      ft_in=((), (None,), (None,))                  # (consts, carry, xs)
      ft_out=((None,), (RightsOnly(Right(None)),))  # (carry, ys)
      jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = add e f in (g, e) }
      length=5  reverse=False  unroll=1
    ] a b

The body takes (consts, carry, x slices) and returns (carry, y slices); the
equation returns the final carry and the ys stacked along a new leading
axis. As in JAX, the API first simplifies what it can see: a carry the body
passes through unchanged becomes a const (and is returned as it came in),
and a y that is just an x is not stacked again but forwarded (the `Left`
leaf in `ft_out`).

This module holds the primitive, the API (`scan`, `map`), and the JVP and
batching rules; reverse mode (linearize, partial evaluation, transpose)
lives in scan_ad.py.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from pyjax._src import config, core
from pyjax._src.ad_util import Zero, tangent_aval
from pyjax._src.ad_util import instantiate as instantiate_zeros
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.jvp import jvp_jaxpr
from pyjax._src.interpreters.partial_eval import PartialEvalTrace
from pyjax._src.interpreters import key_reuse as _key_reuse
from pyjax._src.lax import sharding_rules
from pyjax._src.lax import batching_util
from pyjax._src.lax.control_flow import common
from pyjax._src.lax.control_flow import flattree as ft
from pyjax._src.tree_util import tree_flatten, tree_map, tree_unflatten
from pyjax._src.jaxpr import body_effects
from pyjax._src.rules import SHARDING_OF_CALL

__all__ = ["map", "scan", "scan_p"]

scan_p = Primitive("scan", multiple_results=True).declare(body_params=("jaxpr",))
scan_p.declare(key_reuse=lambda eqn: _key_reuse.scan_signature(eqn, *[len(g) for g in eqn.params["ft_in"].unpack()[:2]]))
scan_p.declare(sharding_reason=SHARDING_OF_CALL)
scan_p.effects_of = body_effects("jaxpr")


def _ys_count(ft_out) -> int:
    return len(ft_out.unpack()[1])


@scan_p.def_abstract_eval
def _scan_abstract_eval(*avals, reverse, length, jaxpr, ft_in, ft_out, unroll):
    if len(avals) != len(jaxpr.in_avals):
        raise ValueError("scan number of arguments doesn't match the number of jaxpr arguments: "
                         f"{len(avals)} vs {len(jaxpr.in_avals)}")
    num_carry = len(ft_out.unpack()[0])
    outs = jaxpr.out_avals
    return list(outs[:num_carry]) + [sharding_rules.stacked(a, length) for a in outs[num_carry:]]


# ---------------------------------------------------------------------------
# The API


def _infer_length(xs_flat: list, length) -> int:
    try:
        lengths = [x.shape[0] for x in xs_flat]
    except AttributeError:
        bad = ", ".join(str(x) for x in xs_flat if not hasattr(x, "shape"))
        raise ValueError(f"scan got value with no leading axis to scan over: {bad}.") from None
    if length is not None:
        try:
            length = int(length)
        except core.errors.ConcretizationTypeError:
            raise core.errors.ConcretizationTypeError(
                length, "The `length` argument to `scan` expects a concrete `int` value. For scan-like "
                "iteration with a dynamic length, use `while_loop` or `fori_loop`.") from None
        if not all(length == n for n in lengths):
            raise ValueError(f"scan got `length` argument of {length} which disagrees with leading axis "
                             f"sizes {[x.shape[0] for x in xs_flat]}.")
        return length
    unique = set(lengths)
    if len(unique) > 1:
        raise ValueError("scan got values with different leading axis sizes: "
                         f"{', '.join(str(x.shape[0]) for x in xs_flat)}.")
    if not unique:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    return lengths[0]


def _stack(arrays: list):
    from pyjax._src.lax.shapes import concatenate, expand_dims

    return concatenate([expand_dims(a, (0,)) for a in arrays], 0)


def _python_scan(f, init, xs_flat, xs_tree, length, reverse):
    # Under disable_jit the loop runs in Python, one body call per step.
    from pyjax._src.lax.slicing import index_in_dim

    if length == 0:
        raise ValueError("zero-length scan is not supported in disable_jit() mode because the output "
                         "type is unknown.")
    carry, ys = init, []
    steps = range(length)
    for i in (reversed(steps) if reverse else steps):
        x = tree_unflatten(xs_tree, [index_in_dim(x, i, keepdims=False) for x in xs_flat])
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys.reverse()
    return carry, tree_map(lambda *leaves: _stack(list(leaves)), *ys)


def scan(f: Callable, init, xs=None, length: int | None = None, reverse: bool = False,
         unroll: int | bool = 1, _split_transpose: bool = False):
    """Loop ``f`` over the leading axis of ``xs``, threading a carry and stacking outputs.

    Step ``i`` calls ``f(carry, x_i)`` with ``x_i`` the ``i``-th slice of every
    leaf of ``xs`` (``None`` when ``xs`` is None), takes the new carry from
    its first output and collects its second output; the result is the last
    carry and the collected outputs stacked along a new leading axis. Here
    `f` is traced once, and the loop is one `scan` primitive: a jitted
    program stays small however many steps it takes. The carry must keep
    its pytree structure, shapes and dtypes from one step to the next
    (a weakly typed initial value, e.g. a Python scalar, may take the
    dtype the body gives it).

    Args:
      f: the body, ``(carry, x) -> (carry, y)``.
      init: the initial carry, a pytree of arrays.
      xs: a pytree of arrays scanned along their leading axis, or None.
      length: the number of steps; required when `xs` is None, otherwise
        it must agree with the leading axis sizes.
      reverse: scan from the last element to the first (ys keep their order).
      unroll: how many steps to unroll per loop iteration (an int, or a
        bool: True unrolls everything). The NumPy backend runs a Python
        loop either way.

    Returns:
      ``(final_carry, stacked_ys)``.

    Example:
      >>> lax.scan(lambda c, x: (c + x, c), 0., jnp.arange(3.))
      (Array(3., dtype=float32), Array([0., 0., 1.], dtype=float32))
    """
    if not callable(f):
        raise TypeError("lax.scan: f argument should be a callable.")
    init_flat, init_tree = tree_flatten(init)
    xs_flat, xs_tree = tree_flatten(xs)
    length = _infer_length(xs_flat, length)
    if config.disable_jit.value:
        return _python_scan(f, init, xs_flat, xs_tree, length, reverse)
    init_avals = common.avals_of(init_flat)
    x_avals = [sharding_rules.unstacked(a) for a in common.avals_of(xs_flat)]
    debug = common.debug_info("scan", f, (init, xs))

    def create_jaxpr(carry_avals):
        in_tree = tree_flatten((tree_unflatten(init_tree, carry_avals), tree_unflatten(xs_tree, x_avals)))[1]
        jaxpr, consts, out_tree, out = common.trace_body(f, in_tree, list(carry_avals) + x_avals, debug)
        if type(out) not in (tuple, list) or len(out) != 2:
            raise TypeError(f"scan body output must be a pair, got {tree_unflatten(out_tree, jaxpr.out_avals)}.")
        carry_tree = tree_flatten(out[0])[1]
        ys_tree = tree_flatten(out[1])[1]
        return jaxpr, consts, carry_tree, ys_tree

    jaxpr, consts, carry_tree, ys_tree = create_jaxpr(init_avals)
    num_carry_out = carry_tree.num_leaves
    carry_out_avals = jaxpr.out_avals[:num_carry_out]
    if num_carry_out != len(init_avals):
        common.check_carry_type("scan body", f, init_tree, init_avals, carry_tree, carry_out_avals)
    promoted = [common.promote_weak_typed_input(v, a, b) for v, a, b in zip(init_flat, init_avals, carry_out_avals, strict=True)]
    init_flat = [v for v, _ in promoted]
    if any(changed for _, changed in promoted):
        init_avals = common.avals_of(init_flat)
        jaxpr, consts, carry_tree, ys_tree = create_jaxpr(init_avals)
        carry_out_avals = jaxpr.out_avals[:carry_tree.num_leaves]
    common.check_carry_type("scan body", f, init_tree, init_avals, carry_tree, carry_out_avals)

    if isinstance(unroll, bool):
        unroll = max(length, 1) if unroll else 1
    if unroll < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
    num_carry, num_xs = len(init_flat), len(xs_flat)
    num_ys = len(jaxpr.outvars) - num_carry
    args_flat = [*init_flat, *xs_flat]

    # A carry the body passes through unchanged is read-only: it becomes a
    # const, and the scan returns the initial value for it.
    carry_fwd, ext_fwd = common.split_list(common.jaxpr_forwarding(jaxpr), [num_carry])[:2]
    move_to_const = [len(consts) + i == fwd for i, fwd in enumerate(carry_fwd)]
    new_consts: list = []
    if any(move_to_const):
        jaxpr = common.prune_outputs(jaxpr, [not m for m in move_to_const] + [True] * num_ys)
        jaxpr = common.move_binders_to_front(jaxpr, [False] * len(consts) + move_to_const + [False] * num_xs)
        args_flat, new_consts = common.partition_list(move_to_const + [False] * num_xs, args_flat)
        consts = [*new_consts, *consts]
        num_carry -= len(new_consts)
    # A y that is an x passes through without being stacked again.
    ext_to_ext = [i - len(consts) if i is not None and i >= num_carry + len(consts) else None for i in ext_fwd]
    ys_keep = [i is None for i in ext_to_ext]
    jaxpr = common.prune_outputs(jaxpr, [True] * num_carry + ys_keep)
    ys_g = ft.nones(len(ys_keep)).filter_with_mask(ys_keep)
    out = scan_p.bind(*consts, *args_flat, reverse=reverse, length=length, jaxpr=jaxpr,
                      ft_in=ft.pack((ft.nones(len(consts)), ft.nones(num_carry), ft.nones(num_xs))),
                      ft_out=ft.pack((ft.nones(num_carry), ys_g)), unroll=unroll)
    carry_out, ys = out[:num_carry], out[num_carry:]
    ys = list(ys_g.update(ys).unfilter().map2(
        ext_to_ext, lambda y, i: y if i is None else common.as_array(args_flat[i])))
    out = [*carry_out, *ys]
    if any(move_to_const):
        out = common.merge_lists(move_to_const + [False] * num_ys, out, new_consts)
    n_carry_leaves = carry_tree.num_leaves
    return tree_unflatten(carry_tree, out[:n_carry_leaves]), tree_unflatten(ys_tree, out[n_carry_leaves:])


def map(f: Callable, xs, *, batch_size: int | None = None):
    """Apply ``f`` to each leading-axis slice of ``xs`` in turn and stack the results.

    The slices are processed one after another by a single `scan` (``f`` is
    traced once), which keeps memory low where `vmap` would evaluate all
    slices at once.

    Args:
      f: the function applied to each slice.
      xs: a pytree of arrays mapped over their leading axis.
      batch_size: if given, `f` is vmapped over batches of this many slices
        (one scan step per batch; a remainder batch runs after the scan).
        0 means one batch of everything.

    Returns:
      The stacked outputs.

    Example:
      >>> lax.map(lambda v: v * v, jnp.arange(4))
      Array([0, 1, 4, 9], dtype=int32)
    """
    if batch_size is None:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
    return _map_in_batches(f, xs, batch_size)


def _map_in_batches(f: Callable, xs, batch_size: int):
    # Whole batches go through a scan of vmap(f); the slices left over (or
    # everything, when no whole batch fits) go through one more vmap(f).
    from pyjax._src.api import vmap

    chunks, leftover = _split_into_batches(xs, batch_size)
    if chunks is None:
        return vmap(f)(leftover)
    chunk_ys = scan(lambda _, chunk: ((), vmap(f)(chunk)), (), chunks)[1]

    def unchunk(y):
        return y.reshape(-1, *y.shape[2:])

    if leftover is None:
        return tree_map(unchunk, chunk_ys)
    from pyjax._src.lax.shapes import concatenate

    leftover_ys = vmap(f)(leftover)
    return tree_map(lambda c, r: concatenate([unchunk(c), r], 0), chunk_ys, leftover_ys)


def _split_into_batches(xs, batch_size: int):
    """(whole batches with a new leading batch axis or None, leftover slices or None)."""
    leaves, treedef = tree_flatten(xs)
    if not leaves:
        return xs, None
    total = leaves[0].shape[0]
    n_chunks = total // batch_size if batch_size else 0
    cut = n_chunks * batch_size

    def tail():
        return tree_unflatten(treedef, [leaf[cut:] for leaf in leaves])

    if n_chunks == 0:
        return None, tail()
    chunks = tree_unflatten(treedef, [leaf[:cut].reshape(n_chunks, batch_size, *leaf.shape[1:]) for leaf in leaves])
    return chunks, (tail() if cut < total else None)


# ---------------------------------------------------------------------------
# JVP: one scan over (primal, tangent) pairs


def _scan_jvp(primals, tangents, *, reverse, length, jaxpr, ft_in, ft_out, unroll):
    nonzeros = [type(t) is not Zero for t in tangents]
    trace = core.current_trace()
    if isinstance(trace, PartialEvalTrace) and not any(trace.is_unknown(p) for p in primals):
        # Linearizing (the JVP runs under partial evaluation with known
        # primals): split the scan directly, as JAX's linearize rule does.
        from pyjax._src.lax.control_flow.scan_ad import scan_linearize

        return scan_linearize(trace, primals, tangents, nonzeros, reverse=reverse, length=length, jaxpr=jaxpr,
                              ft_in=ft_in, ft_out=ft_out, unroll=unroll)
    const_nz, init_nz, xs_nz = ft_in.update(nonzeros).unpack()
    num_ys = _ys_count(ft_out)
    # Fixpoint: a carry's tangent is nonzero if its initial tangent is, or
    # if the body makes it so; each round promotes at least one carry.
    carry_nz = init_nz
    for _ in range(1 + len(carry_nz)):
        nonzeros = list(ft.pack((const_nz, carry_nz, xs_nz)))
        jaxpr_jvp, nonzeros_out = jvp_jaxpr(jaxpr, nonzeros, list(carry_nz) + [False] * num_ys)
        carry_nz_out = ft_out.update(nonzeros_out).unpack()[0]
        if list(carry_nz_out) == list(carry_nz):
            break
        carry_nz = carry_nz.map2(list(carry_nz_out), operator.or_)
    tangents = [instantiate_zeros(t) if nz else None for t, nz in zip(tangents, nonzeros, strict=True)]
    args_ft = ft.pack((ft_in.update(primals), ft_in.update(tangents).filter_with_mask(nonzeros)))
    args = list(ft.zipstar(args_ft))
    invars = ft.zipstar(args_ft.update(jaxpr_jvp.invars))
    outvars = ft.zipstar(ft.pack((ft_out, ft_out.filter_with_mask(nonzeros_out))).update(jaxpr_jvp.outvars))
    body = jaxpr_jvp.replace(invars=list(invars), outvars=list(outvars))
    params = {"reverse": reverse, "length": length, "jaxpr": body, "ft_in": invars.void(), "ft_out": outvars.void(), "unroll": unroll}
    out = scan_p.bind(*args, **params)
    primals_out, tangents_out = ft.zipstar(outvars.update(out)).unpack()
    tangents_out = [t if nz else Zero(tangent_aval(core.get_aval(p)))
                    for t, p, nz in zip(tangents_out.unfilter().vals, primals_out.vals, nonzeros_out, strict=True)]
    return list(primals_out.vals), tangents_out


scan_p.def_jvp(_scan_jvp)


# ---------------------------------------------------------------------------
# Batching


def _scan_batch(axis_data, args, dims, *, reverse, length, jaxpr, ft_in, ft_out, unroll):
    not_mapped = batching.not_mapped
    batched = [d is not not_mapped for d in dims]
    const_b, init_b, xs_b = ft_in.update(batched).unpack()
    num_ys = _ys_count(ft_out)
    carry_b = init_b
    for _ in range(1 + len(carry_b)):
        batched = list(ft.pack((const_b, carry_b, xs_b)))
        jaxpr_batched, batched_out = batching.batch_jaxpr(jaxpr, axis_data, batched, list(carry_b) + [False] * num_ys)
        carry_b_out, ys_b = ft_out.update(batched_out).unpack()
        if list(carry_b_out) == list(carry_b):
            break
        carry_b = carry_b.map2(list(carry_b_out), operator.or_)
    consts, init, xs = (list(t) for t in ft_in.update(args).unpack())
    const_dims, init_dims, xs_dims = (list(t) for t in ft_in.update(dims).unpack())
    new_consts = [batching_util.moveaxis(x, d, 0) if d is not not_mapped and d != 0 else x
                  for x, d in zip(consts, const_dims, strict=True)]
    new_init = []
    for x, d, was, now in zip(init, init_dims, init_b, carry_b, strict=True):
        if now and not was:
            new_init.append(batching_util.broadcast_batch(x, axis_data.size, 0))
        elif now:
            new_init.append(batching_util.moveaxis(x, d, 0))
        else:
            new_init.append(x)
    new_xs = [batching_util.moveaxis(x, d, 1) if d is not not_mapped and d != 1 else x
              for x, d in zip(xs, xs_dims, strict=True)]
    outs = scan_p.bind(*new_consts, *new_init, *new_xs, reverse=reverse, length=length, jaxpr=jaxpr_batched,
                       ft_in=ft_in, ft_out=ft_out, unroll=unroll)
    out_dims = [0 if b else not_mapped for b in carry_b] + [1 if b else not_mapped for b in ys_b]
    return outs, out_dims


scan_p.def_batch(_scan_batch)


def _scan_dce(eqn, used_outputs: list) -> object:
    """Drops the scan's unused outputs and the operands its body no longer
    reads. A carry stays while its next value is read (a fixpoint over the
    carries), so a loop counter nobody reads after the loop goes, as JAX's
    rule drops it before lowering."""
    from pyjax._src.interpreters.dce import dce_jaxpr

    jaxpr, ft_in, ft_out = eqn.params["jaxpr"], eqn.params["ft_in"], eqn.params["ft_out"]
    used_carry, used_ys = (list(g) for g in ft_out.update(used_outputs).unpack())
    n_consts, n_carry, _ = (len(g) for g in ft_in.unpack())
    for _ in range(n_carry + 1):
        used_outputs = used_carry + used_ys
        body, used_inputs = dce_jaxpr(jaxpr, used_outputs, prune_bodies=True)
        # A carry kept on the way out is an operand of the body too (its in and out types pair up).
        used_inputs = [u or (n_consts <= i < n_consts + n_carry and used_carry[i - n_consts])
                       for i, u in enumerate(used_inputs)]
        carry_in = used_inputs[n_consts:n_consts + n_carry]
        if carry_in == used_carry:
            break
        used_carry = [a or b for a, b in zip(used_carry, carry_in, strict=True)]
    body = body.replace(invars=[v for v, u in zip(jaxpr.invars, used_inputs, strict=True) if u])
    params = dict(eqn.params, jaxpr=body, ft_in=ft_in.filter_with_mask(used_inputs),
                  ft_out=ft_out.filter_with_mask(used_outputs))
    return eqn.replace(invars=[v for v, u in zip(eqn.invars, used_inputs, strict=True) if u],
                       outvars=[v for v, u in zip(eqn.outvars, used_outputs, strict=True) if u], params=params)


scan_p.dce_rule = _scan_dce
