"""Pieces shared by the control-flow primitives: tracing bodies, jaxpr
surgery, and the body-level versions of the transformations.

A control-flow primitive hangs jaxprs on one equation. Its API function
traces each Python callable once into a jaxpr whose closed-over values are
*separated*: they become leading inputs of the body and leading operands of
the equation, so a body never carries constants of its own. Its rules then
transform those bodies as whole jaxprs:

    jvp_jaxpr        (primals, nonzero tangents) -> (primals, nonzero tangents)
    linearize_jaxpr  primals -> primals + residuals; (residuals, tangents) -> tangents
    batch_jaxpr      every batched value has its batch axis first

The `instantiate` flags of these helpers force an output to be nonzero (or
batched) even when it would not be: a loop carry must have the same type
on the way in and on the way out.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Sequence

import numpy as np

from pyjax._src import config, core, dtypes
from pyjax._src.ad_util import Zero, tangent_aval
from pyjax._src.ad_util import instantiate as instantiate_zeros
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive, Tracer
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.jvp import jvp_jaxpr
from pyjax._src.interpreters.partial_eval import partial_eval_jaxpr
from pyjax._src.interpreters.staging import DebugInfo, func_src_info, trace_to_jaxpr
from pyjax._src.jaxpr import Jaxpr, Literal, Var, eval_jaxpr
from pyjax._src.tree_util import (
    keystr,
    tree_flatten,
    tree_flatten_with_path,
    tree_unflatten,
)
from pyjax._src.tree_util_errors import equality_errors

# ---------------------------------------------------------------------------
# Tracing a body


def debug_info(traced_for: str, fun: Callable, args: tuple) -> DebugInfo:
    """Where a body came from, for tracer errors raised while tracing it."""
    try:
        names = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        names = []
    arg_names = []
    for i, arg in enumerate(args):
        base = names[i] if i < len(names) else f"args[{i}]"
        arg_names.extend(base + keystr(path) for path, _ in tree_flatten_with_path(arg)[0])
    return DebugInfo(traced_for, func_src_info(fun), arg_names)


def trace_body(fun: Callable, in_tree, in_avals: Sequence[ShapedArray], debug: DebugInfo):
    """Traces `fun` once on abstract arguments of structure `in_tree`.

    Returns (jaxpr, consts, out_tree, out): the jaxpr takes the closed-over
    values first (`consts`, the leading operands of the equation), then the
    flat arguments; it has no constvars of its own. `out_tree` is the
    output's treedef; `out` the raw output, for its structure.

    As in JAX, a body is traced once per function object, argument
    structure and types, and tracing context: calling `lax.scan(f, ...)`
    again (eagerly, or under a new `jit`) reuses the trace, so `f`'s Python
    side effects run once, and globals it reads are those of that trace.
    Bodies that close over an enclosing trace's values are traced anew.
    """
    key = _body_key(fun, in_tree, in_avals)
    if key is not None:
        try:
            per_fun = _BODY_TRACES.get(fun)
        except TypeError:  # an unhashable callable: not cached
            per_fun, key = None, None
        hit = per_fun.get(key) if per_fun is not None else None
        if hit is not None:
            return hit
    result = _trace_body(fun, in_tree, in_avals, debug)
    if key is not None and not any(isinstance(c, Tracer) for c in result[1]):
        try:
            per_fun = _BODY_TRACES.setdefault(fun, {})
        except TypeError:  # not weakly referenceable: not cached
            return result
        if len(per_fun) >= _MAX_TRACES_PER_FUN:
            per_fun.clear()
        per_fun[key] = result
    return result


# fun -> {(in_tree, avals, tracing context): trace_body's result}; entries go
# with their function.
_BODY_TRACES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_MAX_TRACES_PER_FUN = 32


def _body_key(fun, in_tree, in_avals):
    env = batching.axis_env_key()
    try:
        key = (in_tree, tuple(in_avals), config.trace_context(), env)
        hash(key)
    except TypeError:
        return None
    return key


def _trace_body(fun: Callable, in_tree, in_avals: Sequence[ShapedArray], debug: DebugInfo):
    box: list = []

    def flat_fun(*flat):
        out = fun(*tree_unflatten(in_tree, flat))
        out_flat, out_tree = tree_flatten(out)
        box.append((out, out_tree))
        return out_flat

    jaxpr, _ = trace_to_jaxpr(flat_fun, in_avals, debug)
    out, out_tree = box[0]
    opened, consts = separate_consts(jaxpr)
    return opened, consts, out_tree, out


def separate_consts(jaxpr: Jaxpr) -> tuple[Jaxpr, list]:
    """The constvars become leading invars; returns the consts separately."""
    if not jaxpr.constvars:
        return jaxpr, []
    return jaxpr.replace(constvars=[], consts=[], invars=jaxpr.constvars + jaxpr.invars), list(jaxpr.consts)


def close_over(fun: Callable, in_avals: Sequence[ShapedArray], debug=None) -> Jaxpr:
    """Traces a flat function into a closed jaxpr (constants kept as consts)."""
    jaxpr, _ = trace_to_jaxpr(fun, in_avals, debug)
    return jaxpr


def jaxpr_as_fun(jaxpr: Jaxpr) -> Callable:
    return lambda *args: eval_jaxpr(jaxpr, jaxpr.consts, *args)


# ---------------------------------------------------------------------------
# Jaxpr surgery


def jaxpr_forwarding(jaxpr: Jaxpr) -> list[int | None]:
    """For each output, the index of the input it simply passes through
    (no-op casts and broadcasts included), else None."""
    source: dict = {v: v for v in jaxpr.invars}
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in ("convert_element_type", "broadcast_in_dim") and type(eqn.invars[0]) is Var:
            (x,), params = eqn.invars, eqn.params
            if name == "convert_element_type":
                no_op = x.aval.dtype == params["new_dtype"] and x.aval.weak_type == params["weak_type"]
            else:
                no_op = tuple(params["shape"]) == x.aval.shape
            if no_op and params.get("sharding") is None and x in source:
                source[eqn.outvars[0]] = source[x]
    index = {v: i for i, v in enumerate(jaxpr.invars)}
    return [None if type(v) is Literal else index.get(source.get(v)) for v in jaxpr.outvars]


def prune_outputs(jaxpr: Jaxpr, keep: Sequence[bool]) -> Jaxpr:
    if all(keep):
        return jaxpr
    return jaxpr.replace(outvars=[v for v, k in zip(jaxpr.outvars, keep, strict=True) if k])


def move_binders_to_front(jaxpr: Jaxpr, to_move: Sequence[bool]) -> Jaxpr:
    if not any(to_move):
        return jaxpr
    moved = [v for v, m in zip(jaxpr.invars, to_move, strict=True) if m]
    return jaxpr.replace(invars=moved + [v for v, m in zip(jaxpr.invars, to_move, strict=True) if not m])


def move_binders_to_back(jaxpr: Jaxpr, to_move: Sequence[bool]) -> Jaxpr:
    if not any(to_move):
        return jaxpr
    moved = [v for v, m in zip(jaxpr.invars, to_move, strict=True) if m]
    return jaxpr.replace(invars=[v for v, m in zip(jaxpr.invars, to_move, strict=True) if not m] + moved)


def partition_list(which: Sequence[bool], values: Sequence) -> tuple[list, list]:
    """(values where which is False, values where which is True)."""
    return ([v for v, w in zip(values, which, strict=True) if not w],
            [v for v, w in zip(values, which, strict=True) if w])


def merge_lists(which: Sequence[bool], falses: Sequence, trues: Sequence) -> list:
    """The inverse of partition_list."""
    f, t = iter(falses), iter(trues)
    return [next(t) if w else next(f) for w in which]


def split_list(values: Sequence, sizes: Sequence[int]) -> list[list]:
    out, start = [], 0
    for n in sizes:
        out.append(list(values[start:start + n]))
        start += n
    out.append(list(values[start:]))
    return out


def merge_common_consts(jaxprs: Sequence[Jaxpr], all_consts: Sequence[Sequence]) -> tuple[list[Jaxpr], list]:
    """Gives branches one shared list of leading const inputs.

    Each branch takes every branch's consts (those of the others as unused
    inputs); a value closed over by several branches is passed once, under
    the first position it occupies.
    """
    consts = [c for cs in all_consts for c in cs]
    avals = [core.get_aval(c) for c in consts]
    ids = [id(c) for c in consts]
    out, start = [], 0
    for jaxpr, cs in zip(jaxprs, all_consts, strict=True):
        own = jaxpr.invars[:len(cs)]
        padded = ([Var(a) for a in avals[:start]] + own + [Var(a) for a in avals[start + len(cs):]])
        start += len(cs)
        canonical: dict = {}
        rename = {}
        for const_id, var in zip(ids, padded, strict=True):
            rename[var] = canonical.setdefault(const_id, var)
        out.append(_rename(jaxpr, rename, list(canonical.values()) + jaxpr.invars[len(cs):]))
    seen: set = set()
    unique = [c for c in consts if id(c) not in seen and not seen.add(id(c))]
    return out, unique


def _rename(jaxpr: Jaxpr, rename: dict, invars: list) -> Jaxpr:
    sub = lambda v: rename.get(v, v) if type(v) is not Literal else v
    if all(rename.get(v, v) is v for v in rename):
        return jaxpr.replace(invars=invars)
    eqns = [e.replace(invars=[sub(v) for v in e.invars]) for e in jaxpr.eqns]
    return jaxpr.replace(invars=invars, eqns=eqns, outvars=[sub(v) for v in jaxpr.outvars])


# ---------------------------------------------------------------------------
# Types and their checks


def typematch(a: ShapedArray, b: ShapedArray) -> bool:
    """Equal types, ignoring weak types (a carry may start weakly typed)."""
    return a.shape == b.shape and a.dtype == b.dtype


def aval_mismatch_extra(a: ShapedArray, b: ShapedArray) -> str:
    problems = []
    if a.dtype != b.dtype:
        problems.append("the dtypes do not match")
    if a.shape != b.shape:
        problems.append("the shapes do not match")
    if not problems:
        return ""
    if len(problems) == 1:
        return ", so " + problems[0]
    return ", so " + ", ".join(problems[:-1]) + ", and " + problems[-1]


def capitalize(s: str) -> str:
    return s[0].upper() + s[1:]


def _bulleted(diffs: list[str]) -> str:
    if len(diffs) == 1:
        return f"{capitalize(diffs[0])}.\n"
    return "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"


def check_carry_type(name: str, body_fun: Callable, in_tree, in_avals, out_tree, out_avals) -> None:
    """JAX's errors for a loop body whose carry output differs from its input."""
    try:
        carry_name = next(iter(inspect.signature(body_fun).parameters))
    except (ValueError, TypeError, IndexError):
        carry_name = None
    if carry_name:
        component = lambda p: (f"the input carry component {carry_name}{keystr(p)}"
                               if p else f"the input carry {carry_name}")
    else:
        component = lambda p: f"the input carry at path {keystr(p)}" if p else "the input carry"
    if in_tree != out_tree:
        try:
            out_unflat = tree_unflatten(out_tree, out_avals)
        except (TypeError, ValueError):  # a custom node that cannot hold avals
            out_unflat = None
        if out_unflat is None:
            differences = (f"the input tree structure is:\n{in_tree}\n"
                           f"the output tree structure is:\n{out_tree}\n")
        else:
            diffs = [f"{component(path)} is a {thing1} but the corresponding component of the carry "
                     f"output is a {thing2}, so {why}"
                     for path, thing1, thing2, why in equality_errors(tree_unflatten(in_tree, in_avals), out_unflat)]
            if not diffs:
                return
            differences = _bulleted(diffs)
        raise TypeError(
            f"{name} function carry input and carry output must have the same pytree structure, but "
            f"they differ:\n\n{differences}\nRevise the function so that the carry output has the "
            "same pytree structure as the carry input.")
    if all(typematch(a, b) for a, b in zip(in_avals, out_avals, strict=True)):
        return
    paths = [p for p, _ in tree_flatten_with_path(tree_unflatten(in_tree, in_avals))[0]]
    diffs = [f"{component(path)} has type {a.str_short(short_dtypes=False)} but the corresponding output carry "
             f"component has type {b.str_short(short_dtypes=False)}{aval_mismatch_extra(a, b)}"
             for path, a, b in zip(paths, in_avals, out_avals, strict=True) if not typematch(a, b)]
    raise TypeError(
        f"{name} function carry input and carry output must have equal types, but they differ:\n\n"
        f"{_bulleted(diffs)}\nRevise the function so that all output types match the corresponding "
        "input types.")


