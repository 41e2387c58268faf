"""pyjax.nn: neural-network functions (JAX's jax.nn): activations, softmax,
normalisation, one-hot encoding, attention, and parameter initializers."""

from pyjax._src.nn.attention import dot_product_attention  # noqa: F401
from pyjax._src.nn.functions import (  # noqa: F401
    celu,
    elu,
    gelu,
    glu,
    hard_sigmoid,
    hard_silu,
    hard_swish,
    hard_tanh,
    identity,
    leaky_relu,
    log1mexp,
    log_sigmoid,
    log_softmax,
    logmeanexp,
    logsumexp,
    mish,
    one_hot,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    soft_sign,
    softmax,
    softplus,
    sparse_plus,
    sparse_sigmoid,
    squareplus,
    standardize,
    swish,
    tanh,
)
from pyjax.nn import initializers  # noqa: F401
from pyjax._src.nn.scaled import get_scaled_dot_general_config, scaled_dot_general, scaled_matmul  # noqa: E402,F401
