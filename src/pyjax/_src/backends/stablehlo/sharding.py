"""Shardy annotations of sharded programs, as JAX 0.11 prints them.

A jitted program over Explicit-sharded types carries its mesh as
`sdy.mesh @mesh` (and `mhlo.num_partitions` = the mesh's size), each
argument and result of `@main` its `sdy.sharding`, and after the ops whose
JAX lowering rule applies the type's sharding (`lower_with_sharding_in_types`
in JAX: elementwise ops, reductions, dot_general, broadcasts, reshapes,
reshard, calls, ...) an `sdy.sharding_constraint` of the result's sharding.
Types on a mesh with no Explicit axis (all Auto, or all Manual inside
shard_map) get no constraint, as in JAX.

The IREE backend lowers with `ModuleContext.shardings = False`: IREE has
no Shardy dialect, and one device needs none of it.
"""

from __future__ import annotations

from pyjax._src.backends.stablehlo.ir import Module

# Primitives whose JAX lowering constrains every result to its type's sharding.
CONSTRAINED = frozenset("""
neg sin cos exp log tanh sqrt rsqrt cbrt tan abs floor ceil expm1 log1p not is_finite real imag population_count clz
add add_any sub mul div max min pow atan2 rem and or xor shift_left shift_right_arithmetic shift_right_logical
erf erfc erf_inv lgamma digamma asin acos atan sinh cosh asinh acosh atanh bessel_i1e nextafter polygamma zeta
integer_pow convert_element_type bitcast_convert_type select_n clamp complex reduce_precision optimization_barrier
dot_general broadcast_in_dim concatenate pad squeeze reshape rev transpose split tile iota
reduce_sum reduce_prod reduce_max reduce_min reduce_and reduce_or reduce_xor sort top_k
slice dynamic_slice dynamic_update_slice gather scatter scatter_add scatter_mul scatter_min scatter_max
conv_general_dilated reshard jit closed_call remat2 cond while
""".split())

MESH_NAME = "mesh"


def _axis_types(mesh) -> list[str]:
    return [getattr(t, "name", str(t)) for t in getattr(mesh, "axis_types", ())]


def typed_sharding(aval):
    """The sharding of `aval`'s type when JAX constrains to it (a mesh with
    an Explicit axis), else None."""
    sharding = getattr(aval, "sharding", None)
    mesh = getattr(sharding, "mesh", None)
    if mesh is None or getattr(mesh, "empty", True):
        return None
    kinds = _axis_types(mesh)
    if all(k == "Manual" for k in kinds) or all(k == "Auto" for k in kinds):
        return None
    return sharding


def dims_text(spec, ndim: int, open_dims: bool = False) -> str:
    """`[{"x"}, {}]`: one entry per dimension (closed; `{?}` unconstrained;
    each open, `{"x", ?}`, with `open_dims`)."""
    entries = []
    for i in range(ndim):
        part = spec[i] if i < len(spec) else None
        if _unconstrained(part) or (part is None and open_dims):
            entries.append("{?}")
        elif part is None:
            entries.append("{}")
        else:
            names = part if isinstance(part, tuple) else (part,)
            entries.append("{" + ", ".join(f'"{n}"' for n in names) + (", ?" if open_dims else "") + "}")
    return "[" + ", ".join(entries) + "]"


def has_auto_axes(mesh) -> bool:
    return "Auto" in _axis_types(mesh)


def _typed_text(sharding, ndim: int) -> str:
    # A type on a mesh with Auto axes leaves every dimension open to the
    # partitioner and lists the Explicit axes it does not use as replicated
    # (JAX's `_to_sdy_sharding(modify_wrt_axis_types=True)`).
    if not has_auto_axes(sharding.mesh):
        return dims_text(sharding.spec, ndim)
    used = {n for part in sharding.spec if part is not None and not _unconstrained(part)
            for n in (part if isinstance(part, tuple) else (part,))}
    kinds = dict(zip(sharding.mesh.axis_names, _axis_types(sharding.mesh)))
    replicated = [n for n in sharding.mesh.axis_names if kinds[n] == "Explicit" and n not in used]
    text = dims_text(sharding.spec, ndim, open_dims=True)
    return text + (", replicated={" + ", ".join(f'"{n}"' for n in replicated) + "}" if replicated else "")


def _unconstrained(part) -> bool:
    from pyjax._src.sharding.partition_spec import UNCONSTRAINED

    return part is UNCONSTRAINED


