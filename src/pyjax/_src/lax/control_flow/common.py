"""Pieces shared by the control-flow primitives: tracing bodies, jaxpr
surgery, carry type checks.

A control-flow primitive hangs jaxprs on one equation. Its API function
traces each Python callable once into a jaxpr whose closed-over values are
*separated*: they become leading inputs of the body and leading operands of
the equation, so a body never carries constants of its own. Its rules then
transform those bodies as whole jaxprs, with the transformations of
interpreters/ (each exists once there):

    jvp_jaxpr        (primals, nonzero tangents) -> (primals, nonzero tangents)   interpreters/jvp.py
    linearize_jaxpr  primals -> primals + residuals; (residuals, tangents) -> tangents
    partial_eval_jaxpr_nounits  known and unknown parts                          interpreters/partial_eval.py
    batch_jaxpr      every batched value has its batch axis first                 interpreters/batching.py

The `instantiate` flags of these force an output to be nonzero (or
batched) even when it would not be: a loop carry must have the same type
on the way in and on the way out.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Sequence

import numpy as np

from pyjax._src import config, core, dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.rules import unimplemented
from pyjax._src.core import Primitive, Tracer
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.staging import DebugInfo, func_src_info, register_staging_cache, trace_to_jaxpr
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
_BODY_TRACES: weakref.WeakKeyDictionary = register_staging_cache(weakref.WeakKeyDictionary())
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
    """Equal types, ignoring weak types (a carry may start weakly typed);
    inside a shard_map body the manual axes they vary over count too."""
    return a.shape == b.shape and a.dtype == b.dtype and set(_vma(a)) == set(_vma(b))


def _vma(a) -> tuple:
    return getattr(a, "vma", ())


def minus_vma(a, b) -> tuple:
    """The manual axes `a` varies over and `b` does not."""
    return tuple(n for n in _vma(a) if n not in _vma(b))


def pcast_hints(hints: list) -> str:
    """JAX's hint after a vma mismatch: `hints` holds (axes, where) per
    output needing a `pcast(..., axes, to='varying')`."""
    texts = [f"applying `jax.lax.pcast(..., {axes}, to='varying')`{where}" for axes, where in hints]
    if not texts:
        return ""
    if len(texts) == 1:
        text = f"This might be fixed by {texts[0]}.\n"
    else:
        text = "This might be fixed by:\n" + "".join(f"  * {h};\n" for h in texts[:-1]) + f"  * {texts[-1]}.\n"
    return text + "See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.\n\n"


def aval_mismatch_extra(a: ShapedArray, b: ShapedArray) -> str:
    problems = []
    if a.dtype != b.dtype:
        problems.append("the dtypes do not match")
    if a.shape != b.shape:
        problems.append("the shapes do not match")
    if set(_vma(a)) != set(_vma(b)):
        problems.append("the manual axis types do not match")
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
    hints = pcast_hints([(minus_vma(b, a), f", to the initial carry value corresponding to {component(path)}")
                         for path, a, b in zip(paths, in_avals, out_avals, strict=True)
                         if not typematch(a, b) and minus_vma(b, a)])
    raise TypeError(
        f"{name} function carry input and carry output must have equal types, but they differ:\n\n"
        f"{_bulleted(diffs)}\n{hints}Revise the function so that all output types match the corresponding "
        "input types.")


def promote_weak_typed_input(value, in_aval: ShapedArray, out_aval: ShapedArray):
    """A weakly typed initial carry takes the dtype its output asks for
    (`lax.fori_loop(0, n, f, 0)` with a float body); returns (value, changed)."""
    if in_aval.weak_type and (in_aval.shape, in_aval.dtype) != (out_aval.shape, out_aval.dtype):
        from pyjax._src.lax.elementwise import convert_element_type

        new_dtype = dtypes.result_type(value, out_aval)
        return convert_element_type(value, new_dtype), True
    return value, False


def avals_of(values) -> list[ShapedArray]:
    return [core.get_aval(v) for v in values]


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
empty2_p.declare(sharding_reason='no operands: an uninitialised buffer typed by its abstract evaluation')
# (JAX 0.11 gives it no derivative or batching rule either: a branch's stand-in value)
empty2_p.def_jvp(unimplemented(""))
empty2_p.def_batch(unimplemented(""))


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
    "merge_common_consts",
    "move_binders_to_back",
    "move_binders_to_front",
    "promote_weak_typed_input",
    "prune_outputs",
    "separate_consts",
    "trace_body",
    "typematch",
]
