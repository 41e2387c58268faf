"""jax.nn programs whose JAX 0.11.0 behaviour is recorded in ``nn.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py nn

The jaxprs show how each function decomposes (which ones are a `jit`, which a
`custom_jvp_call`, where a stop_gradient sits); the values pin the numerics
and the initializers' random streams; the errors JAX's messages.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()


def activation(name: str, call: str, shape: str = "(3, 4)") -> None:
  program(f"jaxpr_{name}", "jaxpr", f"result = jax.make_jaxpr(lambda x: {call})(jnp.ones({shape}))")


# ---- the decomposition of each activation ----

activation("relu", "jax.nn.relu(x)")
activation("relu6", "jax.nn.relu6(x)")
activation("gelu_approximate", "jax.nn.gelu(x)")
activation("gelu_exact", "jax.nn.gelu(x, approximate=False)")
activation("silu", "jax.nn.silu(x)")
activation("swish", "jax.nn.swish(x)")
activation("sigmoid", "jax.nn.sigmoid(x)")
activation("softplus", "jax.nn.softplus(x)")
activation("soft_sign", "jax.nn.soft_sign(x)")
activation("log_sigmoid", "jax.nn.log_sigmoid(x)")
activation("elu", "jax.nn.elu(x)")
activation("elu_alpha", "jax.nn.elu(x, 0.5)")
activation("celu", "jax.nn.celu(x, alpha=2.0)")
activation("selu", "jax.nn.selu(x)")
activation("leaky_relu", "jax.nn.leaky_relu(x)")
activation("hard_tanh", "jax.nn.hard_tanh(x)")
activation("hard_sigmoid", "jax.nn.hard_sigmoid(x)")
activation("hard_silu", "jax.nn.hard_silu(x)")
activation("glu", "jax.nn.glu(x)")
activation("glu_axis0", "jax.nn.glu(x, axis=0)", "(4, 3)")
activation("squareplus", "jax.nn.squareplus(x)")
activation("mish", "jax.nn.mish(x)")
activation("softmax_where", "jax.nn.softmax(x, where=x > 0)")
activation("softmax_axis_none", "jax.nn.softmax(x, axis=None)")
activation("log_softmax_axis0", "jax.nn.log_softmax(x, axis=0)")
activation("log_softmax_where", "jax.nn.log_softmax(x, where=x > 0)")
activation("logsumexp", "jax.nn.logsumexp(x, axis=1)")
activation("standardize", "jax.nn.standardize(x)")
activation("standardize_stable", "jax.nn.standardize(x, algorithm='stable')")
activation("relu_int", "jax.nn.relu(x)", "(3,), jnp.int32")

program("jaxpr_one_hot", "jaxpr", "result = jax.make_jaxpr(lambda i: jax.nn.one_hot(i, 5))(jnp.arange(3))")
program("jaxpr_one_hot_axis0", "jaxpr",
        "result = jax.make_jaxpr(lambda i: jax.nn.one_hot(i, 4, axis=0, dtype=jnp.int32))(jnp.arange(3))")
program("jaxpr_grad_relu", "jaxpr", "result = jax.make_jaxpr(jax.grad(lambda x: jax.nn.relu(x).sum()))(jnp.ones(3))")
program("jaxpr_grad_relu6", "jaxpr", "result = jax.make_jaxpr(jax.grad(lambda x: jax.nn.relu6(x).sum()))(jnp.ones(3))")
program("jaxpr_grad_softmax", "jaxpr",
        "result = jax.make_jaxpr(jax.grad(lambda x: jax.nn.softmax(x)[0]))(jnp.ones(3))")
program("jaxpr_attention", "jaxpr", """
q = jnp.ones((2, 3, 2, 4))
result = jax.make_jaxpr(jax.nn.dot_product_attention)(q, q, q)
""")
program("jaxpr_attention_causal_bias", "jaxpr", """
q = jnp.ones((1, 3, 2, 4))
bias = jnp.zeros((1, 2, 3, 3))
result = jax.make_jaxpr(lambda q, k, v, b: jax.nn.dot_product_attention(q, k, v, bias=b, is_causal=True))(q, q, q, bias)
""")

# ---- values ----

XS = "jnp.array([-3.0, -1.0, -0.25, 0.0, 0.5, 2.0, 7.0])"


def value(name: str, call: str) -> None:
  program(f"value_{name}", "value", f"x = {XS}\nresult = {call}")


value("relu6", "jax.nn.relu6(x)")
value("gelu_exact", "jax.nn.gelu(x, approximate=False)")
value("gelu_approximate", "jax.nn.gelu(x)")
value("selu", "jax.nn.selu(x)")
value("celu", "jax.nn.celu(x, 0.5)")
value("log_sigmoid", "jax.nn.log_sigmoid(x)")
value("mish", "jax.nn.mish(x)")
value("hard_silu", "jax.nn.hard_silu(x)")
value("squareplus", "jax.nn.squareplus(x, b=2)")
value("softmax_where", "jax.nn.softmax(x, where=x > -1)")
value("log_softmax_where", "jax.nn.log_softmax(x, where=x > -1)")
value("logsumexp_b", "jax.nn.logsumexp(x, b=jnp.arange(7.0) / 7)")
value("grad_relu_at_zero", "jax.grad(lambda x: jax.nn.relu(x).sum())(x)")
value("grad_relu6", "jax.grad(lambda x: jax.nn.relu6(x).sum())(x)")
value("grad_hard_tanh", "jax.grad(lambda x: jax.nn.hard_tanh(x).sum())(x)")
value("one_hot_out_of_range", "jax.nn.one_hot(jnp.array([-1, 0, 2, 3]), 3)")
value("standardize_rows", "jax.nn.standardize(x.reshape(1, 7) * jnp.ones((2, 1)))")
program("value_attention_mask", "value", """
q = jnp.arange(24.0).reshape(1, 3, 2, 4) / 10
k = jnp.cos(jnp.arange(24.0)).reshape(1, 3, 2, 4)
mask = jnp.array([[True, False, True], [True, True, False], [False, True, True]])
result = jax.nn.dot_product_attention(q, k, k, mask=mask[None, None])
""")
program("value_attention_causal_gqa", "value", """
q = jnp.sin(jnp.arange(32.0)).reshape(1, 2, 4, 4)
k = jnp.cos(jnp.arange(16.0)).reshape(1, 2, 2, 4)
result = jax.nn.dot_product_attention(q, k, k, is_causal=True, scale=0.5)
""")

# ---- initializers: the random streams ----


def init(name: str, call: str, shape: str = "(3, 4)") -> None:
  program(f"init_{name}", "value", f"result = {call}(jax.random.key(0), {shape})")


init("glorot_normal", "jax.nn.initializers.glorot_normal()")
init("glorot_uniform", "jax.nn.initializers.glorot_uniform()")
init("he_normal", "jax.nn.initializers.he_normal()")
init("he_uniform", "jax.nn.initializers.he_uniform()")
init("lecun_normal", "jax.nn.initializers.lecun_normal()")
init("lecun_uniform", "jax.nn.initializers.lecun_uniform()")
init("normal", "jax.nn.initializers.normal(0.5)")
init("uniform", "jax.nn.initializers.uniform(2.0)")
init("truncated_normal", "jax.nn.initializers.truncated_normal(0.3)")
init("orthogonal", "jax.nn.initializers.orthogonal()")
init("orthogonal_wide", "jax.nn.initializers.orthogonal(scale=2.0)", "(2, 5)")
init("variance_scaling_conv", "jax.nn.initializers.variance_scaling(2.0, 'fan_avg', 'uniform', in_axis=-2, out_axis=-1)",
     "(3, 3, 2, 4)")
init("variance_scaling_truncated", "jax.nn.initializers.variance_scaling(1.0, 'fan_in', 'truncated_normal')")
init("zeros", "jax.nn.initializers.zeros")
init("ones", "jax.nn.initializers.ones")
init("constant", "jax.nn.initializers.constant(-2.5)")
program("init_glorot_float16", "value",
        "result = jax.nn.initializers.glorot_normal()(jax.random.key(3), (4, 2), jnp.float16)")

# ---- errors ----

program("error_glu_odd", "error", "result = jax.nn.glu(jnp.ones((2, 3)))")
program("error_standardize_algorithm", "error", "result = jax.nn.standardize(jnp.ones(3), algorithm='slow')")
program("error_one_hot_traced_classes", "error",
        "result = jax.jit(lambda n: jax.nn.one_hot(jnp.arange(3), n))(3)")
program("error_attention_value_shape", "error",
        "result = jax.nn.dot_product_attention(jnp.ones((1, 3, 2, 4)), jnp.ones((1, 3, 2, 4)), jnp.ones((1, 3, 2, 5)))")
program("error_attention_heads", "error",
        "result = jax.nn.dot_product_attention(jnp.ones((1, 3, 3, 4)), jnp.ones((1, 3, 2, 4)), jnp.ones((1, 3, 2, 4)))")
program("error_variance_scaling_mode", "error",
        "result = jax.nn.initializers.variance_scaling(1.0, 'fan_out_in', 'normal')(jax.random.key(0), (2, 2))")
program("error_variance_scaling_distribution", "error",
        "result = jax.nn.initializers.variance_scaling(1.0, 'fan_in', 'cauchy')(jax.random.key(0), (2, 2))")
program("error_orthogonal_1d", "error", "result = jax.nn.initializers.orthogonal()(jax.random.key(0), (4,))")

# ---- log-mean-exp and log1mexp ----

activation("logmeanexp", "jax.nn.logmeanexp(x, axis=1)")
activation("log1mexp", "jax.nn.log1mexp(x)")
value("logmeanexp_where", "jax.nn.logmeanexp(x, where=x > -1)")
value("log1mexp", "jax.nn.log1mexp(jnp.abs(x) + 1e-3)")
value("grad_log1mexp", "jax.grad(lambda x: jax.nn.log1mexp(x).sum())(jnp.abs(x) + 0.5)")
