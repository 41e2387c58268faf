"""pyjax.nn: neural-network functions (JAX's jax.nn): activations, softmax,
normalisation, one-hot encoding, attention, and parameter initializers."""

from pyjax._src.nn.attention import dot_product_attention  # noqa: F401
from pyjax._src.nn.functions import (  # noqa: F401
    celu, elu, gelu, glu, hard_sigmoid, hard_silu, hard_swish, hard_tanh, identity, leaky_relu,
    log_sigmoid, log_softmax, logsumexp, mish, one_hot, relu, relu6, selu, sigmoid, silu, soft_sign,
    softmax, softplus, sparse_plus, sparse_sigmoid, squareplus, standardize, swish, tanh,
)
from pyjax.nn import initializers  # noqa: E402,F401
