"""pyjax.lax: the primitive operations (JAX's jax.lax), one wrapper per primitive."""

from pyjax._src.lax.elementwise import *  # noqa: F401,F403
from pyjax._src.lax.elementwise import _convert_element_type  # noqa: F401
from pyjax._src.lax.shapes import (
    broadcast, broadcast_in_dim, broadcast_in_dim_p, broadcasted_iota, concatenate, concatenate_p, expand_dims, full, iota, iota_p, reshape, reshape_p, rev, rev_p, slice, slice_p, squeeze, squeeze_p, transpose, transpose_p,
)
from pyjax._src.lax.reductions import (
    argmax, argmax_p, argmin, argmin_p, reduce_and, reduce_and_p, reduce_max, reduce_max_p, reduce_min, reduce_min_p, reduce_or, reduce_or_p, reduce_prod, reduce_prod_p, reduce_sum, reduce_sum_p, reduce_xor, reduce_xor_p,
)
from pyjax._src.lax.dot import (
    dot, dot_general, dot_general_p,
)
from pyjax._src.lax.dot import DotAlgorithm, DotAlgorithmPreset, DotDimensionNumbers, Precision, PrecisionLike
from pyjax._src.lax.convolution import *  # noqa: F401,F403
from pyjax._src.lax.fft import *  # noqa: F401,F403
from pyjax._src.lax.slicing import *  # noqa: F401,F403
from pyjax._src.lax.sorting import *  # noqa: F401,F403
from pyjax._src.lax.special import *  # noqa: F401,F403
from pyjax._src.lax.windowed import *  # noqa: F401,F403
from pyjax.lax import linalg  # noqa: E402,F401
from pyjax._src.lax.parallel import *  # noqa: F401,F403
from pyjax._src.lax.parallel_comm import *  # noqa: F401,F403
from pyjax._src.lax.parallel_vma import pcast  # noqa: F401
from pyjax._src.lax.parallel_ragged import ragged_all_to_all, ragged_all_to_all_p  # noqa: F401
from pyjax._src.lax.parallel_p2p import precv, psend  # noqa: F401
from pyjax._src.lax.control_flow import *  # noqa: F401,F403
from pyjax._src.lax.stack import stack, stack_p, tile, tile_p, unstack, unstack_p  # noqa: E402,F401
from pyjax._src.lax.identity import optimization_barrier, optimization_barrier_p  # noqa: E402,F401
from pyjax._src.lax.tokens import after_all, after_all_p, create_token, create_token_p  # noqa: E402,F401
from pyjax._src.lax.linear_solve import custom_linear_solve, linear_solve_p  # noqa: E402,F401
from pyjax._src.lax.rng import RandomAlgorithm, rng_bit_generator, rng_bit_generator_p  # noqa: E402,F401
from pyjax._src.lax.rng import rng_uniform, rng_uniform_p  # noqa: E402,F401
from pyjax._src.lax.markers import dce_sink, dce_sink_p, stage, stage_p  # noqa: E402,F401
from pyjax._src.lax.select_and_scatter import select_and_scatter_p  # noqa: E402,F401
from pyjax._src.lax.custom_root import custom_root  # noqa: E402,F401
from pyjax._src.lax.convenience import (  # noqa: E402,F401
    batch_matmul, broadcast_like, broadcast_shapes, broadcast_to_rank, collapse, dtype, empty, full_like,
    shape_as_value,
)
from pyjax._src.lax.ragged_dot import RaggedDotDimensionNumbers, ragged_dot, ragged_dot_general  # noqa: E402,F401
from pyjax._src.lax.identity import device_put_p  # noqa: E402,F401
from pyjax._src.sharding.api import sharding_constraint_p, with_sharding_constraint  # noqa: E402,F401
from pyjax._src.lax.scaled_dot import scaled_dot  # noqa: E402,F401
