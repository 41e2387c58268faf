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
from pyjax._src.lax.slicing import *  # noqa: F401,F403
from pyjax._src.lax.special import *  # noqa: F401,F403
from pyjax._src.lax.stack import stack, stack_p, tile, tile_p, unstack, unstack_p  # noqa: E402,F401

# The less common families load on first use (pyjax._src.lazy_names): their
# primitives exist once their module is imported (as with any import of it).
from pyjax._src.lazy_names import install as _install_lazy, names_from as _names_from  # noqa: E402

_install_lazy(globals(), {
    **_names_from("pyjax._src.lax.convolution", (
        "ConvDimensionNumbers ConvGeneralDilatedDimensionNumbers conv conv_dimension_numbers conv_general_dilated "
        "conv_general_dilated_local conv_general_dilated_p conv_general_dilated_patches conv_general_permutations "
        "conv_general_shape_tuple conv_shape_tuple conv_transpose conv_transpose_shape_tuple "
        "conv_with_general_padding padtype_to_pads")),
    **_names_from("pyjax._src.lax.fft", "FftType fft fft_p"),
    **_names_from("pyjax._src.lax.windowed", (
        "cumlogsumexp cumlogsumexp_p cummax cummax_p cummin cummin_p cumprod cumprod_p cumsum cumsum_p "
        "reduce_window reduce_window_max_p reduce_window_min_p reduce_window_p reduce_window_shape_tuple "
        "reduce_window_sum_p select_and_gather_add_p select_and_scatter_add_p")),
    **_names_from("pyjax._src.lax.reduce", "reduce reduce_p"),
    **_names_from("pyjax._src.lax.parallel_ragged", "ragged_all_to_all ragged_all_to_all_p"),
    **_names_from("pyjax._src.lax.linear_solve", "custom_linear_solve linear_solve_p"),
    **_names_from("pyjax._src.lax.custom_root", "custom_root"),
    **_names_from("pyjax._src.lax.ragged_dot", "RaggedDotDimensionNumbers ragged_dot ragged_dot_general"),
    **_names_from("pyjax._src.lax.scaled_dot", "scaled_dot"),
    **_names_from("pyjax._src.lax.select_and_scatter", "select_and_scatter_p"),
    **_names_from("pyjax._src.lax.parallel", "axis_index axis_index_p axis_size pmax pmax_p pmean pmin pmin_p psum psum_p"),
    **_names_from("pyjax._src.lax.parallel_comm", (
        "all_gather all_gather_p all_to_all all_to_all_p pbroadcast pbroadcast_p ppermute ppermute_p pshuffle "
        "psum_scatter pswapaxes reduce_scatter_p")),
    "pcast": "pyjax._src.lax.parallel_vma",
    **_names_from("pyjax._src.lax.parallel_p2p", "precv psend"),
    **_names_from("pyjax._src.lax.markers", "dce_sink dce_sink_p stage stage_p"),
    **_names_from("pyjax._src.sharding.api", "sharding_constraint_p with_sharding_constraint"),
    **_names_from("pyjax._src.lax.sorting", "approx_max_k approx_min_k approx_top_k_p sort sort_key_val sort_p top_k top_k_p"),
    **_names_from("pyjax._src.lax.control_flow", (
        "associative_scan cond cond_p fori_loop map scan scan_p switch while_loop while_p")),
    **_names_from("pyjax._src.lax.identity", "device_put_p optimization_barrier optimization_barrier_p"),
    **_names_from("pyjax._src.lax.tokens", "after_all after_all_p create_token create_token_p"),
    **_names_from("pyjax._src.lax.rng", (
        "RandomAlgorithm rng_bit_generator rng_bit_generator_p rng_uniform rng_uniform_p")),
    **_names_from("pyjax._src.lax.convenience", (
        "batch_matmul broadcast_like broadcast_shapes broadcast_to_rank collapse dtype empty full_like "
        "shape_as_value")),
    "linalg": "pyjax.lax.linalg:",
})
