"""Cases of jax.export and shape polymorphism, shared by the recorder
(record_export.py, run with JAX 0.11.0) and tests/test_export.py (run with
pyjax). Each case is a thunk whose result is rendered as text: a value's
str, a jaxpr's text, or an error as "<class name>: <message>".
"""

from __future__ import annotations

import re


def render(thunk) -> str:
    """The case's result as text (errors by class name and message)."""
    try:
        text = str(thunk())
    except Exception as e:  # noqa: BLE001  (the error is the recorded result)
        text = f"{type(e).__name__}: {e}"
    # Addresses, scope ids and this file's directory differ between runs and machines.
    text = re.sub(r" at 0x[0-9a-f]+", " at 0x...", text)
    text = re.sub(r"symbolic scope \d+", "symbolic scope <id>", text)
    text = re.sub(r"scope \d+ created at", "scope <id> created at", text)
    return text.replace(__file__, "export_cases.py")


def cases(jax, jnp, np, export) -> dict:
    """name -> thunk, for one implementation of the jax API."""
    a, b = export.symbolic_shape("a, b")
    out: dict = {}

    # -- dimension expressions
    exprs = {
        "add": lambda: b + a, "mul_const": lambda: 2 * b, "add_const": lambda: b + 1, "sub": lambda: b - 1,
        "rsub": lambda: 3 - b, "neg": lambda: -b, "square": lambda: b * b, "poly": lambda: 3 * a * b - 2 * b + a * a + 5,
        "product": lambda: (b + 1) * (b - 1), "floordiv": lambda: b // 2, "mod": lambda: b % 2,
        "floordiv_exact": lambda: (2 * b) // 2, "floordiv_plus": lambda: (2 * b + 1) // 2,
        "mod_exact": lambda: (2 * b) % 2, "div_poly": lambda: a * b // b, "floordiv_sym": lambda: b // a,
        "eq_const": lambda: b == 2, "eq_sym": lambda: a == b, "ne_sym": lambda: a != b, "eq_self": lambda: b == b,
        "ge_1": lambda: b >= 1, "gt_0": lambda: b > 0, "ge_2": lambda: b >= 2, "lt_sym": lambda: b < a,
        "max_const": lambda: max(a, 3), "int": lambda: int(b), "prod": lambda: np.prod(export.symbolic_shape("a, 2*a, 3")),
        "times_zero": lambda: a * 0, "is_symbolic": lambda: (export.is_symbolic_dim(b), export.is_symbolic_dim(3)),
    }
    out.update({f"dim_{k}": v for k, v in exprs.items()})

    # -- parsing and constraints
    specs = {
        "simple": "b, 4", "exprs": "a, 2*a, a+1, b", "trailing_comma": "b, ", "parens": "(b, c)",
        "power": "b^2", "ops": "floordiv(b, 2), mod(b, 3), max(b, 4)", "incomplete": "b + ",
        "ellipsis": "...,b", "bad_token": "b, 4.5",
    }
    out.update({f"spec_{k}": (lambda s=s: export.symbolic_shape(s)) for k, s in specs.items()})
    out["constraint_ge"] = lambda: (lambda s: (s, s[0] >= s[1], s[1] >= 4))(
        export.symbolic_shape("a, b", constraints=["a >= b", "b >= 4"]))
    out["constraint_inconclusive"] = lambda: export.symbolic_shape("b", constraints=["b >= 3"])[0] >= 5
    out["constraint_bad"] = lambda: export.symbolic_shape("b", constraints=["b > 3"])
    out["args_specs"] = lambda: export.symbolic_args_specs(np.ones((3, 4), np.float32), "b, 4")
    out["args_specs_like"] = lambda: export.symbolic_args_specs((np.ones((3, 4), np.float32), np.ones(5, np.int32)),
                                                                ("b, _", "..."))

    # -- tracing with symbolic shapes
    x = jax.ShapeDtypeStruct(export.symbolic_shape("b, 4"), jnp.float32)
    w = jax.ShapeDtypeStruct((4, 8), jnp.float32)
    bias = jax.ShapeDtypeStruct((8,), jnp.float32)

    def mlp(params, x):
        for W, c in params:
            x = jnp.tanh(x @ W + c)
        return x

    params = [(w, bias), (jax.ShapeDtypeStruct((8, 2), jnp.float32), jax.ShapeDtypeStruct((2,), jnp.float32))]
    out["jaxpr_mlp"] = lambda: jax.make_jaxpr(mlp)(params, x)
    out["jaxpr_concatenate"] = lambda: jax.make_jaxpr(lambda x: jnp.concatenate([x, x]))(x)
    out["jaxpr_reshape"] = lambda: jax.make_jaxpr(lambda x: x.reshape(-1))(x)
    out["jaxpr_sum"] = lambda: jax.make_jaxpr(lambda x: jnp.sum(x * 2.0, axis=0))(x)
    out["jaxpr_transpose"] = lambda: jax.make_jaxpr(lambda x: jnp.exp(x.T))(x)
    out["eval_shape_mlp"] = lambda: jax.eval_shape(mlp, params, x)
    out["broadcast_mismatch"] = lambda: jax.eval_shape(
        lambda p, q: p + q, jax.ShapeDtypeStruct((a,), jnp.float32), jax.ShapeDtypeStruct((b,), jnp.float32))
    out["branch_on_dim"] = lambda: jax.eval_shape(lambda x: x if x.shape[0] >= 2 else x, x)

    # -- export and call
    def f(x, y):
        return x + y[0]

    s = export.symbolic_shape("b, 4")
    exp = export.export(jax.jit(f))(jax.ShapeDtypeStruct(s, jnp.float32),
                                    jax.ShapeDtypeStruct((s[0] + 1, 4), jnp.float32))
    ones = lambda *shape, dtype=np.float32: np.ones(shape, dtype)  # noqa: E731
    out["exported_avals"] = lambda: (exp.fun_name, exp.in_avals, exp.out_avals, exp.in_tree, exp.out_tree,
                                     exp.platforms, exp.nr_devices, exp.uses_global_constants)
    out["call_ok"] = lambda: exp.call(ones(3, 4), ones(4, 4)).shape
    out["call_inconsistent"] = lambda: exp.call(ones(3, 4), ones(5, 4))
    out["call_constant_mismatch"] = lambda: exp.call(ones(3, 5), ones(4, 5))
    out["call_rank_mismatch"] = lambda: exp.call(ones(3), ones(4, 4))
    out["call_dtype_mismatch"] = lambda: exp.call(ones(3, 4, dtype=np.int32), ones(4, 4))
    out["call_too_few"] = lambda: exp.call(ones(3, 4))
    out["call_tree_mismatch"] = lambda: exp.call([ones(3, 4)], ones(4, 4))
    out["call_zero_dim"] = lambda: exp.call(ones(0, 4), ones(1, 4))
    out["export_host_callback"] = lambda: export.export(jax.jit(lambda x: jax.pure_callback(
        lambda v: v, jax.ShapeDtypeStruct(x.shape, x.dtype), x)))(jax.ShapeDtypeStruct((3,), jnp.float32))
    out["export_debug_print"] = lambda: export.export(jax.jit(lambda x: (jax.debug.print("{}", x), x)[1]))(
        jax.ShapeDtypeStruct((3,), jnp.float32))
    out["export_not_jit"] = lambda: str(export.export(f)).split(" at 0x")[0]
    out["calling_convention"] = lambda: (export.minimum_supported_calling_convention_version,
                                         export.maximum_supported_calling_convention_version,
                                         exp.calling_convention_version)

    # -- max/min dimension factors: jax.core.max_dim/min_dim, their order, the bounds they imply
    jcore = jax.core
    xb = jax.ShapeDtypeStruct(export.symbolic_shape("b"), jnp.float32)
    out["dim_max_min"] = lambda: (jcore.max_dim(a, b), jcore.max_dim(b, a), jcore.max_dim(3, a), jcore.max_dim(a, 3),
                                  jcore.min_dim(a, b), jcore.min_dim(b, a), jcore.max_dim(a, a + 1),
                                  jcore.min_dim(a, 0), jcore.max_dim(2, 5), jcore.min_dim(b, b))
    out["dim_max_min_bounds"] = lambda: (jcore.min_dim(a, 3) <= a, jcore.max_dim(a, b) >= b,
                                         jcore.min_dim(a, b) < a + 1, jcore.max_dim(a, 2) >= 2)
    out["dim_max_min_arith"] = lambda: (2 * jcore.max_dim(a, b) + 1, jcore.min_dim(a, 3) - a, jcore.max_dim(a, b) // 2)
    out["spec_max_min_order"] = lambda: export.symbolic_shape("max(b, a), min(a, b), max(3, a), max(a + 1, b)")
    out["eval_shape_slices"] = lambda: [jax.eval_shape(g, xb).shape for g in (
        lambda x: x[:3], lambda x: x[-5:], lambda x: x[2:], lambda x: jnp.arange(x.shape[0] - 5))]
    out["export_unsolvable_square"] = lambda: export.export(jax.jit(jnp.sin))(
        jax.ShapeDtypeStruct(export.symbolic_shape("b*b, 4"), jnp.float32))
    out["export_unsolvable_product"] = lambda: export.export(jax.jit(jnp.sin))(
        jax.ShapeDtypeStruct(export.symbolic_shape("b, a*b"), jnp.float32))
    out["export_unsolvable_max"] = lambda: export.export(jax.jit(jnp.sin))(
        jax.ShapeDtypeStruct(export.symbolic_shape("max(b, 2), 3"), jnp.float32))
    out.update(_factor_spec_cases(jax, jnp, np, export))
    return out


def _factor_spec_cases(jax, jnp, np, export) -> dict:
    """Argument specifications holding a max/min/floordiv/mod factor: the
    variables are solved from the other dimensions and the factor checked
    when the function is called."""
    out: dict = {}
    vec = lambda d: jax.ShapeDtypeStruct((d,), jnp.float32)  # noqa: E731
    ones = lambda n: np.ones((n,), np.float32)  # noqa: E731

    def exported(spec, fun=lambda *xs: sum(x.sum() for x in xs)):
        return export.export(jax.jit(fun))(*[vec(d) for d in export.symbolic_shape(spec)])

    def call(spec, *sizes, fun=lambda *xs: sum(x.sum() for x in xs)):
        return lambda: exported(spec, fun).call(*[ones(n) for n in sizes])

    out["spec_factor_avals"] = lambda: (lambda e: (e.in_avals, e.out_avals))(
        exported("a, b, max(a, b)", lambda x, y, z: z * 2.0))
    out["spec_factor_max_ok"] = call("a, b, max(a, b)", 2, 3, 3)
    out["spec_factor_max_ok_first"] = call("a, b, max(a, b)", 5, 3, 5)
    out["spec_factor_max_mismatch"] = call("a, b, max(a, b)", 2, 3, 4)
    out["spec_factor_max_zero"] = call("a, b, max(a, b)", 0, 3, 3)
    out["spec_factor_max_result_shape"] = lambda: exported("a, b, max(a, b)", lambda x, y, z: z * 2.0).call(
        ones(4), ones(2), ones(4)).shape
    out["spec_factor_min_constant_ok"] = call("b, min(b, 3)", 5, 3)
    out["spec_factor_min_constant_small"] = call("b, min(b, 3)", 2, 2)
    out["spec_factor_min_constant_mismatch"] = call("b, min(b, 3)", 5, 5)
    out["spec_factor_expr_ok"] = call("a, b, 2*max(a, b) + 1", 2, 3, 7)
    out["spec_factor_expr_mismatch"] = call("a, b, 2*max(a, b) + 1", 2, 3, 6)
    out["spec_factor_product_mismatch"] = call("a, b, a*min(a, b)", 3, 2, 9)
    out["spec_factor_floordiv_ok"] = call("b, floordiv(b, 2)", 5, 2)
    out["spec_factor_floordiv_mismatch"] = call("b, floordiv(b, 2)", 5, 3)
    out["spec_factor_mod_mismatch"] = call("b, mod(b, 3) + b", 5, 5)
    out["spec_factor_first"] = call("max(a, b), a, b", 3, 2, 3)
    out["spec_factor_first_mismatch"] = call("max(a, b), a, b", 2, 2, 3)
    out["spec_factor_jit_of_call"] = lambda: jax.jit(exported("a, b, max(a, b)").call)(ones(2), ones(3), ones(3))

    # symbolic constraints: checked at the call after the variables, with their own message
    def constrained(constraints, *sizes):
        dims = export.symbolic_shape("a, b", constraints=constraints)
        exp = export.export(jax.jit(lambda x, y: x.sum() + y.sum()))(*[vec(d) for d in dims])
        return lambda: exp.call(*[ones(n) for n in sizes])

    out["spec_constraint_ok"] = constrained(["a >= b + 1"], 4, 3)
    out["spec_constraint_violated"] = constrained(["a >= b + 1"], 2, 3)
    out["spec_constraint_constant_violated"] = constrained(["a >= 4"], 2, 3)
    out["spec_constraint_second_violated"] = constrained(["a >= b", "b >= 3"], 2, 2)
    out["spec_constraint_le"] = constrained(["a <= b"], 2, 3)

    # mixing symbolic scopes: JAX's ValueError names the operation and where each scope was made
    def mixed(op, names=("a", "b")):
        def thunk():
            (p,), (q,) = export.symbolic_shape(names[0]), export.symbolic_shape(names[1])
            return op(p, q)
        return thunk

    mixes = {"add": lambda p, q: p + q, "sub": lambda p, q: p - q, "add_int_first": lambda p, q: (1 + p) + q,
             "mul": lambda p, q: p * q, "mul_poly": lambda p, q: (2 * p + 1) * q, "floordiv": lambda p, q: p // q,
             "mod": lambda p, q: p % q, "max": lambda p, q: jax.core.max_dim(p, q),
             "min": lambda p, q: jax.core.min_dim(p, q), "after_ints": lambda p, q: (p + 1) * 2 - 3 + q}
    out.update({f"scope_mix_{k}": mixed(f) for k, f in mixes.items()})
    out["scope_mix_same_name"] = mixed(lambda p, q: (p == q, p + q), ("a", "a"))

    def export_mixed(how):
        def thunk():
            (p,), (q,) = export.symbolic_shape("a"), export.symbolic_shape("b")
            f = jax.jit(lambda x, y=None: x.sum())
            if how == "args":
                return export.export(f)(vec(p), vec(q)).in_avals
            if how == "one_shape":
                return export.export(f)(jax.ShapeDtypeStruct((p, q), jnp.float32)).in_avals
            if how == "kwargs":
                return export.export(f)(vec(p), y={"k": vec(q)}).in_avals
            # (an argument without a shape is passed over; a shared scope is no mixing)
            (r,) = export.symbolic_shape("a + 1", scope=p.scope)
            g = jax.jit(lambda x, n, z, y: x.sum())
            return export.export(g)(vec(p), 3, vec(r), vec(q)).in_avals
        return thunk

    out.update({f"scope_mix_export_{k}": export_mixed(k) for k in ("args", "one_shape", "kwargs", "no_shape")})

    def constrained_vs_default():
        scope = export.SymbolicScope(["c >= 2"])
        (c,), (d,) = export.symbolic_shape("c", scope=scope), export.symbolic_shape("d", scope=scope)
        (e,) = export.symbolic_shape("e")
        assert str((c + d, c >= 2, export.symbolic_shape("c + d", scope=scope))) == "(d + c, True, (d + c,))"
        return c + e

    out["scope_mix_constrained"] = constrained_vs_default
    return out
