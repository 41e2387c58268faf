"""Loop programs at the edges of their shape (issue 19, item 3), shared by
the recorder (record_loop_edges.py, run by JAX 0.11.0) and the test
(tests/test_reliability_loops.py, run by pyjax): zero carries, zero xs, zero
ys, length-0 scans, identity bodies (every carry forwarded, so the loop has
no outputs at all), bodies of constants only, conds whose branches return
their inputs or literals, fori_loops with equal or crossed bounds, nesting.

`cases(jax, lax, jnp, np)` returns `[(name, fn, args)]`; each fn is run
eagerly as `fn(*args)` and as `jax.jit(fn)(*args)`. `encode(jax, np, out)`
turns a result into JSON the same way on both sides.
"""

from __future__ import annotations


def cases(jax, lax, jnp, np):
    f32 = np.float32
    xs = np.arange(4, dtype=f32)
    xs2 = np.arange(12, dtype=f32).reshape(4, 3)
    empty = np.zeros((0, 3), f32)
    out = []

    def case(name, fn, *args):
        out.append((name, fn, args))

    # -- scan: which of carries / xs / ys exist
    case("scan_identity_carry_no_ys", lambda xs: lax.scan(lambda c, x: (c, None), 1.0, xs), xs)
    case("scan_identity_array_carry_no_ys", lambda c, xs: lax.scan(lambda c, x: (c, None), c, xs), np.ones(3, f32), xs)
    case("scan_no_carry_no_ys", lambda xs: lax.scan(lambda c, x: (c, None), (), xs), xs)
    case("scan_no_carry_ys_forward_x", lambda xs: lax.scan(lambda c, x: (c, x), (), xs), xs2)
    case("scan_no_carry_ys", lambda xs: lax.scan(lambda c, x: (c, x * 2 + 1), (), xs), xs2)
    case("scan_no_xs", lambda c: lax.scan(lambda c, x: (c * 2, c), c, None, length=4), f32(1.5))
    case("scan_no_xs_no_carry_no_ys", lambda: lax.scan(lambda c, x: (c, None), (), None, length=4))
    case("scan_no_xs_identity", lambda c: lax.scan(lambda c, x: (c, None), c, None, length=3), f32(2.0))
    case("scan_no_ys", lambda c, xs: lax.scan(lambda c, x: (c + x, None), c, xs), f32(0.5), xs)
    case("scan_ys_forward_carry", lambda c, xs: lax.scan(lambda c, x: (c, c), c, xs), np.ones(2, f32), xs)
    case("scan_ys_forward_carry_and_x", lambda c, xs: lax.scan(lambda c, x: (c + x, (c, x)), c, xs), f32(1), xs)
    case("scan_swap_carries", lambda a, b, xs: lax.scan(lambda c, x: ((c[1], c[0]), c[0]), (a, b), xs),
         f32(1), f32(2), np.arange(3, dtype=f32))
    case("scan_partly_forwarded", lambda a, b, xs: lax.scan(lambda c, x: ((c[0] + x, c[1]), None), (a, b), xs),
         f32(1), f32(7), xs)
    # -- length 0
    case("scan_length0", lambda c, xs: lax.scan(lambda c, x: (c + x, x * 2), c, xs), np.ones(3, f32), empty)
    case("scan_length0_reverse", lambda c, xs: lax.scan(lambda c, x: (c + x, c), c, xs, reverse=True),
         np.ones(3, f32), empty)
    case("scan_length0_no_xs", lambda c: lax.scan(lambda c, x: (c + 1, c), c, None, length=0), f32(3))
    case("scan_length0_identity", lambda xs: lax.scan(lambda c, x: (c, None), 1.0, xs), empty)
    # -- constants only
    case("scan_body_constants", lambda xs: lax.scan(lambda c, x: (jnp.float32(2.0), jnp.float32(3.0)), f32(0), xs), xs)
    case("scan_body_constant_arrays", lambda xs: lax.scan(lambda c, x: (jnp.ones(2), jnp.zeros(3)), jnp.zeros(2), xs),
         xs)
    case("scan_body_python_literals", lambda xs: lax.scan(lambda c, x: (5, 1.5), 0, xs), xs)
    case("scan_reverse_ys", lambda c, xs: lax.scan(lambda c, x: (c * x + 1, c), c, xs, reverse=True), f32(1), xs)
    case("scan_int_bool_carries", lambda xs: lax.scan(lambda c, x: ((c[0] + 1, ~c[1]), c[1]), (0, True), xs), xs)
    case("map_identity", lambda xs: lax.map(lambda x: x, xs), xs2)
    case("map_constant", lambda xs: lax.map(lambda x: jnp.float32(1), xs), xs)
    # -- while
    case("while_identity_false", lambda: lax.while_loop(lambda c: False, lambda c: c, 1.0))
    case("while_identity_false_array", lambda c: lax.while_loop(lambda c: False, lambda c: c, c), np.ones(3, f32))
    case("while_never_runs", lambda c: lax.while_loop(lambda c: c < 0, lambda c: c + 1, c), f32(5))
    case("while_partly_forwarded", lambda a, b: lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1]), (a, b)),
         np.int32(0), f32(2))
    case("while_body_constant", lambda c: lax.while_loop(lambda c: c < 3, lambda c: jnp.int32(3), c), np.int32(0))
    case("while_counts", lambda c: lax.while_loop(lambda c: c < 10, lambda c: c + 1, c), np.int32(0))
    case("while_predicate_on_const", lambda n, c: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2),
                                                                c), np.int32(3), (np.int32(0), f32(1)))
    # -- fori_loop
    case("fori_equal_bounds", lambda c: lax.fori_loop(3, 3, lambda i, c: c + 1, c), f32(1))
    case("fori_crossed_bounds", lambda c: lax.fori_loop(5, 2, lambda i, c: c + 1, c), f32(1))
    case("fori_equal_traced_bounds", lambda lo, hi, c: lax.fori_loop(lo, hi, lambda i, c: c + i, c),
         np.int32(2), np.int32(2), np.int32(10))
    case("fori_identity", lambda c: lax.fori_loop(0, 4, lambda i, c: c, c), f32(1))
    case("fori_identity_traced_bounds", lambda lo, hi, c: lax.fori_loop(lo, hi, lambda i, c: c, c),
         np.int32(0), np.int32(4), f32(1))
    case("fori_tuple_equal_bounds", lambda a, b: lax.fori_loop(0, 0, lambda i, c: (c[1], c[0]), (a, b)),
         f32(1), f32(2))
    # -- cond / switch
    case("cond_both_identity", lambda p, x: lax.cond(p, lambda x: x, lambda x: x, x), True, f32(2))
    case("cond_identity_vs_compute", lambda p, x: lax.cond(p, lambda x: x, lambda x: x * 3, x), False, np.ones(2, f32))
    case("cond_literals", lambda p, x: lax.cond(p, lambda x: 1.0, lambda x: 2.0, x), True, f32(5))
    case("cond_literal_vs_input", lambda p, x: lax.cond(p, lambda x: jnp.float32(1.0), lambda x: x, x), False, f32(5))
    case("cond_no_outputs", lambda p, x: lax.cond(p, lambda x: None, lambda x: None, x), True, f32(5))
    case("cond_no_operands", lambda p: lax.cond(p, lambda: 1.0, lambda: 2.0), False)
    case("cond_swap_outputs", lambda p, a, b: lax.cond(p, lambda a, b: (b, a), lambda a, b: (a, b), a, b),
         True, f32(1), f32(2))
    case("switch_out_of_range", lambda i, x: lax.switch(i, [lambda x: x, lambda x: x + 1], x), np.int32(7), f32(1))
    case("switch_negative", lambda i, x: lax.switch(i, [lambda x: x, lambda x: x + 1], x), np.int32(-3), f32(1))
    # -- nested
    case("scan_of_identity_while", lambda c, xs: lax.scan(
        lambda c, x: (lax.while_loop(lambda d: False, lambda d: d, c), x), c, xs), f32(1), xs)
    case("while_of_identity_scan", lambda c: lax.while_loop(
        lambda c: c[0] < 3, lambda c: (c[0] + 1, lax.scan(lambda d, x: (d, None), c[1], jnp.arange(3.0))[0]), c),
        (np.int32(0), f32(4)))
    case("scan_of_cond_passthrough", lambda c, xs: lax.scan(
        lambda c, x: (lax.cond(x > 1, lambda c: c, lambda c: c + x, c), None), c, xs), f32(0), xs)
    case("cond_of_scan_no_outputs", lambda p, xs: lax.cond(
        p, lambda xs: lax.scan(lambda c, x: (c, None), (), xs)[1], lambda xs: None, xs), True, xs)
    case("scan_of_scan_length0", lambda c, xs: lax.scan(
        lambda c, x: (c + lax.scan(lambda d, y: (d + y, None), x, np.zeros((0,), f32))[0], None), c, xs), f32(0), xs)
    case("fori_of_fori_equal_bounds", lambda c: lax.fori_loop(
        0, 3, lambda i, c: lax.fori_loop(i, i, lambda j, d: d * 2, c) + 1, c), f32(0))
    return out


def encode(jax, np, out) -> dict:
    """The result as JSON: its tree structure and, per leaf, what kind of
    object it is, its dtype, shape, weak type and values."""
    leaves, tree = jax.tree_util.tree_flatten(out)
    encoded = []
    for leaf in leaves:
        if isinstance(leaf, jax.Array):
            kind = "array"
            weak = bool(jax.typeof(leaf).weak_type)
        else:
            kind = type(leaf).__name__  # a Python or NumPy scalar handed back as it came
            weak = None
        value = np.asarray(leaf)
        encoded.append({"kind": kind, "dtype": str(value.dtype), "shape": list(value.shape), "weak_type": weak,
                        "value": value.tolist()})
    return {"tree": str(tree), "leaves": encoded}