def promote_weak_typed_input(value, in_aval: ShapedArray, out_aval: ShapedArray):
    """A weakly typed initial carry takes the dtype its output asks for
    (`lax.fori_loop(0, n, f, 0)` with a float body); returns (value, changed)."""
    if in_aval.weak_type and not typematch(in_aval, out_aval):
        from pyjax._src.lax.elementwise import convert_element_type

        new_dtype = dtypes.result_type(value, out_aval)
        return convert_element_type(value, new_dtype), True
    return value, False


def avals_of(values) -> list[ShapedArray]:
    return [core.get_aval(v) for v in values]


# ---------------------------------------------------------------------------
# Body-level transformations


def partial_eval_jaxpr_nounits(jaxpr: Jaxpr, unknowns: Sequence[bool], instantiate: bool | Sequence[bool],
                               fwd: Sequence[bool] | None = None):
    """Splits a closed jaxpr by which inputs are unknown.

    Returns (known, unknown, out_unknowns, res_avals, in_fwd_res): `known`
    maps the known inputs to the known outputs and the residuals it
    computes; `unknown` maps (residuals, unknown inputs) to the unknown
    outputs. `in_fwd_res` has one entry per residual: None for a computed
    one (in order), or the index (among the known inputs) of the input it
    is, when `fwd` allows that input to be forwarded rather than returned.
    Outputs flagged in `instantiate` are unknown even if they could be
    known (their values become residuals).
    """
    n_out = len(jaxpr.outvars)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    jaxpr = _inline_custom_jvp_on_unknowns(jaxpr, unknowns)
    known, unknown, out_uk, sources = partial_eval_jaxpr(jaxpr, unknowns)
    n_known_out = sum(not u for u in out_uk)
    known_outs, computed = known.outvars[:n_known_out], known.outvars[n_known_out:]
    in_fwd_res, res_outs = [], []
    for kind, i in sources:
        if kind == "in" and fwd is not None and fwd[i]:
            in_fwd_res.append(i)
        else:
            in_fwd_res.append(None)
            res_outs.append(known.invars[i] if kind == "in" else computed[i])
    res_vars = list(unknown.invars[:len(sources)])
    kept_known, extra_vars = [], []
    known_it = iter(known_outs)
    unknown_it = iter(unknown.outvars)
    new_outvars = []
    for uk, i in zip(out_uk, inst, strict=True):
        if uk:
            new_outvars.append(next(unknown_it))
            continue
        value = next(known_it)
        if i:
            var = Var(value.aval)
            in_fwd_res.append(None)
            res_outs.append(value)
            extra_vars.append(var)
            new_outvars.append(var)
        else:
            kept_known.append(value)
    out_unknowns = [uk or i for uk, i in zip(out_uk, inst, strict=True)]
    known = known.replace(outvars=kept_known + res_outs)
    unknown = unknown.replace(invars=res_vars + extra_vars + unknown.invars[len(sources):], outvars=new_outvars)
    res_avals = [v.aval for v in res_vars + extra_vars]
    return known, unknown, out_unknowns, res_avals, in_fwd_res


