"""Programs exported with symbolic shapes whose `Exported.mlir_module()`
text is compared with JAX 0.11.0's (tests/golden/export_mlir.json, recorded
by record_export_mlir.py; checked by tests/test_export_mlir.py).

`programs(jax, jnp, export)` returns name -> (function, argument specs) for
one implementation of the jax API; the recorder and the test call it with
JAX and with pyjax.
"""

from __future__ import annotations


def programs(jax, jnp, export) -> dict:
    """name -> (function, specs)."""

    def spec(shape, dtype=jnp.float32, scope=None):
        if isinstance(shape, str):
            shape = export.symbolic_shape(shape, scope=scope)
        return jax.ShapeDtypeStruct(shape, dtype)

    @jax.jit
    def sinh_twice(x):
        return jnp.sinh(x) * 2

    @jax.jit
    def sinh_cosh(x):
        return jnp.sinh(x) * 3 + jnp.cosh(x)

    @jax.jit
    def inner_pair(x):
        return x * 2, x + 1

    b4 = spec("b, 4")
    ab = export.symbolic_shape("a, b")
    a, b = ab
    a4, ab_b4 = spec((a, 4)), spec((b, 4))  # (one scope for the two variables)
    out: dict = {
        "static_elementwise": (lambda x: jnp.sin(x) * 2.0 + 1.0, [spec((3, 4))]),
        "static_matmul": (lambda x, w: jnp.tanh(x @ w), [spec((3, 4)), spec((4, 8))]),
        "elementwise": (lambda x: jnp.sin(x) + 1.0, [b4]),
        "unary_chain": (lambda x: jnp.exp(-x) * x, [b4]),
        "broadcast": (lambda x, y: x + y, [b4, spec((4,))]),
        "reshape_flat": (lambda x: x.reshape(-1), [b4]),
        "reshape_split": (lambda x: x.reshape((x.shape[0], 2, 2)), [b4]),
        "sum_axis0": (lambda x: jnp.sum(x, axis=0), [b4]),
        "max_axis1": (lambda x: jnp.max(x, axis=1), [b4]),
        "matmul": (lambda x, w: x @ w, [b4, spec((4, 8))]),
        "mlp": (lambda x, w, c: jnp.tanh(x @ w + c), [b4, spec((4, 8)), spec((8,))]),
        "iota": (lambda x: jax.lax.iota(jnp.int32, x.shape[0]), [b4]),
        "arange": (lambda x: jnp.arange(x.shape[0]), [b4]),
        "concatenate": (lambda x: jnp.concatenate([x, x, jnp.ones((1, 4), jnp.float32)]), [b4]),
        "concatenate_two": (lambda x: jnp.concatenate([x, x], axis=1), [b4]),
        "slice_static_axis": (lambda x: x[:, 1:3], [b4]),
        "slice_symbolic_axis": (lambda x: x[1:], [b4]),
        "index_first": (lambda x: x[0], [b4]),
        "where": (lambda x: jnp.where(x > 0, x, 0.0), [b4]),
        "dim_expr_input": (lambda x: jnp.sin(x) + 1.0, [spec("2*b+1, 4")]),
        "dim_expr_concat": (lambda x: jnp.concatenate([x, x, x[:1]]) * 2.0, [b4]),
        "dim_expr_arange": (lambda x: jnp.arange(2 * x.shape[0] + 1), [b4]),
        "dim_as_value_mul": (lambda x: x * x.shape[0], [b4]),
        "dim_as_value_array": (lambda x: jnp.array(x.shape[0] * 2), [b4]),
        "mean": (lambda x: jnp.mean(x, axis=0), [b4]),
        "two_vars": (lambda x, y: x @ y, [spec(ab), spec((b, a))]),
        "two_vars_broadcast": (lambda x, y: x[:, :, None] * y[None, :, :], [spec(ab), spec((b, 3))]),
        "two_vars_product": (lambda x: x.reshape(-1), [spec(ab)]),
        "consistency_check": (lambda x, y: x + y[1:], [b4, spec((b4.shape[0] + 1, 4))]),
        # more of jnp and lax on a symbolic batch
        "transpose": (lambda x: jnp.exp(x.T), [b4]),
        "softmax": (lambda x: jax.nn.softmax(x, axis=0), [b4]),
        "sum_all": (lambda x: x.sum(), [b4]),
        "pad": (lambda x: jnp.pad(x, ((1, 2), (0, 0))), [b4]),
        "flip": (lambda x: jnp.flip(x, 0), [b4]),
        "argmax": (lambda x: jnp.argmax(x, axis=0), [b4]),
        "sort": (lambda x: jnp.sort(x, axis=0), [b4]),
        "grad": (lambda x: jax.grad(lambda x: jnp.sum(jnp.sin(x)))(x), [b4]),
        "vmap": (lambda x: jax.vmap(lambda r: r @ r)(x), [b4]),
        "fori_loop": (lambda x: jax.lax.fori_loop(0, 3, lambda i, c: c * 2.0, x), [b4]),
        "scan_over_batch": (lambda x: jax.lax.scan(lambda c, r: (c + r, r * 2), jnp.zeros(4), x), [b4]),
        "cond": (lambda x: jax.lax.cond(True, lambda x: x + 1, lambda x: x, x), [b4]),
        "concat_columns": (lambda x, y: jnp.concatenate([x, y], axis=1), [b4, spec((b4.shape[0], 3))]),
        "expand_squeeze": (lambda x: jnp.squeeze(x[:, None, :], 1) + 1, [b4]),
        "broadcast_to": (lambda x: jnp.broadcast_to(x[:, :1], x.shape), [b4]),
        "ones_like_zeros": (lambda x: jnp.ones_like(x) + jnp.zeros(x.shape[0])[:, None], [b4]),
        "stack": (lambda x: jnp.stack([x, x]), [b4]),
        "var": (lambda x: jnp.var(x, axis=0), [b4]),
        "outer_product": (lambda x: x[:, :, None] * x[:, None, :], [b4]),
        "set_row": (lambda x: x.at[0].set(1.0), [b4]),
        "split": (lambda x: jnp.split(x, 2, axis=1)[0], [b4]),
        "layer_norm": (lambda x: (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5), [b4]),
        "scatter_add": (lambda x: x.at[jnp.array([0, 0])].add(1.0), [b4]),
        "gather_rows": (lambda x: x[jnp.array([0, 1])], [b4]),
        "clip": (lambda x: jnp.clip(x, -1.0, 1.0), [b4]),
        "relu_layer_sum": (lambda x, w: jax.nn.relu(x @ w).sum(axis=1), [b4, spec((4, 4))]),
        "logsumexp": (lambda x: jax.nn.logsumexp(x, axis=1), [b4]),
        "one_hot_argmax": (lambda x: jax.nn.one_hot(jnp.argmax(x, axis=1), 4), [b4]),
        "cross_entropy": (lambda x, y: -jnp.mean(jnp.sum(jax.nn.log_softmax(x) * y, axis=1)), [b4, b4]),
        "where_scalar_condition": (lambda x: jnp.where(x.sum() > 0, x, -x), [b4]),
        "reverse_rows": (lambda x: x[::-1], [b4]),
        "every_other_row": (lambda x: x[::2], [b4]),
        "integer_ops": (lambda x: (x.astype(jnp.int32) // 2) % 3, [b4]),
        "count_positive": (lambda x: jnp.sum(x > 0, axis=0), [b4]),
        "dynamic_slice_in_dim": (lambda x: jax.lax.dynamic_slice_in_dim(x, 1, 2, axis=1), [b4]),
        "dynamic_update_slice": (lambda x: jax.lax.dynamic_update_slice(x, jnp.ones((1, 4)), (2, 0)), [b4]),
        "dynamic_index_traced": (lambda x: jax.lax.dynamic_index_in_dim(x, jnp.argmax(x[:, 0]), axis=0), [b4]),
        # under shape polymorphism JAX lowers the jaxpr without DCE: nested functions keep their unused results,
        # a scan its unused carries; the round trip's folder erases dead pure ops (the sin, the cond)
        "dead_code_one_axis": (lambda x: (inner_pair(x), jnp.sin(x), x + 1)[2], [spec("b")]),
        "fori_loop_unused_counter": (lambda x: jax.lax.fori_loop(0, 3, lambda i, c: c * 2.0, x), [spec("b")]),
        "dead_cond": (lambda x: jax.lax.cond(x[0] > 0, lambda x: (x, x + 1), lambda x: (x, x), x)[0], [spec("b")]),
        "scan_unused_ys": (lambda x: jax.lax.scan(lambda c, r: (c + r, r * 2), jnp.zeros(()), x)[0], [spec("b")]),
        # cumulative ops on a symbolic axis: a stablehlo.dynamic_reduce_window custom call whose reducer is a
        # function at the top of the module; on a static axis a reduce_window without its default attributes
        "cumsum": (lambda x: jnp.cumsum(x, axis=0), [b4]),
        "cumsum_static_axis": (lambda x: jnp.cumsum(x, axis=1), [b4]),
        "cumsum_reverse": (lambda x: jax.lax.cumsum(x, axis=0, reverse=True), [b4]),
        "cummax": (lambda x: jax.lax.cummax(x, axis=0), [b4]),
        "cumprod": (lambda x: jnp.cumprod(x, axis=0), [b4]),
        "cumsum_twice": (lambda x: jnp.cumsum(x, axis=0) + jnp.cumsum(x * 2, axis=0), [b4]),
        "cumsum_int": (lambda x: jnp.cumsum(x.astype(jnp.int32), axis=0), [b4]),
        "cumsum_and_cummax": (lambda x: jnp.cumsum(x, axis=0) - jax.lax.cummax(x, axis=0), [b4]),
        "cumsum_flat": (lambda x: jnp.cumsum(x), [b4]),
        "reduce_window_static": (lambda x: jax.lax.reduce_window(x, 0., jax.lax.add, (2, 2), (1, 1), "VALID"),
                                 [spec((6, 4))]),
        "reduce_window_strided": (lambda x: jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (2, 2), (2, 1), "SAME"),
                                  [spec((6, 4))]),
        # tile: reshape, broadcast, reshape on shape tensors; take: the fill gather's bounds from the shape's values
        "tile": (lambda x: jnp.tile(x, (2, 1)), [b4]),
        "tile_both_axes": (lambda x: jnp.tile(x, (3, 2)), [b4]),
        "take_rows": (lambda x: jnp.take(x, jnp.array([0, 2]), axis=0), [b4]),
        "take_columns": (lambda x: jnp.take(x, jnp.array([0, 2]), axis=1), [b4]),
        "take_traced_indices": (lambda x: jnp.take(x, jnp.argmax(x, axis=0), axis=0), [b4]),
        "take_flat": (lambda x: jnp.take(x, jnp.array([1, -1])), [b4]),
        # max/min dimension factors: computed with stablehlo.maximum/minimum of the operands' values
        "max_dim": (lambda x, y: jnp.ones((jax.core.max_dim(x.shape[0], y.shape[0]),)), [ab_b4, a4]),
        "min_dim_slices": (lambda x, y: x[:jax.core.min_dim(x.shape[0], y.shape[0])]
                           + y[:jax.core.min_dim(x.shape[0], y.shape[0])], [ab_b4, a4]),
        "max_dim_constant": (lambda x: jnp.ones((jax.core.max_dim(x.shape[0], 3),)), [b4]),
        "max_dim_value": (lambda x: x * jax.core.max_dim(x.shape[0], 5), [b4]),
        "max_dim_arith": (lambda x, y: jnp.zeros((2 * jax.core.max_dim(x.shape[0], y.shape[0] - 1) + 1, 2)),
                          [ab_b4, a4]),
        # argument specifications with a factor: solved from the other dimensions, checked in @main
        "spec_max_factor": (lambda x, y, z: x.sum() + y.sum() + z.sum(), [spec((d,)) for d in
                                                                      export.symbolic_shape("a, b, max(a, b)")]),
        "spec_max_factor_body": (lambda x, y, z: z * 2.0 + jnp.max(x),
                                 [spec((d,)) for d in export.symbolic_shape("a, b, max(a, b)")]),
        "spec_min_constant": (lambda x, y: x[:y.shape[0]] + y, [spec((d,)) for d in
                                                                export.symbolic_shape("b, min(b, 3)")]),
        "spec_factor_expr": (lambda x, y, z: z.sum() * 2.0, [spec((d, 2)) for d in
                                                             export.symbolic_shape("a, b, 2*max(a, b - 1) + 1")]),
        "spec_floordiv_mod": (lambda x, y, z: y.sum() + z.sum(),
                              [spec((d,)) for d in export.symbolic_shape("b, floordiv(b, 2), mod(b, 3) + b")]),
        # (jnp's @floor_divide on two weak dimension values, and the names @main's functions get)
        "spec_floordiv_two_vars": (lambda x, y, z: z * 2.0,
                                   [spec((d,)) for d in export.symbolic_shape("a, b, floordiv(a, b)")]),
        "spec_constraints": (lambda x, y: x.sum() + y.sum(),
                             [spec((d,)) for d in export.symbolic_shape("a, b", constraints=["a + b >= 4",
                                                                                             "b >= 2"])]),
        "slice_to_min": (lambda x: x[:3], [b4]),
        "slice_negative_start": (lambda x: x[-5:], [b4]),
        "slice_start_min": (lambda x: x[2:] * 2.0, [b4]),
        # CHLO ops: stablehlo.composite calls of their expansion (@chlo.<op>.impl, one per op, after its caller)
        "composite_sinh": (lambda x: jnp.sinh(x), [spec((3, 4))]),
        "composite_each_op": (lambda x: [f(x) for f in (jax.lax.sinh, jax.lax.cosh, jax.lax.asin, jax.lax.acos,
                                                        jax.lax.asinh, jax.lax.acosh, jax.lax.atanh, jax.lax.erf,
                                                        jax.lax.atan)], [spec((3,))]),
        "composite_top_k": (lambda x: jax.lax.top_k(x, 2), [spec((3, 4))]),
        "composite_top_k_int": (lambda x: jax.lax.top_k((x * 100).astype(jnp.int32), 3)[1], [spec((5,))]),
        "composite_in_nested_jits": (lambda x: jnp.cosh(x) + sinh_twice(x) + sinh_cosh(x) + jnp.sinh(x), [spec((3,))]),
        "composite_float64": (lambda x: jnp.sinh(x) + jnp.asinh(x) * jnp.atanh(x), [spec((3,), jnp.float64)]),
        # expanded in place (their constants hoisted after the function's own)
        "erf_inv_in_place": (lambda x: jax.lax.erf_inv(x), [spec((3,))]),
        "atan_in_place": (lambda x: jax.lax.atan(x), [spec((2, 3))]),
        "chlo_mixed": (lambda x: jax.lax.erf_inv(x * 0.5) + jax.lax.atan(x) * 2.0 + jnp.sinh(x), [spec((3,))]),
        "erfinv_scalar": (lambda x: jax.scipy.special.erfinv(x), [spec(())]),
        "erfc_in_place": (lambda x: jax.lax.erfc(x * 0.5) + 1.0, [spec((2, 2))]),
        "lgamma_in_place": (lambda x: jax.lax.lgamma(x), [spec((3,))]),
        "digamma_in_place": (lambda x: jax.lax.digamma(x * 2.0) - 1.0, [spec((2, 2))]),
        "nextafter_in_place": (lambda x, y: jnp.nextafter(x, 1.0) * y, [spec((2, 2)), spec((2, 2))]),
        "nextafter_float64": (lambda x, y: jax.lax.nextafter(x, y), [spec((3,), jnp.float64), spec((3,), jnp.float64)]),
        "bessel_i1e_in_place": (lambda x: jax.lax.bessel_i1e(x * 2.0) - 1.0, [spec((2, 2))]),
        "lgamma_digamma_float64": (lambda x: jax.lax.lgamma(x) * 0.5 + jax.lax.digamma(x + 1.0),
                                   [spec((3,), jnp.float64)]),
        "erf_erfc_float64": (lambda x: jax.lax.erf(x) + jax.lax.erfc(x * 0.5), [spec((3,), jnp.float64)]),
        "bessel_i1e_float64": (lambda x: jax.lax.bessel_i1e(x * 0.5) + 1.0, [spec((3,), jnp.float64)]),
        "erf_inv_float64": (lambda x: jax.lax.erf_inv(x * 0.5) + 1.0, [spec((3,), jnp.float64)]),
        "zeta_in_place": (lambda x, q: jax.lax.zeta(x * 2.0, q) + 1.0, [spec((3,)), spec((3,))]),
        "polygamma_in_place": (lambda n, x: jax.lax.polygamma(n, x * 2.0) + 1.0, [spec((3,)), spec((3,))]),
        "zeta_polygamma_float64": (lambda n, x: jax.lax.polygamma(n, x) + jax.lax.zeta(n + 2.0, x),
                                   [spec((3,), jnp.float64), spec((3,), jnp.float64)]),
        "lgamma_twice": (lambda x: jax.scipy.special.gammaln(x) * 0.5 + jax.lax.lgamma(x + 2.0), [spec((2, 3))]),
        # on symbolic shapes: each constant CHLO makes is a scalar broadcast to the operand's dimension sizes
        "composite_sinh_symbolic": (lambda x: jnp.sinh(x) * 2.0, [b4]),
        "composite_each_op_symbolic": (lambda x: [f(x) for f in (jax.lax.sinh, jax.lax.cosh, jax.lax.asin,
                                                                 jax.lax.acos, jax.lax.asinh, jax.lax.acosh,
                                                                 jax.lax.atanh, jax.lax.erf)], [b4]),
        "composite_vector_symbolic": (lambda x: jnp.cosh(jnp.sum(x, axis=1)) + jax.lax.erf(jnp.max(x, axis=1)), [b4]),
        # narrow floats: sinh, cosh, erf and the in-place expansions computed in float32 between converts;
        # asin, acos, asinh, acosh, atanh, atan in the operand's own type
        "composite_each_op_bfloat16": (lambda x: [f(x) for f in (jax.lax.sinh, jax.lax.cosh, jax.lax.asin,
                                                                 jax.lax.acos, jax.lax.asinh, jax.lax.acosh,
                                                                 jax.lax.atanh, jax.lax.erf, jax.lax.atan)],
                                       [spec((3,), jnp.bfloat16)]),
        "composite_each_op_float16": (lambda x: [f(x) for f in (jax.lax.sinh, jax.lax.asinh, jax.lax.erf)],
                                      [spec((2, 2), jnp.float16)]),
        "in_place_bfloat16": (lambda x: [f(x) for f in (jax.lax.erf_inv, jax.lax.erfc, jax.lax.lgamma,
                                                        jax.lax.digamma, jax.lax.bessel_i1e)],
                              [spec((3,), jnp.bfloat16)]),
        "in_place_float16": (lambda x: jax.lax.lgamma(x) + jax.lax.erf_inv(x * 0.5), [spec((2, 2), jnp.float16)]),
        "zeta_polygamma_bfloat16": (lambda n, x: jax.lax.polygamma(n, x) + jax.lax.zeta(n + 2.0, x),
                                    [spec((3,), jnp.bfloat16), spec((3,), jnp.bfloat16)]),
        "float8_ops": (lambda x: [f(x) for f in (jax.lax.sinh, jax.lax.asinh, jax.lax.atan, jax.lax.lgamma,
                                                 jax.lax.erf_inv, jax.lax.sin)], [spec((4,), jnp.float8_e4m3fn)]),
        "float8_e5m2_ops": (lambda x: [jax.lax.cosh(x), jax.lax.digamma(x), x * 2], [spec((4,), jnp.float8_e5m2)]),
        "top_k_bfloat16": (lambda x: jax.lax.top_k(x, 2), [spec((3, 4), jnp.bfloat16)]),
        "composite_bfloat16_symbolic": (lambda x: jnp.sinh(x) + jnp.acosh(x) * jax.lax.erf(x),
                                        [spec("b, 4", jnp.bfloat16)]),
        # in place and top_k on symbolic shapes (top_k's shapes are i64 tensors, its slices real_dynamic_slice)
        "in_place_symbolic": (lambda x: [jax.lax.erf_inv(x * 0.5), jax.lax.atan(x), jnp.nextafter(x, 1.0)], [b4]),
        "lgamma_digamma_symbolic": (lambda x: jax.lax.lgamma(x) + jax.lax.digamma(x + 1.0), [b4]),
        "in_place_bfloat16_symbolic": (lambda x: jax.lax.lgamma(x) * jax.lax.erf_inv(x),
                                       [spec("b, 4", jnp.bfloat16)]),
        "top_k_symbolic": (lambda x: jax.lax.top_k(x, 2), [b4]),
        "erfc_bessel_symbolic": (lambda x: jax.lax.erfc(x) + jax.lax.bessel_i1e(x * 2.0), [b4]),
        "zeta_polygamma_symbolic": (lambda n, x: jax.lax.polygamma(n, x) + jax.lax.zeta(n + 2.0, x), [b4, b4]),
        "zeta_polygamma_float16_symbolic": (lambda n, x: jax.lax.polygamma(n, x) * jax.lax.zeta(n, x + 1.0),
                                            [spec(ab_b4.shape, jnp.float16), spec(ab_b4.shape, jnp.float16)]),
        "top_k_symbolic_3d": (lambda x: jax.lax.top_k(x, 3)[1], [spec("b, 2, 5", jnp.bfloat16)]),
        # JAX's array programs of bessel_i0e, the igamma family and random_gamma_grad (series under `while`)
        "bessel_i0e_static": (lambda x: jax.lax.bessel_i0e(x) * 2.0, [spec((2, 3))]),
        "bessel_i0e_symbolic": (lambda x: jax.lax.bessel_i0e(x), [b4]),
        "igamma_static": (lambda a, x: jax.lax.igamma(a, x), [spec((3,)), spec((3,))]),
        "igamma_family_symbolic": (lambda a, x: [jax.lax.igamma(a, x), jax.lax.igammac(a, x),
                                                 jax.lax.igamma_grad_a(a, x)], [b4, b4]),
        "random_gamma_grad_symbolic": (lambda a, x: jax.lax.random_gamma_grad(a, x), [b4, b4]),
        "igammac_bfloat16": (lambda a, x: jax.lax.igammac(a, x), [spec((3,), jnp.bfloat16), spec((3,), jnp.bfloat16)]),
        "bessel_i0e_float64": (lambda x: jax.lax.bessel_i0e(x) + 1.0, [spec((3,), jnp.float64)]),
        "igamma_grad_a_float64": (lambda a, x: jax.lax.igamma_grad_a(a, x),
                                  [spec((3,), jnp.float64), spec((3,), jnp.float64)]),
        "betainc_static": (lambda a, b, x: jax.scipy.special.betainc(a, b, x), [spec((3,))] * 3),
        "betainc_symbolic": (lambda a, b, x: jax.scipy.special.betainc(a, b, x * 0.5), [b4] * 3),
        # float64 erf, erfc, erf_inv on symbolic shapes (under x64: their float64 expansions)
        "erf_family_float64_symbolic": (lambda x: [jax.lax.erf(x), jax.lax.erfc(x), jax.lax.erf_inv(x * 0.5)],
                                        [spec("b, 4", jnp.float64)]),
    }
    return out


# Recorded again with jax_enable_x64 (dimension variables are then int64).
X64 = ("elementwise", "reshape_flat", "dim_as_value_mul", "arange", "dim_expr_input", "two_vars_broadcast", "cumsum",
       "tile", "take_rows", "take_columns", "composite_float64",
       "nextafter_float64", "lgamma_digamma_float64", "erf_erfc_float64",
       "bessel_i1e_float64", "erf_inv_float64", "zeta_polygamma_float64", "composite_sinh_symbolic",
       "lgamma_digamma_symbolic", "top_k_symbolic", "zeta_polygamma_symbolic", "bessel_i0e_symbolic",
       "igamma_family_symbolic", "random_gamma_grad_symbolic", "bessel_i0e_float64", "igamma_grad_a_float64",
       "erf_family_float64_symbolic", "betainc_static", "betainc_symbolic")


def lowered(jax, jnp, np) -> dict:
    """name -> (function, arguments) whose `jit(f).lower(*args).as_text()`
    is compared with JAX's: host callbacks and the tokens of ordered effects."""
    from importlib import import_module

    io_callback = import_module(jax.__name__ + ".experimental").io_callback
    vec = jax.ShapeDtypeStruct((3,), jnp.float32)
    x, m = jnp.ones(3, jnp.float32), jnp.ones((2, 3), jnp.float32)

    def ordered_print(x):
        jax.debug.print("x={x}", x=x, ordered=True)
        return x + 1

    def ordered_io(x):
        return io_callback(lambda v: np.asarray(v) * 2, vec, x, ordered=True) + 1

    def unordered_print(x):
        jax.debug.print("x={x}", x=x)
        return x + 1

    def two_prints(x):
        jax.debug.print("a {}", x)
        jax.debug.print("b {}", x)
        return x

    @jax.jit
    def inner(x):
        jax.debug.print("in {}", x, ordered=True)
        return x * 2

    def ordered_twice(x, m):
        jax.debug.print("{} {}", x, m, ordered=True)
        jax.debug.print("{}", m.sum(), ordered=True)
        return m

    def in_cond(x):
        return jax.lax.cond(x[0] > 0, lambda x: (jax.debug.print("{}", x, ordered=True), x * 2)[1], lambda x: x, x)

    def in_while(x):
        def body(c):
            jax.debug.print("{}", c[0], ordered=True)
            return c[0] + 1, c[1]

        return jax.lax.while_loop(lambda c: c[0] < 3, body, (0, x))

    def scan_body(c, x):
        jax.debug.print("{}", x, ordered=True)
        return c + x, x * 2

    xs = jnp.ones(5, jnp.float32)
    scalar = jax.ShapeDtypeStruct((), jnp.float32)

    def io_in_fori(xs):
        return jax.lax.fori_loop(
            0, 4, lambda i, c: c + io_callback(lambda v: np.float32(v), scalar, c[0], ordered=True), xs)

    def print_then_scan(xs):
        jax.debug.print("a {}", xs[0], ordered=True)
        return jax.lax.scan(scan_body, 0.0, xs)

    def print_in_fori(x):
        def body(i, c):
            jax.debug.print("{}", c, ordered=True)
            return c + 1

        return jax.lax.fori_loop(0, 3, body, x)

    # (scan: the tokens lead the loop state and the body's @closed_call)
    scans = {
        "ordered_print_in_scan": (lambda xs: jax.lax.scan(scan_body, 0.0, xs), [xs]),
        "ordered_print_in_scan_unroll2": (lambda xs: jax.lax.scan(scan_body, 0.0, xs, unroll=2), [xs]),
        "ordered_print_in_scan_unrolled": (lambda xs: jax.lax.scan(scan_body, 0.0, xs, unroll=True), [xs]),
        "ordered_print_in_reverse_scan": (lambda xs: jax.lax.scan(scan_body, 0.0, xs, reverse=True), [xs]),
        "ordered_print_in_nested_scan": (
            lambda xs: jax.lax.scan(lambda c, x: (jax.lax.scan(scan_body, c, x[None])[0], x), 0.0, xs), [xs]),
        "ordered_print_then_scan": (print_then_scan, [xs]),
        "ordered_print_in_fori_loop": (print_in_fori, [x]),
        "ordered_io_callback_in_fori_loop": (io_in_fori, [xs]),
    }
    return scans | {
        "ordered_print_in_cond": (in_cond, [x]),
        "ordered_print_in_while": (in_while, [x]),
        "ordered_print": (ordered_print, [x]),
        "ordered_io_callback": (ordered_io, [x]),
        "unordered_print": (unordered_print, [x]),
        "two_unordered_prints": (two_prints, [x]),
        "nested_jit_ordered": (lambda x: inner(x) + 1, [x]),
        "callbacks_pure_and_io": (lambda x: jax.pure_callback(lambda v: np.asarray(v), vec, x)
                                  + io_callback(lambda v: np.asarray(v), vec, x), [x]),
        "ordered_twice_matrix_scalar": (ordered_twice, [x, m]),
    }
