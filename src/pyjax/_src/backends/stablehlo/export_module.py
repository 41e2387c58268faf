"""`Exported.mlir_module()`: the StableHLO module of an exported function
in the form JAX 0.11 serializes.

Without symbolic shapes it is the jitted function's module. With them the
exported body becomes the private `@_wrapped_jax_export_main`, taking one
leading scalar per dimension variable (sorted by name), and a public
`@main` taking the arguments alone computes the variables from the
arguments' dimension sizes (`stablehlo.get_dimension_size`), checks them
with `@shape_assertion` custom calls carrying JAX's error messages, and
calls it.

JAX's module goes through MLIR's portable-artifact round trip, which leaves
two marks that are reproduced here: every function's constants are
deduplicated and hoisted to the top of its body (the last new one first),
and `dot_general` drops an all-default `precision`.
"""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.stablehlo import dynamic
from pyjax._src.backends.stablehlo.builder import Builder, _types_sig
from pyjax._src.backends.stablehlo.ir import Module, TensorType
from pyjax._src.backends.stablehlo.lowering import ModuleContext, aval_type


def wire_export() -> None:
    """Makes `Exported.mlir_module()` use this lowering."""
    from pyjax._src.export import mlir_text

    mlir_text.set_export_lowering(lower_exported)


def lower_exported(exp) -> str:
    """The module text of the `Exported` `exp`."""
    from pyjax._src.backends.stablehlo import _sanitize, install, lower_entry
    from pyjax._src.backends.stablehlo.composites import to_composites
    from pyjax._src.interpreters.dce import dce_jaxpr

    install()
    names = sorted({v for a in exp.in_avals for d in a.shape if hasattr(d, "get_vars") for v in d.get_vars()})
    # Dead equations go, as jit's lowering removes them, and unused arguments
    # (`module_kept_var_idx`); under shape polymorphism JAX keeps the jaxpr
    # whole (dead pure ops are then erased by the round trip's folder).
    jaxpr = dce_jaxpr(exp._jaxpr, prune_invars=True, prune_bodies=True)[0] if not names else exp._jaxpr
    module = Module(_sanitize(f"jit({exp.fun_name})"))
    mod = ModuleContext(module)
    in_types = [aval_type(a) for a in jaxpr.in_avals]
    donated = [False] * len(in_types)
    if not names:
        main = module.add_func("main", in_types, public=True)
        lower_entry(mod, main, jaxpr, exp.out_tree, donated)
    else:
        dtype = dynamic.dim_dtype()
        main = module.add_func("main", in_types, public=True)
        module.head = 1  # (JAX adds this @main last, at the top: functions put at the beginning go after it)
        wrapped = module.add_func("_wrapped_jax_export_main", [TensorType((), dtype)] * len(names) + in_types)
        wrapped.arg_attrs[:len(names)] = [f'jax.global_constant = "{n}"' for n in names]
        with dynamic.dim_env(dynamic.DimEnv(names, wrapped.args[:len(names)], dtype, mod)):
            lower_entry(mod, wrapped, jaxpr, exp.out_tree, donated, n_dim_args=len(names))
        _lower_main(exp, mod, main, wrapped, names, dtype)
    to_composites(module)
    for func in module.funcs:
        _hoist_constants(func.body)
        _remove_dead_ops(func.body)
        _round_trip_ops(func.body)
    poly = "true" if names else "false"
    module.attributes = f"jax.uses_shape_polymorphism = {poly}, " + module.attributes
    return str(module)


# -- the public @main: dimension variables and shape assertions ------------------------------------------------


def _lower_main(exp, mod, main, wrapped, names, dtype) -> None:
    from pyjax._src.export._export import _arg_name, _spec_str
    from pyjax._src.export.solve import solve, unsolvable_error

    b = Builder(main.body)
    sizes, eqns = {}, []
    for i, (arg, aval) in enumerate(zip(main.args, exp.in_avals)):
        for j, d in enumerate(aval.shape):
            if hasattr(d, "get_vars"):
                size = b.emit1("stablehlo.get_dimension_size", [arg], [TensorType((), np.int32)], _print_dim_size, dim=j)
                where = f"{_arg_name(i, exp)}.shape[{j}]"
                sizes[where] = size if dtype == np.int32 else b.convert(size, dtype)
                eqns.append((where, d))
    specs = ",".join(f"{_arg_name(i, exp)}.shape = {_spec_str(a.shape)}"
                     for i, a in enumerate(exp.in_avals) if any(hasattr(d, "get_vars") for d in a.shape))
    solution, constraints, pending = solve(eqns, specs)
    if pending:  # (export refuses these; an Exported made otherwise is refused here)
        raise unsolvable_error(solution, pending, specs)
    env = dynamic.DimEnv(list(sizes), list(sizes.values()), dtype, mod)
    mod.global_constant_args = True  # (JAX marks the arguments of functions called here jax.global_constant = "")
    # (JAX builds this @main in a module of its own: its functions' names are
    # made unique against the lowered body's with a counter from 0 again)
    mod.module._counter = 0
    try:
        with dynamic.dim_env(env):
            for cmp, left, right, pieces in constraints:
                lhs, rhs = dynamic.dim_value(b, left), dynamic.dim_value(b, right)
                _assertion(b, b.compare(cmp, lhs, rhs, "SIGNED"), pieces)
            dims = [dynamic.dim_value(b, solution[n]) for n in names]
    finally:
        mod.global_constant_args = False
    outs = b.call(wrapped.name, [*dims, *main.args], wrapped.result_types)
    main.result_types = list(wrapped.result_types)
    main.result_attrs = list(wrapped.result_attrs)
    b.ret(outs)