def _inline_custom_jvp_on_unknowns(jaxpr: Jaxpr, unknowns: Sequence[bool]) -> Jaxpr:
    """`jaxpr` with each custom_jvp_call that reads an unknown input replaced
    by its body.

    JAX's partial evaluation keeps no custom JVP rule for such a call (only
    linear functions are partially evaluated with unknowns): under grad of a
    scan, the relu in the known body is its inner jit, not a custom_jvp_call.
    """
    from pyjax._src.custom_derivatives import custom_jvp_call_p

    unknown_vars = {v for v, uk in zip(jaxpr.invars, unknowns, strict=True) if uk}
    inline = set()
    for i, eqn in enumerate(jaxpr.eqns):
        if any(type(v) is not Literal and v in unknown_vars for v in eqn.invars):
            unknown_vars.update(eqn.outvars)
            if eqn.primitive is custom_jvp_call_p:
                inline.add(i)
    if not inline:
        return jaxpr

    def inlined(*args):
        env = dict(zip(jaxpr.constvars, jaxpr.consts, strict=True))
        env.update(zip(jaxpr.invars, args, strict=True))
        read = lambda v: v.val if type(v) is Literal else env[v]
        for i, eqn in enumerate(jaxpr.eqns):
            ins = [read(v) for v in eqn.invars]
            if i in inline:
                body = eqn.params["call_jaxpr"]
                outs = eval_jaxpr(body, body.consts, *ins)
            else:
                outs = eqn.primitive.bind(*ins, **eqn.params)
                outs = outs if eqn.primitive.multiple_results else [outs]
            env.update(zip(eqn.outvars, outs, strict=True))
        return [read(v) for v in jaxpr.outvars]

    return close_over(inlined, jaxpr.in_avals, jaxpr.debug_info)


