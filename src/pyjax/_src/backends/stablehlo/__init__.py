"""Lowering to StableHLO: a jaxpr as the MLIR text JAX 0.11 prints for
`jax.jit(f).lower(*args).as_text()`.

    ir.py         the module model (values, ops, blocks, functions), MLIR's
                  value naming and float/dense attribute formatting, the printer
    builder.py    one builder per op, with the op's custom assembly format
    lowering.py   the walk over a jaxpr's equations and the rule table
                  (`LOWERINGS`, `NOT_LOWERED`, `register_lowering`)
    rules/        the rules by family (elementwise, shapes, reductions, calls,
                  control_flow, indexing, windows, sorting, random) and the
                  primitives declared not lowered, with their reasons

`lower_jaxpr_to_module` is what `Lowered.as_text()` calls. The rules are
registered on first use (`install()`), after every primitive is defined.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence

from pyjax._src.backends.stablehlo.ir import TOKEN, Module, Value
from pyjax._src.backends.stablehlo.lowering import (LOWERINGS, NOT_LOWERED, LoweringError, ModuleContext,
                                                    aval_type, lower_jaxpr, ordered_effects, register_lowering)
from pyjax._src.backends.stablehlo.builder import Builder
from pyjax._src.backends.stablehlo.sharding import annotate_entry, constrain

__all__ = ["LOWERINGS", "NOT_LOWERED", "LoweringError", "install", "lower_jaxpr_to_module", "register_lowering",
           "wire"]

_installed_for = -1  # how many primitives existed when the rules were last registered


def primitives_by_name() -> dict:
    """name -> Primitive for the primitives pyjax defines (the first made
    with each name: pyjax's own, made at import)."""
    import pyjax
    import pyjax.lax
    from pyjax._src import core, dim_as_value, random  # noqa: F401

    for namespace in (pyjax, pyjax.lax):  # (public names load their modules lazily: each defines its primitives)
        for attr in dir(namespace):
            getattr(namespace, attr, None)

    found: dict = {}
    for prim in core._all_primitives:
        found.setdefault(prim.name, prim)
    return found


def install() -> None:
    """Registers every family's rules; again when primitives were defined
    since (a module imported later, e.g. by the extension API)."""
    global _installed_for
    from pyjax._src import core

    if _installed_for == len(core._all_primitives):
        return
    from pyjax._src.backends.stablehlo.rules import FAMILIES

    prims = primitives_by_name()
    _installed_for = len(core._all_primitives)
    for family in FAMILIES:
        importlib.import_module(f"pyjax._src.backends.stablehlo.rules.{family}").register(prims)


def _sanitize(name: str) -> str:
    # JAX's module names: characters other than word characters, '.' and
    # '-' become '_', trailing '_' dropped (`jit(<lambda>)` -> `jit__lambda`).
    return re.sub(r"[^\w.-]", "_", name).rstrip("_")


def result_names(out_tree) -> list[str]:
    """`result`, `result[0]`, `result['a']`: JAX's `jax.result_info` per output leaf."""
    from pyjax._src.tree_util import keystr, tree_flatten_with_path, tree_unflatten

    n = out_tree.num_leaves
    tree = tree_unflatten(out_tree, list(range(n)))
    paths, _ = tree_flatten_with_path(tree)
    return ["result" + keystr(path) for path, _ in paths]


def lower_jaxpr_to_module(jaxpr, name: str, out_tree=None, donated: Sequence[bool] = (),
                          keep_unused: bool = False, host_callbacks: bool = True,
                          select_and_scatter_op: bool = True, threefry_unrolled: bool = False,
                          stable_sort_iota: bool = False, shardings: bool = True,
                          entry_shardings: tuple | None = None, xla_ops: bool = True) -> Module:
    """The StableHLO module of a jitted function's jaxpr: `@main` (public,
    with `jax.result_info` per output and `tf.aliasing_output` /
    `jax.buffer_donor` on donated inputs) and the private functions it calls.
    Without `keep_unused`, unused inputs and dead equations are removed
    first, as JAX does before lowering. Host callbacks lower to JAX's
    Python-callback custom calls unless `host_callbacks` is False (IREE
    cannot run them: the lowering then names the primitive). Without
    `select_and_scatter_op`, select_and_scatter_add is spelled out in
    slices, selects and pads (rules/windows.py: for IREE). With
    `threefry_unrolled`, threefry's five rounds are emitted in line instead of
    a `while` (rules/random.py: for IREE); with `stable_sort_iota`, a stable sort
    breaks ties with an iota key (rules/sorting.py: for IREE). Without
    `shardings`, sharded types get no Shardy annotations (sharding.py: for IREE).
    `entry_shardings` (per flat argument, per result) are the jitted call's
    own shardings (sharding.entry_shardings), printed on `@main`. Without
    `xla_ops`, what IREE cannot compile is spelled out or refused: `fft` as
    DFT matrix products (rules/fft.py), `approx_top_k` as a sort; tokens
    (rules/calls.py) and `rng_uniform` refused."""
    install()
    from pyjax._src.interpreters.dce import dce_jaxpr

    donated = list(donated) or [False] * len(jaxpr.invars)
    if not keep_unused:
        jaxpr, used = dce_jaxpr(jaxpr, prune_invars=True, prune_bodies=True)
        donated = [d for d, u in zip(donated, used) if u]
        if entry_shardings is not None:
            entry_shardings = ([s for s, u in zip(entry_shardings[0], used) if u], entry_shardings[1])
    module = Module(_sanitize(f"jit({name})"))
    main = module.add_func("main", [aval_type(a) for a in jaxpr.in_avals], public=True)
    mod = ModuleContext(module, host_callbacks)
    mod.select_and_scatter_op = select_and_scatter_op
    mod.threefry_unrolled = threefry_unrolled
    mod.stable_sort_iota = stable_sort_iota
    mod.shardings = shardings
    mod.entry_shardings = entry_shardings
    mod.xla_ops = xla_ops
    lower_entry(mod, main, jaxpr, out_tree, donated)
    return module


def lower_entry(mod: ModuleContext, main, jaxpr, out_tree, donated: Sequence[bool], n_dim_args: int = 0) -> None:
    """Lowers `jaxpr` as the body of the entry function `main`, whose first
    `n_dim_args` arguments are dimension variables (jax.export's wrapped main).
    An ordered effect of the jaxpr adds a `!stablehlo.token` argument and
    result (`jax.token = true`) ahead of the others, as JAX threads it."""
    module = mod.module
    effects = ordered_effects(jaxpr.effects)
    if effects:
        tokens = [Value(TOKEN) for _ in effects]
        main.body.args[n_dim_args:n_dim_args] = tokens
        main.arg_attrs[n_dim_args:n_dim_args] = ["jax.token = true"] * len(effects)
        n_dim_args += len(effects)
    token_env = dict(zip(effects, main.args[n_dim_args - len(effects):n_dim_args]))
    out_types = [aval_type(a) for a in jaxpr.out_avals]
    aliased: set[int] = set()
    for i, (arg, d) in enumerate(zip(main.args[n_dim_args:], donated)):
        if not d:
            continue
        target = next((k for k, t in enumerate(out_types) if k not in aliased and t == arg.type), None)
        if target is None:
            main.arg_attrs[n_dim_args + i] = "jax.buffer_donor = true"
        else:
            aliased.add(target)
            main.arg_attrs[n_dim_args + i] = f"tf.aliasing_output = {target} : i32"
    b = Builder(main.body)
    # A key array's data crosses @main's boundary under an (empty) sharding
    # constraint, as JAX emits it with Shardy: batch dims open, key dims closed.
    args = [_key_constraint(module, b, a, aval) for a, aval in zip(main.args[n_dim_args:], jaxpr.in_avals)]
    outs = lower_jaxpr(mod, b, jaxpr, args, tokens=token_env)
    outs = [_key_constraint(module, b, o, aval) for o, aval in zip(outs, jaxpr.out_avals)]
    main.result_types = [TOKEN] * len(effects) + out_types
    names = result_names(out_tree) if out_tree is not None else ["result"] * len(outs)
    main.result_attrs = ["jax.token = true"] * len(effects) + [f'jax.result_info = "{n}"' for n in names]
    b.ret([token_env[e] for e in effects] + outs)
    annotate_entry(mod, main, jaxpr.in_avals, jaxpr.out_avals, n_dim_args, getattr(mod, "entry_shardings", None))


def wire() -> None:
    """Makes `Lowered.as_text()` / `compiler_ir('stablehlo')` use this
    lowering: called once, by `import pyjax` (the rules register on first use)."""
    from pyjax._src import stages

    stages.set_stablehlo_lowering(lower_jaxpr_to_module)
    from pyjax._src.backends.stablehlo.export_module import wire_export

    wire_export()


def _print_sdy_constraint(op, p, indent, in_func):
    return f"sdy.sharding_constraint {p.v(op.operands[0])} <@empty_mesh, [{op.attrs['dims']}]> : {op.results[0].type}"


def _key_constraint(module: Module, b: Builder, value, aval):
    impl = getattr(aval.dtype, "_impl", None)
    if impl is None:
        return value
    module.preamble = ["sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}"]
    dims = ", ".join(["{?}"] * len(aval.shape) + ["{}"] * len(impl.key_shape))
    return b.emit1("sdy.sharding_constraint", [value], [value.type], _print_sdy_constraint, dims=dims)
