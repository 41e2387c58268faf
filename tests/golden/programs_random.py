"""pyjax.random programs whose JAX 0.11.0 behaviour is recorded in random.json:
jaxprs of the key primitives and samplers, key reprs, and the errors for
misuse (see programs_core.py for the format; record with
`record_core.py random`). The bits themselves are in random_vectors.json."""

from programs_core import program_set

PROGRAMS, program = program_set()


# Not recorded yet, because they need changes outside pyjax.random:
# * iterating a traced key array (`k1, k2 = split(k)` under jit, complex
#   normal) stages `unstack[axis=0]` in JAX 0.11; pyjax's Tracer.__iter__
#   stages slice + squeeze;
# * `key + 1` is JAX's "add does not accept dtypes key<fry>, int32." and
#   iterating a 0-d key array says "iteration over a 0-d key array": both come
#   from the numpy layer's operators;
# * JAX folds convert_element_type of a literal while staging (an inlined
#   jit's Python-scalar arguments: triangular, lognormal; `.astype` of a
#   constant: randint of uint8), and prints a
#   Python float passed to a jit as it was given (`0.3:f32[]`, geometric);
#   pyjax stages the convert and rounds the literal.

# ---- the seed facts -------------------------------------------------
program("seed_normal_values", "value", """
result = jax.random.normal(jax.random.key(0), (3,))
""")
program("seed_normal_split_values", "value", """
k1, k2 = jax.random.split(jax.random.key(0))
result = jax.random.normal(k1, (3,))
""")
program("seed_normal_jaxpr", "jaxpr", """
result = jax.make_jaxpr(lambda k: jax.random.normal(k, (3,)))(jax.random.key(0))
""")

# ---- keys: reprs, avals, dtypes ---------------------------------------------
program("key_repr", "text", """
result = repr(jax.random.key(0))
""")
program("key_split_repr", "text", """
result = repr(jax.random.split(jax.random.key(0)))
""")
program("key_empty_split_repr", "text", """
result = repr(jax.random.split(jax.random.key(0), 0))
""")
program("key_aval", "text", """
result = str(jax.typeof(jax.random.key(0))) + " " + str(jax.random.key(0).dtype) + " " + str(jax.random.split(jax.random.key(0), (2, 3)).shape)
""")
program("key_issubdtype", "text", """
k = jax.random.key(0)
result = str([jnp.issubdtype(k.dtype, jax.dtypes.prng_key), jnp.issubdtype(k.dtype, jax.dtypes.extended),
              jnp.issubdtype(k.dtype, jnp.floating), jax.random.key_impl(k), jax.random.key_impl(jax.random.PRNGKey(0))])
""")
program("prngkey_value", "value", """
result = jax.random.PRNGKey(42)
""")
program("key_data_value", "value", """
result = jax.random.key_data(jax.random.split(jax.random.key(1), 3))
""")
program("wrap_key_data_roundtrip", "value", """
k = jax.random.key(42)
result = jax.random.key_data(jax.random.wrap_key_data(jax.random.key_data(k), impl="threefry2x32"))
""")
program("key_iteration_eager", "value", """
a, b, c = jax.random.split(jax.random.key(4), 3)
result = jax.random.key_data(b)
""")
program("key_pytree_leaf", "text", """
k = jax.random.key(0)
leaves, tree = jax.tree_util.tree_flatten({"k": k, "x": 1.0})
result = str(len(leaves)) + " " + str(leaves[0].dtype)
""")