def _assertion(b, pred, pieces) -> None:
    """A `@shape_assertion` of `pred`; its message's `{k}` are the values
    after the predicate: each distinct expression of `pieces` evaluated once,
    in order, as JAX forms the message."""
    operands: list = []
    slots: dict = {}
    text = []
    for piece in pieces:
        if isinstance(piece, str):
            text.append(piece)
            continue
        key = str(piece)
        if key not in slots:
            slots[key] = "{" + str(len(operands)) + "}"
            operands.append(dynamic.dim_value(b, piece))
        text.append(slots[key])
    b.emit("stablehlo.custom_call", [pred, *operands], [], _print_assertion, message="".join(text))


def _print_dim_size(op, p, indent, in_func):
    return f"stablehlo.get_dimension_size {p.v(op.operands[0])}, dim = {op.attrs['dim']} : " + _types_sig(
        op.operands, op.results)


def _mlir_string(text: str) -> str:
    out = []
    for ch in text:
        if ch in '"\\' or not (32 <= ord(ch) < 127):
            out.extend(f"\\{byte:02X}" for byte in ch.encode())
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _print_assertion(op, p, indent, in_func):
    types = ", ".join(str(v.type) for v in op.operands)
    return (f"stablehlo.custom_call @shape_assertion({p.vs(op.operands)}) {{api_version = 2 : i32, "
            f"error_message = {_mlir_string(op.attrs['message'])}, has_side_effect = true}} : ({types}) -> ()")


# -- the marks of the portable-artifact round trip ------------------------------------------------------------


_KEPT = frozenset({"func.call", "func.return", "stablehlo.custom_call", "stablehlo.return"})


def _pure(op) -> bool:
    # MLIR erases an unused op free of side effects: not a call or custom
    # call, nor an op whose regions hold one (a while or case is as pure as its body).
    return op.name not in _KEPT and all(_pure(inner) for region in op.regions for inner in region.ops
                                        if inner.name not in ("stablehlo.return", "func.return"))


def _remove_dead_ops(block) -> None:
    """Operations whose results nothing uses go, as the round trip's rewriter
    erases them (not calls, custom calls, or ops holding them)."""
    while True:
        used: set = set()

        def mark(b):
            for op in b.ops:
                used.update(id(v) for v in op.operands)
                for region in op.regions:
                    mark(region)

        mark(block)
        removed = False

        def sweep(b):
            nonlocal removed
            kept = []
            for op in b.ops:
                if (op.results and _pure(op) and not any(id(r) in used for r in op.results)):
                    removed = True
                    continue
                kept.append(op)
                for region in op.regions:
                    sweep(region)
            b.ops = kept

        sweep(block)
        if not removed:
            return


def _hoist_constants(block) -> None:
    """MLIR's folder on a function body (`block`), as the round trip's
    rewriter runs it: walking the ops in order (nested regions included:
    they are not isolated from the function), a constant equal to one seen
    before is replaced by it; a new one stays where it is if it is first in
    the body or right after a constant the folder kept, and otherwise moves
    to the top of the body. The ops of a CHLO op expanded in place (marked
    `late`, composites.py) are made by the rewriter after that walk: their
    constants come second, and the first walk does not see them."""
    owned: dict = {}
    kept_ids: set = set()
    replace: dict = {}

    def walk(b, late: bool):
        for op in list(b.ops):
            if op.name == "stablehlo.constant" and op.attrs.get("late", False) == late:
                key = (op.attrs["value"], str(op.results[0].type))
                if key in owned:
                    replace[id(op.results[0])] = owned[key].results[0]
                    b.ops.remove(op)
                    continue
                owned[key] = op
                kept_ids.add(id(op))
                if b is block:
                    at = b.ops.index(op) - 1
                    while at >= 0 and not late and b.ops[at].attrs.get("late"):
                        at -= 1
                    if at < 0 or id(b.ops[at]) in kept_ids:
                        continue
                b.ops.remove(op)
                block.ops.insert(0, op)
                continue
            for region in op.regions:
                walk(region, late)

    walk(block, False)
    walk(block, True)
    if replace:
        _replace_uses(block, replace)


def _replace_uses(block, replace: dict) -> None:
    for op in block.ops:
        op.operands = [replace.get(id(v), v) for v in op.operands]
        for region in op.regions:
            _replace_uses(region, replace)


def _round_trip_ops(block) -> None:
    # dot_general's all-default precision is dropped, so are attributes at their defaults; chlo.square
    # becomes a multiply.
    from pyjax._src.backends.stablehlo.builder import print_same_type

    for op in block.ops:
        if op.name == "stablehlo.dot_general" and "text" in op.attrs:
            op.attrs["text"] = op.attrs["text"].replace(", precision = [DEFAULT, DEFAULT]", "")
        elif "props" in op.attrs and op.attrs["props"]:  # attributes at their default value are not printed
            props = op.attrs["props"]
            if op.name == "stablehlo.reduce_window":
                props = _drop_window_defaults(props)
            for default in ("indices_are_sorted = false", "unique_indices = false"):
                props = props.replace(", " + default, "").replace(default + ", ", "").replace(default, "")
            op.attrs["props"] = props
        elif op.name == "chlo.square":
            op.name, op.operands, op.printer = "stablehlo.multiply", op.operands * 2, print_same_type
        for region in op.regions:
            _round_trip_ops(region)


def _drop_window_defaults(props: str) -> str:
    # reduce_window's strides and dilations of ones and padding of zeros are its defaults.
    import re

    props = re.sub(r"(base_dilations|window_dilations|window_strides) = array<i64: 1(, 1)*>(, )?", "", props)
    props = re.sub(r"padding = dense<0> : tensor<\d+x2xi64>(, )?", "", props)
    return props.rstrip(", ")
