"""pyjax.test_util: derivative checks against finite differences (JAX's jax.test_util)."""

from pyjax._src.public_test_util import check_grads, check_jvp, check_vjp