def linearize_jaxpr(jaxpr: Jaxpr, nonzeros: Sequence[bool], instantiate: bool | Sequence[bool],
                    allow_fwds: Sequence[bool]):
    """Splits a jaxpr's JVP into a primal and a tangent jaxpr.

    Returns (primal_jaxpr, num_res_out, out_nonzeros, in_fwd_res, tangent_jaxpr):
    primal_jaxpr maps primals to (primal outputs, computed residuals);
    in_fwd_res has one entry per residual, None for a computed one (in
    order) or the index of the primal input it is; tangent_jaxpr maps
    (residuals, nonzero tangents) to the nonzero output tangents. A
    residual that is an input is forwarded only where `allow_fwds` says so;
    outputs flagged in `instantiate` get a (zero) tangent made by the
    tangent jaxpr.
    """
    n_in, n_out = len(jaxpr.invars), len(jaxpr.outvars)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    jvp, natural_nz = jvp_jaxpr(jaxpr, nonzeros, False)
    n_t = sum(nonzeros)
    known, unknown, _, res_avals, in_fwd_res = partial_eval_jaxpr_nounits(
        jvp, [False] * n_in + [True] * n_t, [False] * n_out + [True] * sum(natural_nz), list(allow_fwds) + [False] * n_t)
    out_nz = [a or b for a, b in zip(natural_nz, inst, strict=True)]
    num_res_out = len(known.outvars) - n_out
    if out_nz == natural_nz:
        return known, num_res_out, out_nz, in_fwd_res, unknown
    # Zero tangents asked for are made by the tangent jaxpr itself.
    n_res = len(res_avals)
    out_avals = jaxpr.out_avals

    def tangent_fun(*args):
        outs = iter(eval_jaxpr(unknown, unknown.consts, *args))
        return [next(outs) if nz else instantiate_zeros(Zero(tangent_aval(a)))
                for a, nz, want in zip(out_avals, natural_nz, out_nz, strict=True) if want]

    tangent_jaxpr = close_over(tangent_fun, [v.aval for v in unknown.invars], jaxpr.debug_info)
    del n_res
    return known, num_res_out, out_nz, in_fwd_res, tangent_jaxpr