def mesh_decl(name: str, mesh) -> str:
    axes = list(zip(mesh.axis_names, mesh.axis_sizes))
    short = ", ".join(f'"{n}"={s}' for n, s in axes)
    long = ", ".join(f'{{name = "{n}", size = {s} : i64}}' for n, s in axes)
    return f"sdy.mesh @{name} = <[{short}]> {{stablehlo.mesh = {{axes = [{long}]}}}}"


def use_mesh(module: Module, mesh) -> str:
    """Declares `mesh` as the module's `@mesh` (once) and sets
    `mhlo.num_partitions` to its size; returns the symbol."""
    decl = mesh_decl(MESH_NAME, mesh)
    if decl not in module.preamble:
        module.preamble.insert(0, decl)
        size = 1
        for s in mesh.axis_sizes:
            size *= s
        module.attributes = module.attributes.replace("mhlo.num_partitions = 1 ", f"mhlo.num_partitions = {size} ")
    return MESH_NAME


def sharding_text(module: Module, sharding, ndim: int, typed: bool = False) -> str:
    """`<@mesh, [{"x"}, {}]>` (`typed`: a type's sharding, open on a mesh with Auto axes)."""
    dims = _typed_text(sharding, ndim) if typed else dims_text(sharding.spec, ndim)
    return f"<@{use_mesh(module, sharding.mesh)}, {dims}>"


def respec(aval, change):
    """`aval`'s typed sharding with its spec (one entry per dimension)
    changed by `change` (the sharding of a slice or a grown value), or None."""
    from types import SimpleNamespace

    s = typed_sharding(aval)
    if s is None:
        return None
    spec = tuple(s.spec) + (None,) * (len(aval.shape) - len(s.spec))
    return SimpleNamespace(mesh=s.mesh, spec=change(spec))


def _print_constraint(op, p, indent, in_func):
    return f"sdy.sharding_constraint {p.v(op.operands[0])} {op.attrs['sharding']} : {op.results[0].type}"


def constrain(mod, b, value, aval, sharding=None):
    """`value` under an `sdy.sharding_constraint` of `aval`'s typed sharding
    (or `sharding`), when JAX emits one."""
    if not getattr(mod, "shardings", False) or getattr(value, "type", None) is None:
        return value
    typed = sharding is None
    sharding = sharding if sharding is not None else typed_sharding(aval)
    if sharding is None:
        return value
    text = sharding_text(mod.module, sharding, len(value.shape), typed)
    return b.emit1("sdy.sharding_constraint", [value], [value.type], _print_constraint, sharding=text)


def constrain_outputs(ctx, outs):
    """A rule's results constrained as JAX's rule for the primitive does."""
    if not getattr(ctx.mod, "shardings", False) or ctx.eqn.primitive.name not in CONSTRAINED:
        return outs
    return [constrain(ctx.mod, ctx.b, o, a) for o, a in zip(outs, ctx.avals_out)]


def annotate_entry(mod, main, in_avals, out_avals, n_lead: int = 0, given=None) -> None:
    """`sdy.sharding` on `@main`'s arguments and results: `given` (the
    jitted call's, `entry_shardings`) else their types' shardings."""
    if not getattr(mod, "shardings", False):
        return
    given_in, given_out = given if given is not None else ([], [])
    n_res = len(main.result_types) - len(out_avals)
    for i, aval in enumerate(in_avals):
        k = n_lead + i
        _annotate(mod, main.arg_attrs, k, main.args[k].type, _pick(given_in, i) or _entry_typed(aval))
    for i, aval in enumerate(out_avals):
        k = n_res + i
        _annotate(mod, main.result_attrs, k, main.result_types[k], _pick(given_out, i) or _entry_typed(aval))


def _entry_typed(aval):
    # (on a mesh with Auto axes JAX leaves @main's shardings unspecified)
    s = typed_sharding(aval)
    return None if s is None or has_auto_axes(s.mesh) else s


def _pick(entries, i):
    return entries[i] if i < len(entries) else None


def _annotate(mod, attrs: list, k: int, type_, sharding) -> None:
    if sharding is None:
        return
    attr = f"sdy.sharding = #sdy.sharding{sharding_text(mod.module, sharding, len(type_.shape))}"
    attrs[k] = attr if not attrs[k] else f"{attrs[k]}, {attr}"