# ---- jaxprs of the key primitives --------------------------------------------
program("jaxpr_key_seed", "jaxpr", """
result = jax.make_jaxpr(lambda: jax.random.key(0))()
""")
program("jaxpr_key_seed_traced", "jaxpr", """
result = jax.make_jaxpr(lambda s: jax.random.key(s))(3)
""")
program("jaxpr_prngkey", "jaxpr", """
result = jax.make_jaxpr(lambda: jax.random.PRNGKey(0))()
""")
program("jaxpr_split", "jaxpr", """
result = jax.make_jaxpr(lambda k: jax.random.split(k))(jax.random.key(0))
""")
# multivariate_normal: jax.numpy.linalg's jitted factorisations, and the
# einsum's single unbatched dot of the draws with the factor.
for _name, _args in [
    ("cholesky", "jnp.array([1.0, -1.0]), jnp.array([[2.0, 0.5], [0.5, 1.0]]), (4,)"),
    ("svd", "jnp.zeros(3), jnp.eye(3) * 2.0, (2,), method='svd'"),
    ("eigh", "jnp.zeros(2), jnp.array([[2.0, 0.5], [0.5, 1.0]]), method='eigh'"),
    ("batched", "jnp.zeros((2, 3)), jnp.broadcast_to(jnp.eye(3), (2, 3, 3))"),
]:
  program(f"jaxpr_multivariate_normal_{_name}", "jaxpr", f"""
result = jax.make_jaxpr(lambda k: jax.random.multivariate_normal(k, {_args}))(jax.random.key(1))
""")
program("jaxpr_split_shape", "jaxpr", """
result = jax.make_jaxpr(lambda k: jax.random.split(k, (2, 3)))(jax.random.key(0))
""")
program("jaxpr_split_index", "jaxpr", """
result = jax.make_jaxpr(lambda k: jax.random.split(k)[0])(jax.random.key(0))
""")
program("jaxpr_split_raw", "jaxpr", """
result = jax.make_jaxpr(lambda k: jax.random.split(k))(jax.random.PRNGKey(0))
""")
program("jaxpr_fold_in", "jaxpr", """
result = jax.make_jaxpr(lambda k: jax.random.fold_in(k, 3))(jax.random.key(0))
""")
program("jaxpr_fold_in_traced", "jaxpr", """
result = jax.make_jaxpr(lambda k, d: jax.random.fold_in(k, d))(jax.random.key(0), 3)
""")
program("jaxpr_bits", "jaxpr", """
result = jax.make_jaxpr(lambda k: jax.random.bits(k, (2,)))(jax.random.key(0))
""")
program("jaxpr_bits_uint8", "jaxpr", """
result = jax.make_jaxpr(lambda k: jax.random.bits(k, (2, 3), jnp.uint8))(jax.random.key(0))
""")
program("jaxpr_key_data", "jaxpr", """
result = jax.make_jaxpr(jax.random.key_data)(jax.random.key(0))
""")
program("jaxpr_wrap_key_data", "jaxpr", """
result = jax.make_jaxpr(jax.random.wrap_key_data)(jnp.zeros((3, 2), jnp.uint32))
""")
program("jaxpr_clone", "jaxpr", """
result = jax.make_jaxpr(jax.random.clone)(jax.random.key(0))
""")
program("jaxpr_uniform_default", "jaxpr", """
result = jax.make_jaxpr(lambda k: jax.random.uniform(k, (2, 3)))(jax.random.key(0))
""")
program("jaxpr_uniform_bounds", "jaxpr", """
result = jax.make_jaxpr(lambda k: jax.random.uniform(k, (3, 4), jnp.float32, -2.0, 3.0))(jax.random.key(1))
""")
program("jaxpr_uniform_float16", "jaxpr", """
result = jax.make_jaxpr(lambda k: jax.random.uniform(k, (4,), jnp.float16))(jax.random.key(1))
""")
program("jaxpr_normal_raw_key", "jaxpr", """
result = jax.make_jaxpr(lambda k: jax.random.normal(k, (2,)))(jax.random.PRNGKey(0))
""")
program("jaxpr_grad_with_key", "jaxpr", """
def loss(w, k):
  return jnp.sum(w * jax.random.normal(k, (3,)))
result = jax.make_jaxpr(jax.grad(loss))(jnp.ones(3), jax.random.key(0))
""")
program("grad_with_key_value", "value", """
def loss(w, k):
  return jnp.sum(w * jax.random.uniform(k, (3,)))
result = jax.grad(loss)(jnp.ones(3), jax.random.key(0))
""")
program("jit_split_values", "value", """
result = jax.random.key_data(jax.jit(jax.random.split)(jax.random.key(0)))
""")
program("jit_uniform_values", "value", """
result = jax.jit(lambda k: jax.random.uniform(k, (5,)))(jax.random.key(3))
""")

