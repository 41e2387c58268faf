"""pyjax.nn: neural-network activation functions (JAX's jax.nn)."""

from pyjax._src.nn.functions import log_softmax, relu, sigmoid, silu, softmax, softplus, swish, tanh
