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

    install()
    jaxpr = exp._jaxpr
    names = sorted({v for a in exp.in_avals for d in a.shape if hasattr(d, "get_vars") for v in d.get_vars()})
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
        wrapped = module.add_func("_wrapped_jax_export_main", [TensorType((), dtype)] * len(names) + in_types)
        wrapped.arg_attrs[:len(names)] = [f'jax.global_constant = "{n}"' for n in names]
        with dynamic.dim_env(dynamic.DimEnv(names, wrapped.args[:len(names)], dtype)):
            lower_entry(mod, wrapped, jaxpr, exp.out_tree, donated, n_dim_args=len(names))
        _lower_main(exp, main, wrapped, names, dtype)
    for func in module.funcs:
        _hoist_constants(func.body)
        _drop_default_precision(func.body)
    poly = "true" if names else "false"
    module.attributes = f"jax.uses_shape_polymorphism = {poly}, " + module.attributes
    return str(module)


# -- the public @main: dimension variables and shape assertions ------------------------------------------------


def _lower_main(exp, main, wrapped, names, dtype) -> None:
    from pyjax._src.export._export import _arg_name, _spec_str

    b = Builder(main.body)
    sizes = {}
    for i, (arg, aval) in enumerate(zip(main.args, exp.in_avals)):
        for j, d in enumerate(aval.shape):
            if hasattr(d, "get_vars"):
                size = b.emit1("stablehlo.get_dimension_size", [arg], [TensorType((), np.int32)], _print_dim_size, dim=j)
                sizes[(i, j)] = size if dtype == np.int32 else b.convert(size, dtype)
    solved: dict = {}  # var -> ((i, j), value)
    for (i, j), size in sizes.items():
        var = exp.in_avals[i].shape[j].to_var()
        if var is not None and var not in solved:
            solved[var] = ((i, j), size)
    missing = [n for n in names if n not in solved]
    if missing:
        raise NotImplementedError(
            f"pyjax's export lowering solves a dimension variable only from a dimension that is exactly that variable; "
            f"{missing} appear only inside expressions (the shapes: "
            + ", ".join(f"{_arg_name(i, exp)}.shape = {_spec_str(a.shape)}" for i, a in enumerate(exp.in_avals)) + ")")
    specs = ",".join(f"{_arg_name(i, exp)}.shape = {_spec_str(a.shape)}"
                     for i, a in enumerate(exp.in_avals) if any(hasattr(d, "get_vars") for d in a.shape))
    order = list(solved)
    for k, var in enumerate(order):
        value = solved[var][1]
        pred = b.compare("GE", value, b.constant(np.asarray(1, value.dtype)), "SIGNED")
        _assertion(b, exp, pred, lambda slot, var=var: f"Expected value >= 1 for dimension variable '{var}'.",
                   specs, {v: solved[v] for v in order[:k + 1]})
    used = {where for where, _ in solved.values()}
    env = dynamic.DimEnv(names, [solved[n][1] for n in names], dtype)
    with dynamic.dim_env(env):
        for (i, j), size in sizes.items():
            if (i, j) in used:
                continue
            d = exp.in_avals[i].shape[j]
            pred = b.compare("EQ", size, dynamic.dim_value(b, d), "SIGNED")
            expected = dynamic.dim_value(b, d)  # (JAX evaluates the expression again for the message)

            def detail(slot, i=i, j=j, d=d, size=size, expected=expected):
                return (f"Found inconsistency between dimension size {_arg_name(i, exp)}.shape[{j}] (= {slot(size)}) "
                        f"and the specification '{d}' (= {slot(expected)}).")

            _assertion(b, exp, pred, detail, specs, solved)
    dims = [solved[n][1] for n in names]
    outs = b.call(wrapped.name, [*dims, *main.args], wrapped.result_types)
    main.result_types = list(wrapped.result_types)
    main.result_attrs = list(wrapped.result_attrs)
    b.ret(outs)


def _assertion(b, exp, pred, detail, specs: str, obtained: dict) -> None:
    """A `@shape_assertion` of `pred`; its message's `{k}` are the values
    after the predicate (each distinct value passed once)."""
    from pyjax._src.export._export import _arg_name

    operands: list = []

    def slot(v) -> str:
        for k, o in enumerate(operands):
            if o is v:
                return f"{{{k}}}"
        operands.append(v)
        return f"{{{len(operands) - 1}}}"

    detail = detail(slot)
    found = "".join(f"'{var}' = {slot(v)} from specification '{var}' for dimension {_arg_name(i, exp)}.shape[{j}] "
                    f"(= {slot(v)}), " for var, ((i, j), v) in obtained.items())
    message = (f"Input shapes do not match the polymorphic shapes specification. {detail} Using the following "
               f"polymorphic shapes specifications: {specs}. Obtained dimension variables: {found}. Please see "
               "https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.")
    b.emit("stablehlo.custom_call", [pred, *operands], [], _print_assertion, message=message)


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


def _hoist_constants(block) -> None:
    """Constants deduplicated and moved to the top of `block`, the one
    first met last (as MLIR's folder inserts each at the block's start)."""
    first: dict = {}
    replace: dict = {}
    rest = []
    for op in block.ops:
        if op.name == "stablehlo.constant":
            key = (op.attrs["value"], str(op.results[0].type))
            if key in first:
                replace[id(op.results[0])] = first[key].results[0]
                continue
            first[key] = op
        else:
            rest.append(op)
    block.ops = list(reversed(list(first.values()))) + rest
    if replace:
        _replace_uses(block, replace)


def _replace_uses(block, replace: dict) -> None:
    for op in block.ops:
        op.operands = [replace.get(id(v), v) for v in op.operands]
        for region in op.regions:
            _replace_uses(region, replace)


def _drop_default_precision(block) -> None:
    for op in block.ops:
        if op.name == "stablehlo.dot_general" and "text" in op.attrs:
            op.attrs["text"] = op.attrs["text"].replace(", precision = [DEFAULT, DEFAULT]", "")
        for region in op.regions:
            _drop_default_precision(region)