# ---------------------------------------------------------------------------
# empty2: an uninitialised scalar, the filler of residuals a branch lacks


class MemorySpace:
    """Where a buffer lives; printed as JAX prints its enum member."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"MemorySpace.{self.name}"

    __str__ = __repr__


DEVICE = MemorySpace("Device")

empty2_p = Primitive("empty2")


@empty2_p.def_abstract_eval
def _empty2_abstract_eval(*, dtype, memory_space):
    return ShapedArray((), dtype)


def empty_like_aval(aval: ShapedArray):
    """A value of `aval` whose contents nobody reads (a branch's stand-in
    for a residual only another branch computes)."""
    from pyjax._src.lax.shapes import broadcast_in_dim

    value = empty2_p.bind(dtype=aval.dtype, memory_space=DEVICE)
    if not aval.shape:
        return value
    return broadcast_in_dim(value, aval.shape, ())


def is_concrete(x) -> bool:
    """A value known now (not a tracer of a transformation in progress)."""
    return not isinstance(x, core.Tracer)


def as_array(x):
    """A value as an array of the current trace: NumPy values and Python
    scalars become constants (literals when staged), arrays stay."""
    if hasattr(x, "aval"):
        return x
    from pyjax._src.lax.elementwise import _constant

    aval = core.concrete_aval(x)
    return _constant(np.asarray(x, aval.dtype), aval.weak_type)


__all__ = [
    "check_carry_type",
    "debug_info",
    "empty2_p",
    "empty_like_aval",
    "jaxpr_forwarding",
    "linearize_jaxpr",
    "merge_common_consts",
    "move_binders_to_back",
    "move_binders_to_front",
    "partial_eval_jaxpr_nounits",
    "promote_weak_typed_input",
    "prune_outputs",
    "separate_consts",
    "trace_body",
    "typematch",
]