# ---- misuse: JAX's errors -----------------------------------------------------
program("error_batched_key", "error", """
result = jax.random.normal(jax.random.split(jax.random.key(0)), (2,))
""")
program("error_raw_key_shape", "error", """
result = jax.random.normal(jnp.zeros((2, 2), jnp.uint32), (2,))
""")
program("error_raw_key_dtype", "error", """
result = jax.random.normal(jnp.zeros(2, jnp.float32), (2,))
""")
program("error_key_not_array", "error", """
result = jax.random.normal("not a key", (2,))
""")
program("error_split_batched", "error", """
result = jax.random.split(jax.random.split(jax.random.key(0)))
""")
program("error_fold_in_array", "error", """
result = jax.random.fold_in(jax.random.key(0), jnp.ones(2))
""")
program("error_key_data_float", "error", """
result = jax.random.key_data(jnp.ones(2))
""")
program("error_wrap_key_data_dtype", "error", """
result = jax.random.wrap_key_data(jnp.ones(2))
""")
program("error_wrap_key_data_ndim", "error", """
result = jax.random.wrap_key_data(jnp.ones((), jnp.uint32))
""")
program("error_bits_dtype", "error", """
result = jax.random.bits(jax.random.key(0), (2,), jnp.int32)
""")
program("error_uniform_dtype", "error", """
result = jax.random.uniform(jax.random.key(0), (2,), jnp.int32)
""")
program("error_normal_dtype", "error", """
result = jax.random.normal(jax.random.key(0), (2,), jnp.int32)
""")
program("error_shape_float", "error", """
result = jax.random.normal(jax.random.key(0), (3.0,))
""")
program("error_shape_traced", "error", """
result = jax.jit(lambda k, n: jax.random.normal(k, (n,)))(jax.random.key(0), 3)
""")
program("error_key_seed_array", "error", """
result = jax.random.key(jnp.array([1, 2]))
""")
program("error_key_seed_key", "error", """
result = jax.random.key(jax.random.key(0))
""")
program("error_key_seed_float", "error", """
result = jax.random.key(1.0)
""")
program("error_key_seed_np_float", "error", """
result = jax.random.key(np.float32(1.0))
""")
program("error_key_to_numpy", "error", """
result = np.asarray(jax.random.key(0))
""")
program("error_key_impl_both", "error", """
result = jax.random.key(0, impl="threefry2x32", dtype="threefry2x32")
""")

# ---- jaxprs of the samplers ---------------------------------------------------
for _name, _call in [
    ("exponential", "jax.random.exponential(k, (3,))"),
    ("gumbel", "jax.random.gumbel(k, (3,))"),
    ("bernoulli", "jax.random.bernoulli(k, 0.3, (3,))"),
    ("bernoulli_array_p", "jax.random.bernoulli(k, jnp.array([0.1, 0.9]))"),
    ("truncated_normal", "jax.random.truncated_normal(k, -1.0, 2.0, (3,))"),
    ("cauchy", "jax.random.cauchy(k, (3,))"),
    ("laplace", "jax.random.laplace(k, (3,))"),
    ("logistic", "jax.random.logistic(k, (3,))"),
    ("gamma", "jax.random.gamma(k, 2.0, (3,))"),
    ("gamma_array_a", "jax.random.gamma(k, jnp.array([1.0, 2.0]))"),
    ("loggamma", "jax.random.loggamma(k, 0.5, (2,))"),
    ("rademacher", "jax.random.rademacher(k, (3,))"),
    ("maxwell", "jax.random.maxwell(k, (3,))"),
    ("pareto", "jax.random.pareto(k, 2.0, (3,))"),
    ("rayleigh", "jax.random.rayleigh(k, 2.0, (3,))"),
    ("weibull_min", "jax.random.weibull_min(k, 1.0, 2.0, (3,))"),
    ("uniform_bfloat16", "jax.random.uniform(k, (2,), jnp.bfloat16)"),
    ("chisquare", "jax.random.chisquare(k, 3.0, (2,))"),
    ("dirichlet", "jax.random.dirichlet(k, jnp.ones(3))"),
    ("categorical", "jax.random.categorical(k, jnp.zeros((2, 4)))"),
]:
  program(f"jaxpr_{_name}", "jaxpr", f"""
k = jax.random.key(0)
result = jax.make_jaxpr(lambda k: {_call})(k)
""")

