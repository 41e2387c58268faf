"""StableHLO text of jitted programs, as JAX 0.11.0 prints it, recorded in
``stablehlo.json``. Same runner as ``programs_core.py``; recorded with

    /tmp/jax-ref/bin/python tests/golden/record_stablehlo.py

Each program lowers a jitted function and keeps
``Lowered.as_text(debug_info=False)`` (no location information): the
module, its functions, and every op JAX emits for the jaxpr's equations.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()


def lowered(name: str, source: str, call: str, jit_kwargs: str = "") -> None:
  """A program defining `f` (in `source`) whose result is the text of
  ``jax.jit(f, <jit_kwargs>).lower(<call>)``."""
  program(name, "text", source + f"\nresult = jax.jit(f{', ' + jit_kwargs if jit_kwargs else ''}).lower({call}).as_text(debug_info=False)\n")


X = "jnp.ones((3, 4), jnp.float32)"
V = "jnp.arange(5.0, dtype=jnp.float32)"
I = "jnp.arange(6, dtype=jnp.int32).reshape(2, 3)"

# --- elementwise ---------------------------------------------------------
lowered("mlp_layer", "def f(x, W, b): return jnp.maximum(x @ W + b, 0.0)",
        "jnp.ones((4, 8)), jnp.ones((8, 16)), jnp.zeros(16)")
lowered("unary_float", "def f(x): return (jnp.sin(x), jnp.cos(x), jnp.exp(x), jnp.log(x), jnp.tanh(x), jnp.sqrt(x), -x, jnp.abs(x), jnp.floor(x), jnp.ceil(x))", X)
lowered("unary_more", "def f(x): return (lax.rsqrt(x), jnp.expm1(x), jnp.log1p(x), lax.logistic(x), jnp.sign(x), jnp.round(x), lax.cbrt(x), jnp.tan(x), lax.is_finite(x))", X)
lowered("binary_float", "def f(x, y): return (x + y, x - y, x * y, x / y, jnp.maximum(x, y), jnp.minimum(x, y), lax.pow(x, y), lax.atan2(x, y), lax.rem(x, y))", f"{X}, {X}")
lowered("binary_int", "def f(x, y): return (x + y, x * y, x // y, x % y, x & y, x | y, x ^ y, ~x, x << 1, x >> 1, lax.shift_right_logical(x, y))", f"{I}, {I}")
lowered("scalar_literals", "def f(x): return x * 2 + 1.5 - 0.1", V)
lowered("float_constants", "def f(x): return [x * c for c in (3.14159265, 1e10, 1e-10, 123456.7, 1/3, 12345678.0, float('nan'), float('inf'), -float('inf'), -0.0, 2.5e-5, 1234.5678)]", V)
lowered("integer_pow", "def f(x): return (x ** 2, x ** 3, lax.integer_pow(x, -2), jnp.square(x))", V)
lowered("integer_pow_forms", "def f(x, s): return (lax.integer_pow(x, -1), lax.integer_pow(s, -1), lax.integer_pow(x, 5), lax.integer_pow(x, -3), lax.integer_pow(s, 7))", f"{V}, jnp.float32(1.5)")
lowered("comparisons", "def f(x, y): return (x < y, x <= y, x == y, x != y, x > y, x >= y)", f"{V}, {V}[::-1]")
lowered("comparisons_int", "def f(x, y): return (x < y, x == y, jnp.uint32(3) > y.astype(jnp.uint32))", f"{I}, {I}")
lowered("select_where", "def f(x, y): return jnp.where(x > 2, x, y)", f"{V}, {V}")
lowered("clamp", "def f(x): return (jnp.clip(x, 1.0, 3.0), lax.clamp(0.0, x, 2.0))", V)
lowered("logical_bool", "def f(x, y): return (jnp.logical_and(x > 1, y < 3), jnp.logical_not(x > 2), jnp.logical_or(x > 1, y > 1))", f"{V}, {V}")
lowered("convert_types", "def f(x): return (x.astype(jnp.int32), x.astype(jnp.bfloat16), x.astype(jnp.float16), x.astype(jnp.uint8), x.astype(bool), (x > 1).astype(jnp.float32))", V)
lowered("bitcast", "def f(x): return (lax.bitcast_convert_type(x, jnp.int32), lax.bitcast_convert_type(x, jnp.uint8))", V)
lowered("complex_ops", "def f(x): z = lax.complex(x, x * 2); return (z * z, jnp.real(z), jnp.imag(z), jnp.conj(z), jnp.abs(z))", V)
lowered("dense_constants", "c = np.array([[1.0, 2.5], [3.0, -4.0]], np.float32)\nk = np.arange(4, dtype=np.int32)\ndef f(x): return (x + c, x.sum() + k, jnp.array([True, False]), jnp.zeros((2, 3)), jnp.full((2,), 7, jnp.int8))", "jnp.ones((2, 2))")
lowered("erf_family", "def f(x): return (lax.erf(x), lax.erfc(x), lax.erf_inv(x * 0.1))", V)
lowered("lgamma_digamma", "def f(x): return (lax.lgamma(x), lax.digamma(x))", V)
# JAX's array programs (lower_fun): Cephes' Chebyshev series; the igamma series and continued fraction
A5 = "jnp.array([0.5, 1.0, 2.5, 4.0, 10.0], jnp.float32)"
X5 = "jnp.array([0.1, 2.0, 1.0, 6.0, 12.0], jnp.float32)"
lowered("bessel_i0e", "def f(x): return lax.bessel_i0e(x)", "jnp.linspace(-12.0, 12.0, 7, dtype=jnp.float32)")
lowered("bessel_i0e_bfloat16", "def f(x): return lax.bessel_i0e(x)", "jnp.linspace(-12.0, 12.0, 7, dtype=jnp.bfloat16)")
lowered("igamma_family", "def f(a, x): return (lax.igamma(a, x), lax.igammac(a, x), lax.igamma_grad_a(a, x))",
        f"{A5}, {X5}")
lowered("igamma_float16", "def f(a, x): return lax.igamma(a, x)", f"{A5}.astype(jnp.float16), {X5}.astype(jnp.float16)")
lowered("random_gamma_grad", "def f(a, x): return lax.random_gamma_grad(a, x)", f"jnp.float32(2.5), {X5}")
lowered("betainc", "def f(a, b, x): return (jax.scipy.special.betainc(a, b, x), jax.grad(lambda x: jax.scipy.special.betainc(a, b, x).sum())(x))",
        f"{A5}, {X5}, jnp.array([0.05, 0.3, 0.5, 0.7, 0.95], jnp.float32)")
lowered("betainc_float16", "def f(a, b, x): return jax.scipy.special.betainc(a, b, x)",
        f"{A5}.astype(jnp.float16), {X5}.astype(jnp.float16), jnp.array([0.05, 0.3, 0.5, 0.7, 0.95], jnp.float16)")
lowered("convert_to_bool_scalar", "def f(x, i, m): return (x.astype(bool), i.astype(bool), jnp.logical_and(m > 1, m < 4))",
        "jnp.float32(0.5), jnp.int32(2), 3")
lowered("weak_int_floor_mod", "def f(x, n): k = lax.broadcast_in_dim(n, x.shape, []); return (k % lax.full_like(k, 2), (k - 1) // lax.full_like(k, 2), x)",
        f"{X5}, 7")
lowered("gammainc_grad", "def f(a, x): return jax.grad(lambda a, x: jax.scipy.special.gammainc(a, x).sum(), (0, 1))(a, x)",
        f"{A5}, {X5}")
lowered("nn_activations", "def f(x): return (jax.nn.relu(x), jax.nn.sigmoid(x), jax.nn.gelu(x, approximate=True), jax.nn.softplus(x))", V)
lowered("softmax", "def f(x): return jax.nn.softmax(x, axis=-1)", X)
lowered("logsumexp", "def f(x): return jax.nn.logsumexp(x, axis=1)", X)
lowered("reduce_precision", "def f(x): return lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10)", V)
lowered("nextafter_popcnt", "def f(x, y): return (lax.nextafter(x, x + 1), lax.population_count(y), lax.clz(y))", f"{V}, {I}")
lowered("mixed_dtypes_uint", "def f(x): return (x + jnp.uint32(3), x * x, x // jnp.uint32(2), jnp.maximum(x, jnp.uint32(1)))", "jnp.arange(4, dtype=jnp.uint32)")
lowered("weak_scalar_arg", "def f(x, s): return x * s", f"{V}, 2.0")

# --- shapes ----------------------------------------------------------------
lowered("broadcasting", "def f(x, y): return x + y[:, None] + 1.0", f"{X}, jnp.ones(3)")
lowered("reshape_transpose", "def f(x): return (x.reshape(4, 3), x.T, x.reshape(-1), jnp.transpose(x.reshape(2, 2, 3), (2, 0, 1)))", X)
lowered("squeeze_expand", "def f(x): return (jnp.squeeze(x, 0), jnp.expand_dims(x, 2), x[None])", "jnp.ones((1, 3))")
lowered("slice_static", "def f(x): return (x[1:, ::2], x[0], x[:, -1], lax.slice(x, (0, 1), (2, 4), (1, 2)))", X)
lowered("rev_pad", "def f(x): return (jnp.flip(x, 0), lax.pad(x, 0.0, ((1, 2, 0), (0, 0, 1))), jnp.pad(x, 1))", X)
lowered("concatenate_stack", "def f(x, y): return (jnp.concatenate([x, y], 0), jnp.stack([x, y]), jnp.hstack([x, y]))", f"{X}, {X}")
lowered("iota_arange", "def f(x): return (jnp.arange(6) + x, lax.iota(jnp.float32, 4), lax.broadcasted_iota(jnp.int32, (2, 3), 1), jnp.eye(3))", "jnp.int32(1)")
lowered("dynamic_slice", "def f(x, i): return (lax.dynamic_slice(x, (i, 0), (2, 2)), lax.dynamic_update_slice(x, jnp.zeros((1, 2)), (i, i)), lax.dynamic_index_in_dim(x, i, 1))", f"{X}, jnp.int32(1)")
lowered("broadcast_to", "def f(x): return (jnp.broadcast_to(x, (2, 3, 4)), jnp.tile(x, (2, 1)), jnp.repeat(x, 2, axis=0))", X)

# --- dot_general -----------------------------------------------------------
lowered("matmul", "def f(x, y): return x @ y", "jnp.ones((3, 4)), jnp.ones((4, 5))")
lowered("matvec_dot", "def f(x, y): return (jnp.dot(x, y), jnp.vdot(y, y), jnp.outer(y, y))", "jnp.ones((3, 4)), jnp.ones(4)")
lowered("batched_matmul", "def f(x, y): return jnp.einsum('bij,bjk->bik', x, y)", "jnp.ones((2, 3, 4)), jnp.ones((2, 4, 5))")
lowered("dot_general_precision", "def f(x, y): return (lax.dot_general(x, y, (((1,), (0,)), ((), ())), precision=lax.Precision.HIGHEST), lax.dot(x, y, preferred_element_type=jnp.float32))", "jnp.ones((3, 4), jnp.bfloat16), jnp.ones((4, 2), jnp.bfloat16)")
lowered("dot_int", "def f(x, y): return x @ y", f"{I}, {I}.T")
lowered("tensordot", "def f(x, y): return jnp.tensordot(x, y, axes=([0, 1], [1, 0]))", "jnp.ones((3, 4)), jnp.ones((4, 3))")

# --- reductions ------------------------------------------------------------
lowered("reductions", "def f(x): return (jnp.sum(x), jnp.sum(x, 0), jnp.max(x, 1), jnp.min(x), jnp.prod(x, 1), jnp.mean(x, 0))", X)
lowered("reductions_int_bool", "def f(x): return (jnp.sum(x), jnp.max(x), jnp.min(x, 0), jnp.all(x > 1), jnp.any(x > 1, 1), jnp.prod(x))", I)
lowered("argmax_argmin", "def f(x): return (jnp.argmax(x, 1), jnp.argmin(x, 0), jnp.argmax(x))", X)
lowered("argmax_int", "def f(x): return jnp.argmax(x, 0)", I)
lowered("cumulative", "def f(x): return (jnp.cumsum(x, 1), jnp.cumprod(x, 0), lax.cummax(x, 1), lax.cummin(x, 0, reverse=True))", X)
lowered("cumsum_int", "def f(x): return jnp.cumsum(x)", "jnp.arange(5)")
lowered("var_std", "def f(x): return (jnp.var(x, 0), jnp.std(x))", X)
lowered("reduce_xor_or", "def f(x): return (lax.reduce_xor(x, (0,)), lax.reduce_or(x > 2, (1,)), lax.reduce_and(x > 0, (0, 1)))", I)

# --- sort --------------------------------------------------------------------
lowered("sort", "def f(x): return (jnp.sort(x), jnp.sort(x, axis=0))", X)
lowered("argsort", "def f(x): return jnp.argsort(x)", V)
lowered("sort_multi", "def f(x, y): return lax.sort((x, y), num_keys=1)", f"{V}, jnp.arange(5)")
lowered("sort_int_desc", "def f(x): return jnp.sort(x, descending=True)", "jnp.arange(5)")
lowered("top_k", "def f(x): return lax.top_k(x, 2)", X)

# --- gather / scatter ------------------------------------------------------
lowered("gather_index", "def f(x, i): return x[i]", f"{X}, jnp.array([0, 2])")
lowered("gather_2d", "def f(x, i, j): return x[i, j]", f"{X}, jnp.array([0, 2]), jnp.array([1, 3])")
lowered("gather_take", "def f(x, i): return (jnp.take(x, i, axis=1), jnp.take_along_axis(x, jnp.zeros((3, 1), jnp.int32), axis=1))", f"{X}, jnp.array([0, 3])")
lowered("dynamic_index_scalar", "def f(x, i): return x[i]", f"{V}, jnp.int32(2)")
lowered("scatter_set", "def f(x, i): return x.at[i].set(0.0)", f"{V}, jnp.array([0, 3])")
lowered("scatter_add", "def f(x, i, u): return x.at[i].add(u)", f"{X}, jnp.array([0, 2]), jnp.ones((2, 4))")
lowered("scatter_mul_min_max", "def f(x, i): return (x.at[i].multiply(2.0), x.at[i].min(1.0), x.at[i].max(1.0))", f"{V}, jnp.array([1, 1])")

# --- convolution / windows -------------------------------------------------
lowered("conv2d", "def f(x, k): return lax.conv_general_dilated(x, k, (1, 1), 'SAME')", "jnp.ones((1, 2, 5, 5)), jnp.ones((3, 2, 3, 3))")
lowered("conv_nhwc_strided", "def f(x, k): return lax.conv_general_dilated(x, k, (2, 2), 'VALID', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))", "jnp.ones((2, 8, 8, 3)), jnp.ones((3, 3, 3, 4))")
lowered("conv_dilated_grouped", "def f(x, k): return lax.conv_general_dilated(x, k, (1,), [(1, 1)], lhs_dilation=(2,), rhs_dilation=(2,), feature_group_count=2)", "jnp.ones((1, 4, 6)), jnp.ones((4, 2, 3))")
lowered("conv1d_jnp", "def f(x, k): return jnp.convolve(x, k)", "jnp.ones(8), jnp.ones(3)")
lowered("max_pool", "def f(x): return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), 'VALID')", "jnp.ones((1, 4, 4, 2))")
lowered("avg_pool", "def f(x): return lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), 'SAME') / 4", X)
lowered("max_pool_grad", "def f(x): return jax.grad(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), 'VALID').sum())(x)", "jnp.ones((4, 4))")

# --- control flow ----------------------------------------------------------
lowered("fori_loop", "def f(x): return lax.fori_loop(0, 3, lambda j, c: c * 2 + j, x)", X)
lowered("while_loop", "def f(x): return lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))", V)
lowered("cond", "def f(x): return lax.cond(x.sum() > 0, lambda: x + 1, lambda: x - 1)", X)
lowered("cond_operands", "def f(p, x, y): return lax.cond(p, lambda a, b: a * b, lambda a, b: a - b, x, y)", f"True, {V}, {V}")
lowered("switch", "def f(i, x): return lax.switch(i, [lambda x: x + 1, lambda x: x * 2, lambda x: -x], x)", f"jnp.int32(1), {V}")
lowered("scan_cumsum", "def f(xs): return lax.scan(lambda c, x: (c + x, c * x), 0.0, xs)", V)
lowered("scan_matrix", "def f(c, xs): return lax.scan(lambda c, x: (jnp.tanh(c @ x), c.sum()), c, xs)", "jnp.ones((2, 3)), jnp.ones((4, 3, 3))")
lowered("scan_reverse_unroll", "def f(xs): return lax.scan(lambda c, x: (c * x, c), 1.0, xs, reverse=True, unroll=2)", V)
lowered("map", "def f(xs): return lax.map(lambda x: x.sum() * 2, xs)", X)

# --- calls -------------------------------------------------------------------
lowered("nested_jit", "g = jax.jit(lambda y: y * 2)\ndef f(x): return g(x) + g(x)", X)
lowered("nested_jit_named", "@jax.jit\ndef inner(a, b): return a @ b, a.sum()\ndef f(x): return inner(x, x.T)", X)
lowered("nested_jit_twice_deep", "@jax.jit\ndef leaf(a): return jnp.sin(a)\n@jax.jit\ndef mid(a): return leaf(a) * leaf(a + 1)\ndef f(x): return mid(x)", V)
lowered("custom_jvp_relu", "def f(x): return jax.nn.relu(x) + jax.nn.silu(x)", V)
lowered("custom_vjp", "@jax.custom_vjp\ndef g(x): return jnp.sin(x)\ng.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda r, ct: (r * ct,))\ndef f(x): return g(x) * 2", V)
lowered("checkpoint", "def f(x): return jax.checkpoint(lambda y: jnp.sin(jnp.sin(y)))(x)", V)
lowered("stop_gradient_optbarrier", "def f(x): return (lax.stop_gradient(x) * 2, lax.optimization_barrier(x))", V)
lowered("pytree_io", "def f(d, t): return {'sum': d['a'] + t[0], 'out': (t[1] * 2, [d['b']])}", "{'a': jnp.ones(3), 'b': jnp.int32(2)}, (jnp.ones(3), jnp.zeros(2))")
lowered("donated", "def f(x, y): return x + y, y", f"{V}, {V}", "donate_argnums=0")
lowered("kwargs_static", "def f(x, n, *, scale): return x * n * scale", f"{V}, 3, scale=jnp.float32(2.0)", "static_argnums=1")
lowered("identity_outputs", "def f(x, y): return x, x, 1.0", f"{V}, {V}")

# --- transformations ---------------------------------------------------------
lowered("grad_mlp", "def loss(W, x): return jnp.sum(jnp.tanh(x @ W) ** 2)\ndef f(W, x): return jax.grad(loss)(W, x)", "jnp.ones((4, 3)), jnp.ones((2, 4))")
lowered("value_and_grad", "def f(x): return jax.value_and_grad(lambda x: jnp.sum(jnp.sin(x) * x))(x)", V)
lowered("grad_of_while", "def f(x): return jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0))(x)", "2.0")
lowered("vmap_matvec", "def f(W, xs): return jax.vmap(lambda x: W @ x)(xs)", "jnp.ones((3, 4)), jnp.ones((5, 4))")
lowered("vmap_cond", "def f(p, x): return jax.vmap(lambda p, x: lax.cond(p, lambda: x + 1, lambda: x * 2))(p, x)", f"jnp.array([True, False, True, False, True]), {V}")
lowered("jvp", "def f(x, t): return jax.jvp(jnp.sin, (x,), (t,))", f"{V}, {V}")
lowered("hessian", "def f(x): return jax.hessian(lambda x: jnp.sum(x ** 3))(x)", "jnp.ones(3)")

# --- random ------------------------------------------------------------------
lowered("random_key_split", "def f(k): return jax.random.split(k)", "jax.random.key(0)")
lowered("random_uniform", "def f(k): return jax.random.uniform(k, (3,))", "jax.random.key(0)")
lowered("random_normal_legacy", "def f(k): return jax.random.normal(k, (2, 2))", "jax.random.PRNGKey(1)")
lowered("random_bits_fold_in", "def f(k): return jax.random.bits(jax.random.fold_in(k, 3), (4,), jnp.uint32)", "jax.random.key(0)")
lowered("rng_bit_generator", "def f(k): return lax.rng_bit_generator(k, (2, 3), dtype=jnp.uint32)", "jnp.zeros((2,), jnp.uint64) if False else jnp.zeros((4,), jnp.uint32)")
lowered("random_key_data", "def f(k): return jax.random.key_data(k), jax.random.wrap_key_data(jax.random.key_data(k))", "jax.random.key(0)")
lowered("scan_with_consts", "def f(w, xs): return lax.scan(lambda c, x: (c * w + x, c), 0.0, xs)", f"jnp.float32(2.0), {V}")
lowered("scan_unroll_exact", "def f(xs): return lax.scan(lambda c, x: (c + x, c * 2), 0.0, xs, unroll=5)", V)
lowered("scan_unroll_remainder", "def f(xs): return lax.scan(lambda c, x: (c + x.sum(), (c, x * 2)), 0.0, xs, unroll=2)", "jnp.ones((5, 2))")
lowered("while_with_consts", "def f(x, n): return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x), (0, x))", f"{V}, jnp.int32(4)")
lowered("while_batched_pred", "def f(xs): return jax.vmap(lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x))(xs)", V)
lowered("select_n_int", "def f(i, x): return lax.select_n(i, x, x + 1, x * 2)", f"jnp.int32(1), {V}")
lowered("exp2_asin", "def f(x): return (lax.exp2(x), jnp.arcsin(x), jnp.sinh(x), jnp.arctanh(x))", V)
lowered("split_unstack", "def f(x): return (jnp.split(x, 2, axis=1), jnp.unstack(x))", X)
lowered("zero_outputs", "def f(x): return None", V)
lowered("constant_output", "def f(): return jnp.float32(1.0)", "")

# --- fft, generic reduce, windows' JVP, tokens and the rest --------------------
Z = "(jnp.arange(12.0, dtype=jnp.float32).reshape(3, 4) * lax.complex(1.0, 0.5)).astype(jnp.complex64)"
lowered("fft_complex", "def f(z): return (jnp.fft.fft(z), jnp.fft.ifft(z, axis=0), jnp.fft.fft2(z), jnp.fft.ifftn(z))", Z)
lowered("fft_real", "def f(x): return (jnp.fft.rfft(x), jnp.fft.irfft(jnp.fft.rfft(x)), jnp.fft.rfftn(x.reshape(3, 2, 2)), jnp.fft.fft(x), jnp.fft.irfft2(jnp.fft.rfft2(x), s=(3, 4)))",
        "(jnp.arange(12.0, dtype=jnp.float32).reshape(3, 4) + 1) ** 1.5")
lowered("reduce_custom", "def f(x, i): return (lax.reduce((x, i), (0.0, 0), lambda a, b: (a[0] + b[0] * 2, jnp.maximum(a[1], b[1])), (0,)), lax.reduce(x, 1.0, lambda a, b: a * b + 1, (1,)), lax.reduce(x, 0.0, lambda a, b: a + b, (0,)), lax.reduce(x, 0.0, lambda a, b: b + a, (1,)), lax.reduce(x, 0.0, lambda a, b: a - b, (0, 1)))",
        "jnp.arange(12.0, dtype=jnp.float32).reshape(3, 4) / 7, jnp.arange(12, dtype=jnp.int32).reshape(3, 4) % 5")
lowered("cumlogsumexp", "def f(x): return (lax.cumlogsumexp(x, 1), lax.cumlogsumexp(x, 0, reverse=True), lax.cumlogsumexp(x.astype(jnp.float16), 1))",
        "jnp.arange(12.0, dtype=jnp.float32).reshape(3, 4) - 6")
lowered("mulhi", "def f(a, b): return (lax.mulhi(a, b), lax.mulhi(a.astype(jnp.uint32), b.astype(jnp.uint32)), lax.mulhi(a.astype(jnp.int8), b.astype(jnp.int8)))",
        "jnp.array([[1, -7, 123456789], [2**31 - 1, -2**31, 65537]], jnp.int32), jnp.array([[3, 9, 987654321], [2**31 - 1, 3, 65536]], jnp.int32)")
lowered("max_pool_jvp", "def f(x, t): return (jax.jvp(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), 'VALID'), (x,), (t,)), jax.jvp(lambda x: lax.reduce_window(x, jnp.inf, lax.min, (2, 3), (1, 1), 'SAME'), (x,), (t,)))",
        "jnp.sin(jnp.arange(16.0, dtype=jnp.float32)).reshape(4, 4), jnp.arange(16.0, dtype=jnp.float32).reshape(4, 4)")
lowered("custom_vmap_linear_call", "@jax.custom_batching.custom_vmap\ndef g(x): return jnp.sin(x)\ng.def_vmap(lambda n, b, x: (jnp.cos(x), b[0]))\ndef f(x): return (g(x) * 2, jax.custom_derivatives.linear_call(lambda r, t: t * r, lambda r, t: t / r, 2.0, x))", X)
lowered("tokens", "def f(x): t = lax.after_all(lax.create_token(), lax.create_token()); return (lax.after_all(t), lax.after_all(), x)", V)
lowered("approx_top_k", "def f(x): return (lax.approx_max_k(x, 2), lax.approx_max_k(x, 3), lax.approx_min_k(x.astype(jnp.bfloat16), 1, reduction_dimension=0, recall_target=0.9, aggregate_to_topk=False))",
        "jnp.sin(jnp.arange(12.0, dtype=jnp.float32)).reshape(3, 4)")
lowered("rng_uniform", "def f(a): return (lax.rng_uniform(a, a + 1, (2, 3)), lax.rng_uniform(jnp.int32(0), jnp.int32(9), (4,)))", "jnp.float32(0.5)")
lowered("select_and_scatter", "import importlib\ntry:\n  sas = importlib.import_module(jax.__name__ + '._src.lax.windowed_reductions')._select_and_scatter\nexcept (ImportError, AttributeError):\n  sas = importlib.import_module(jax.__name__ + '._src.lax.select_and_scatter')._select_and_scatter\ndef f(x, s): return (sas(x, lax.ge, (2, 2), (2, 2), ((0, 0), (1, 1)), s, 0.0, lax.add), sas(x, lambda a, b: a < b * 2, (3, 1), (1, 1), ((1, 1), (0, 0)), x * 0.5, 1.0, lambda a, b: a * b + 1))",
        "jnp.sin(jnp.arange(16.0, dtype=jnp.float32)).reshape(4, 4), jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)")
lowered("cond_grad_residuals", "def f(x): return jax.grad(lambda x: lax.cond(x.sum() > 0, lambda x: jnp.sin(x).sum(), lambda x: (x * jnp.cos(x)).sum(), x))(x)", V)
