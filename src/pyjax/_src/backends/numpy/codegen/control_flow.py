"""The NumPy backend's control flow: Python `if` / `while` / `for` with the
bodies written inline.

Two entry points per primitive:

- a compile *emitter* (inside jit) writes the loop or branch into the
  generated source of the enclosing function, each body spliced in as
  straight-line code (`ProgramBuilder.block`): an iteration costs only its
  NumPy calls, with no Python call, argument tuple or result list:

      # _scan_body0 (inlined), 5000 steps
      d = c
      for e in b:
          f = a.dot(d)                 # W @ h: ndarray.dot, a fresh buffer ...
          del d
          g = _np_add_0(f, e, f)       # ... that the add and tanh reuse in place
          del f, e
          h = _np_tanh_1(g, g)
          del g
          d = h

  Stacked ys are preallocated; a ufunc computing a y writes its row
  (`np.exp(x, _ys0_1[_i0])`), other ys are copied in (`_ys0_2[_i0] = c`).
  Carries are rebound together (`c, d = d, c` is a swap), after the ys rows
  that may read their old values.
- an *impl* (eager `lax.scan(...)`, `lax.cond(...)` outside jit): a scan or
  while compiles its equation alone into the same code jit writes
  (`compiled_equation`, cached per equation); a cond calls its compiled
  branch (`compiled_body`, cached per branch).

Semantics follow XLA: a `cond` index out of range runs the last branch; a
`while` whose predicate is batched (vmap of a data-dependent loop) runs
until every lane is done, freezing the lanes that finished.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from pyjax._src import dispatch as _dispatch
from pyjax._src.backends.numpy.codegen import compile as compile_lib
from pyjax._src.backends.numpy.impls import IMPLS as _DEFAULT_IMPLS
from pyjax._src.backends.numpy.xla.rewrite import simplify
from pyjax._src.jaxpr import Jaxpr, JaxprEqn, Var
from pyjax._src.lax.control_flow import common as _common
from pyjax._src.lax.control_flow.cond import cond_p
from pyjax._src.lax.control_flow.loops import while_p
from pyjax._src.lax.control_flow.scan import scan_p

__all__ = ["EMITTERS", "IMPLS"]

# ---------------------------------------------------------------------------
# Compiled bodies for eager execution

_BODY_CACHE: OrderedDict = OrderedDict()
_BODY_CACHE_SIZE = 256


def compiled_body(jaxpr) -> Callable:
    """`jaxpr` compiled once; eager calls of the same equation reuse it. The
    cache holds the jaxpr itself, so an id is not reused while cached."""
    entry = _BODY_CACHE.get(id(jaxpr))
    if entry is not None and entry[0] is jaxpr:
        _BODY_CACHE.move_to_end(id(jaxpr))
        return entry[1]
    fn = compile_lib.compile_jaxpr(simplify(jaxpr), _DEFAULT_IMPLS, name="body").func  # one XLA computation: its rewrites too
    _BODY_CACHE[id(jaxpr)] = (jaxpr, fn)
    if len(_BODY_CACHE) > _BODY_CACHE_SIZE:
        _BODY_CACHE.popitem(last=False)
    return fn


_PY_SCALARS = (bool, int, float, complex)


def _scalars_as_buffers(args, avals) -> list:
    # An eager loop's Python-scalar operands (a carry `0` or `1.0`) become
    # NumPy scalars of their avals' dtypes, as jit hands the same program
    # its inputs: the body then computes int32/float32, not int64/float64.
    return [np.asarray(a, v.dtype)[()] if type(a) in _PY_SCALARS else a for a, v in zip(args, avals, strict=True)]


def _as_buffer(value, aval):
    # A loop that runs zero times returns its inputs, which may be Python or
    # NumPy scalars; results are NumPy values of the promised dtype.
    if type(value) is np.ndarray and value.dtype == aval.dtype:
        return value
    return np.asarray(value, aval.dtype)


# ---------------------------------------------------------------------------
# Eager impls


def _branch_index(index, n: int) -> int:
    # XLA's Conditional: an index outside [0, n) selects the last branch.
    k = int(index)
    return k if 0 <= k < n else n - 1


def _cond_impl(index, *args, branches):
    branch = branches[_branch_index(index, len(branches))]
    outs = compiled_body(branch)(*_scalars_as_buffers(args, branch.in_avals))
    return [_as_buffer(o, a) for o, a in zip(outs, branch.out_avals, strict=True)]


def run_while(cond_fn, body_fn, cond_consts, body_consts, carry, batched: bool):
    """The while loop over compiled bodies (also called by emitted code when
    the predicate is batched)."""
    if not batched:
        while cond_fn(*cond_consts, *carry)[0]:
            carry = body_fn(*body_consts, *carry)
        return list(carry)
    pred = np.asarray(cond_fn(*cond_consts, *carry)[0])
    while pred.any():
        new = body_fn(*body_consts, *carry)
        # Lanes whose predicate is false keep their carry; the predicate's
        # shape is a prefix of every carry's shape.
        carry = [np.where(pred.reshape(pred.shape + (1,) * (np.ndim(c) - pred.ndim)), n, c)
                 for n, c in zip(new, carry, strict=True)]
        pred = np.asarray(cond_fn(*cond_consts, *carry)[0])
    return carry


_EQN_CACHE: OrderedDict = OrderedDict()


def compiled_equation(primitive, params: dict, in_avals: list) -> Callable:
    """One loop equation compiled alone, exactly as jit compiles it (bodies
    inlined into the loop), for eager execution. Cached by the identity of
    its params: by value where a param hashes (the flat-tree shapes, ints,
    and jaxprs, whose hash is their identity), by identity otherwise (the
    cache holds the params, so an id is not reused while cached). A body
    traced once (common.trace_body's cache) thus compiles once however
    often it is called eagerly."""
    key = (primitive, *params.values())
    try:
        entry = _EQN_CACHE.get(key)
    except TypeError:  # an unhashable param
        key = (primitive, *(id(v) for v in params.values()))
        entry = _EQN_CACHE.get(key)
    if entry is not None:
        _EQN_CACHE.move_to_end(key)
        return entry[1]
    invars = [Var(a) for a in in_avals]
    outvars = [Var(a) for a in primitive.out_avals(tuple(in_avals), params)]
    program = Jaxpr([], invars, outvars, [JaxprEqn(primitive, invars, outvars, params)])
    fn = compile_lib.compile_jaxpr(simplify(program), _DEFAULT_IMPLS, name=primitive.name).func  # as jit rewrites it
    _EQN_CACHE[key] = (params, fn)
    if len(_EQN_CACHE) > _BODY_CACHE_SIZE:
        _EQN_CACHE.popitem(last=False)
    return fn


def _while_impl(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cond_consts = args[:cond_nconsts]
    body_consts = args[cond_nconsts:cond_nconsts + body_nconsts]
    if cond_jaxpr.out_avals[0].shape:  # batched predicate
        carry = _scalars_as_buffers(args[cond_nconsts + body_nconsts:], body_jaxpr.in_avals[body_nconsts:])
        outs = run_while(compiled_body(cond_jaxpr), compiled_body(body_jaxpr), cond_consts, body_consts, carry, True)
        return [_as_buffer(o, a) for o, a in zip(outs, body_jaxpr.out_avals, strict=True)]
    params = {"cond_jaxpr": cond_jaxpr, "body_jaxpr": body_jaxpr, "cond_nconsts": cond_nconsts,
              "body_nconsts": body_nconsts}
    in_avals = cond_jaxpr.in_avals[:cond_nconsts] + body_jaxpr.in_avals
    return compiled_equation(while_p, params, in_avals)(*_scalars_as_buffers(args, in_avals))


def _scan_counts(ft_in) -> tuple[int, int]:
    consts, carry, _ = ft_in.unpack()
    return len(consts), len(carry)


def _scan_impl(*args, reverse, length, jaxpr, ft_in, ft_out, unroll):
    nc, nk = _scan_counts(ft_in)
    params = {"reverse": reverse, "length": length, "jaxpr": jaxpr, "ft_in": ft_in, "ft_out": ft_out,
              "unroll": unroll}
    body_avals = jaxpr.in_avals
    in_avals = body_avals[:nc + nk] + [a.update(shape=(length, *a.shape)) for a in body_avals[nc + nk:]]
    xs = [np.asarray(x) for x in args[nc + nk:]]
    return compiled_equation(scan_p, params, in_avals)(*_scalars_as_buffers(args[:nc + nk], in_avals[:nc + nk]), *xs)


def _empty2_impl(*, dtype, memory_space):
    return np.zeros((), dtype)


def _drop_compiled() -> None:
    # jax_enable_checks switched: bodies compile again, with or without checks.
    _BODY_CACHE.clear()
    _EQN_CACHE.clear()


_dispatch._check_hooks.append(_drop_compiled)

# The eager impls of the control-flow primitives (install() merges them
# into the backend's table, which they compile their bodies with).
IMPLS = {cond_p: _cond_impl, while_p: _while_impl, scan_p: _scan_impl, _common.empty2_p: _empty2_impl}

# ---------------------------------------------------------------------------
# Compile emitters: the loop written into the enclosing function's source,
# bodies inlined (`ProgramBuilder.block`) so an iteration is straight-line
# code over locals, with no call, argument tuple or result list.

_names = itertools.count()


def _assign(targets: list[str], values: list[str]) -> list[str]:
    """`t1, t2 = v1, v2` (simultaneous, so a swap of carries is safe); no
    line for names already equal."""
    pairs = [(t, v) for t, v in zip(targets, values, strict=True) if t != v]
    if not pairs:
        return []
    return [f"{', '.join(t for t, _ in pairs)} = {', '.join(v for _, v in pairs)}"]


def _indent(lines: list[str], level: int = 1) -> list[str]:
    return ["    " * level + line for line in lines]


def _emit_cond(builder, eqn, ins):
    branches = eqn.params["branches"]
    # Branches read the operands where they are (never deleting or writing them).
    blocks = [builder.block(b, [v.name for v in ins[1:]]) for b in branches]
    k = f"_k{next(_names)}"

    def render(in_names, out_names):
        lines = [f"{k} = int({in_names[0]})"]
        for i, block in enumerate(blocks):
            if i == len(blocks) - 1:
                lines.append("else:" if i else "if True:")
            else:
                lines.append(f"{'if' if i == 0 else 'elif'} {k} == {i}:")
            body = block.lines + _assign(out_names, block.out_names)
            lines.extend(_indent(body or ["pass"]))
        # Results stay as the branch made them: a 0-d result may be a NumPy
        # scalar, as everywhere in compiled code (scalar math on it is fast).
        return lines

    return builder.statement(render, ins, [v.aval for v in eqn.outvars])


def _emit_while(builder, eqn, ins):
    p = eqn.params
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    out_avals = [v.aval for v in eqn.outvars]
    as_buffer = builder.constant(_as_buffer, "as_buffer")
    avals = [builder.constant(a, "aval") for a in out_avals]
    if p["cond_jaxpr"].out_avals[0].shape:
        # A batched predicate (vmap of a data-dependent loop): lanes freeze
        # as they finish; rare, so the bodies stay separate functions.
        cond_fn = builder.compile_sub(p["cond_jaxpr"], "while_cond")
        body_fn = builder.compile_sub(p["body_jaxpr"], "while_body")
        run = builder.constant(run_while, "run_while")

        def render_batched(in_names, out_names):
            cconsts, bconsts, init = in_names[:nc], in_names[nc:nc + nb], in_names[nc + nb:]
            call = (f"{run}({cond_fn}, {body_fn}, ({_tuple(cconsts)}), ({_tuple(bconsts)}), "
                    f"({_tuple(init)}), True)")
            return [f"{_targets(out_names)} = {call}"] + [
                f"{o} = {as_buffer}({o}, {a})" for o, a in zip(out_names, avals, strict=True)]

        return builder.statement(render_batched, ins, out_avals)

    cconsts, bconsts = ins[:nc], ins[nc:nc + nb]
    body = builder.block(p["body_jaxpr"], [v.name for v in bconsts] + [None] * len(out_avals))
    carry = body.in_names[nb:]  # the loop variables
    cond = builder.block(p["cond_jaxpr"], [v.name for v in cconsts] + carry)

    # A loop with no outputs (its carries all forwarded) has nothing for a
    # native tier to compute: the Python loop runs alone.
    native = _loop_tier(builder, eqn)
    native_name = builder.constant(native, "native_while") if native is not None else None
    n = next(_names)

    def render(in_names, out_names):
        lines = _assign(carry, in_names[nc + nb:])
        if native_name is not None:
            lines.append(f"_n{n} = 0")  # iterations, for the native tier's threshold
        lines.append("while True:")
        lines.extend(_indent(cond.lines))
        lines.append(f"    if not {cond.out_names[0]}:")
        lines.append("        break")
        lines.extend(_indent(body.lines + _assign(carry, body.out_names)))
        if native_name is not None:
            lines.append(f"    _n{n} += 1")
        lines.extend(f"{o} = {as_buffer}({c}, {a})" for o, c, a in zip(out_names, carry, avals, strict=True))
        if native_name is None:
            return lines
        return with_native_tier(native_name, n, f"_n{n}", lines, in_names, out_names)

    return builder.statement(render, ins, out_avals)


def _loop_tier(builder, eqn):
    # The loop tier's plan for this scan or while (tiers.py: native/ writes it as C), or None.
    loop = builder.tiers.loop
    return loop(eqn, builder.impls) if loop is not None and eqn.outvars else None


def with_native_tier(native_name: str, n: int | str, steps: str, lines: list[str], in_names, out_names,
                     out_buffers: Sequence[str] = ()) -> list[str]:
    # The native tier (native.py) first: its outputs, or None and the Python
    # loop, which then reports its steps and outputs. `out_buffers`: arrays
    # (or None) the native code writes its outputs into once live.
    result = f"_nr{n}"
    return [f"{result} = {native_name}.run({', '.join([*in_names, *out_buffers])})",
            f"if {result} is not None:",
            f"    {_targets(out_names)} = {result}",
            "else:",
            *_indent(lines + [f"{native_name}.check({steps}, {', '.join(out_names)})"])]


_region_ids = itertools.count()


def emit_native_region(builder, jaxpr: Jaxpr, native, env: dict, *, name: str, what: str, steps: int, tag: str,
                       tiers, writes_input: bool = False) -> None:
    """Emits `jaxpr` (a region's equations: its invars bound in `env`, its
    outvars bound there after) as a region tier writes it: the native tier
    `native` first, else the equations' Python code (compiled with `tiers`,
    under a `# what` comment), which then reports `steps` to it. With
    `writes_input`, the live tier may write its first output into an input
    this function owns and reads nowhere after (`builder.statement`).
    `name` names the tier's constant, `tag` the result (`_nr<tag><n>`)."""
    ins = [env[v] for v in jaxpr.invars]
    block = builder.block(jaxpr, [None] * len(ins), tiers=tiers)
    native_name = builder.constant(native, name)
    n = next(_region_ids)

    def render(in_names, out_names, out_buffer=None):
        lines = [f"# {what}", *_assign(block.in_names, in_names), *block.lines, *_assign(out_names, block.out_names)]
        buffers = [out_buffer, *["None"] * (len(out_names) - 1)] if out_buffer else []
        return with_native_tier(native_name, f"{tag}{n}", str(steps), lines, in_names, out_names, buffers)

    outs = builder.statement(render, ins, [v.aval for v in jaxpr.outvars], writes_input=writes_input)
    for var, value in zip(jaxpr.outvars, outs, strict=True):
        env[var] = value