# ---- sampler argument errors ----------------------------------------------------
for _name, _call in [
    ("exponential_int_dtype", "jax.random.exponential(k, (2,), jnp.int32)"),
    ("gamma_int_dtype", "jax.random.gamma(k, 1.0, (2,), jnp.int32)"),
    ("randint_float_dtype", "jax.random.randint(k, (2,), 0, 10, jnp.float32)"),
    ("bernoulli_int_p", "jax.random.bernoulli(k, 1, (2,))"),
    ("bernoulli_mode", "jax.random.bernoulli(k, 0.5, (2,), mode='medium')"),
    ("gumbel_mode", "jax.random.gumbel(k, (2,), mode='medium')"),
    ("geometric_float_dtype", "jax.random.geometric(k, 0.5, (2,), jnp.float32)"),
    ("shape_mismatch", "jax.random.pareto(k, jnp.ones(3), (2,))"),
    ("shape_not_broadcast", "jax.random.truncated_normal(k, jnp.zeros(3), 1.0, (2,))"),
    ("choice_too_many", "jax.random.choice(k, 3, (5,), replace=False)"),
    ("choice_shape_int", "jax.random.choice(k, 3, 5)"),
    ("choice_bad_p", "jax.random.choice(k, 3, (2,), p=jnp.ones(4) / 4)"),
    ("choice_empty_population", "jax.random.choice(k, 0, (2,))"),
    ("categorical_too_many", "jax.random.categorical(k, jnp.zeros(3), shape=(4,), replace=False)"),
    ("permutation_float", "jax.random.permutation(k, 3.0)"),
    ("dirichlet_scalar_alpha", "jax.random.dirichlet(k, 1.0)"),
    ("multivariate_normal_method", "jax.random.multivariate_normal(k, jnp.zeros(2), jnp.eye(2), method='lu')"),
    ("multivariate_normal_cov_shape", "jax.random.multivariate_normal(k, jnp.zeros(2), jnp.eye(3))"),
    ("beta_unsafe_cast", "jax.random.beta(k, jnp.float32(1), 2.0, dtype=jnp.float16)"),
    ("orthogonal_traced_n", "jax.jit(lambda k, n: jax.random.orthogonal(k, n))(k, 3)"),
    ("permutation_traced_n", "jax.jit(lambda k, n: jax.random.permutation(k, n))(k, 3)"),
]:
  program(f"error_{_name}", "error", f"""
k = jax.random.key(0)
result = {_call}
""")

# ---- the gamma sampler's implicit derivative -----------------------------------
program("grad_gamma_values", "value", """
k = jax.random.key(0)
result = jax.grad(lambda a: jnp.sum(jax.random.gamma(k, a, (3,))))(2.0)
""")
program("grad_loggamma_array_values", "value", """
k = jax.random.key(1)
result = jax.grad(lambda a: jnp.sum(jax.random.loggamma(k, a)))(jnp.array([0.5, 1.5, 4.0]))
""")