def _targets(names: list[str]) -> str:
    # An assignment target list; `()` (valid Python) unpacks no values.
    return ", ".join(names) + "," if names else "()"


def _tuple(names: list[str]) -> str:
    return ", ".join(names) + ("," if len(names) == 1 else "")


def _emit_scan(builder, eqn, ins):
    p = eqn.params
    nc, nk = _scan_counts(p["ft_in"])
    length, reverse = p["length"], p["reverse"]
    out_avals = [v.aval for v in eqn.outvars]
    y_avals = p["jaxpr"].out_avals[nk:]
    nx = len(ins) - nc - nk
    n = next(_names)
    i = f"_i{n}"
    # The stacked ys, preallocated; a ufunc computing a y writes its row directly.
    stacked = [f"_ys{n}_{k}" for k in range(len(y_avals))]
    body = builder.block(p["jaxpr"], [v.name for v in ins[:nc]] + [None] * (nk + nx),
                         [None] * nk + [f"{y}[{i}]" for y in stacked])
    carry, x_names = body.in_names[nc:nc + nk], body.in_names[nc + nk:]
    empty = builder.constant(np.empty, "np_empty")
    dtypes = [builder.constant(a.dtype, "dtype") for a in y_avals]
    as_buffer = builder.constant(_as_buffer, "as_buffer")
    carry_avals = [builder.constant(a, "aval") for a in out_avals[:nk]]
    native = _loop_tier(builder, eqn)  # (see _emit_while)
    native_name = builder.constant(native, "native_scan") if native is not None else None

    def render(in_names, out_names):
        lines = python_loop(in_names, out_names)
        if native_name is None:
            return lines
        return with_native_tier(native_name, n, str(length), lines, in_names, out_names)

    def python_loop(in_names, out_names):
        init, xs = in_names[nc:nc + nk], in_names[nc + nk:]
        ys = out_names[nk:]
        lines = [f"# _scan_body{n} (inlined), {length} steps{' in reverse' if reverse else ''}"]
        lines += _assign(carry, init)
        for y, aval, dt in zip(stacked, y_avals, dtypes, strict=True):
            lines.append(f"{y} = {empty}({(length, *aval.shape)!r}, {dt})")
        # Iterating the xs yields the same views as indexing them, ~30 ns faster.
        targets, iterables = list(x_names), [f"{x}[::-1]" if reverse else x for x in xs]
        if ys or not xs:
            targets.insert(0, i)
            iterables.insert(0, f"range({length - 1}, -1, -1)" if reverse else f"range({length})")
        if len(iterables) == 1:
            lines.append(f"for {targets[0]} in {iterables[0]}:")
        else:
            lines.append(f"for {', '.join(targets)} in zip({', '.join(iterables)}):")
        step = list(body.lines)
        # ys first: a y may be the old value of a carry the next line rebinds.
        step += [f"{y}[{i}] = {t}" for k, (y, t) in enumerate(zip(stacked, body.out_names[nk:], strict=True))
                 if nk + k not in body.written]
        step += _assign(carry, body.out_names[:nk])
        lines.extend(_indent(step or ["pass"]))
        lines += _assign(ys, stacked)
        lines.extend(f"{o} = {as_buffer}({c}, {a})" for o, c, a in zip(out_names[:nk], carry, carry_avals, strict=True))
        return lines

    return builder.statement(render, ins, out_avals)


EMITTERS = {"cond": _emit_cond, "while": _emit_while, "scan": _emit_scan}
