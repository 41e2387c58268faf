"""pyjax.lax: the primitive operations (JAX's jax.lax), one wrapper per primitive."""

from pyjax._src.lax.elementwise import (
    abs, abs_p, acos, acos_p, acosh, acosh_p, add, add_p, and_p, asin, asin_p, asinh, asinh_p, atan, atan2, atan2_p, atan_p, atanh, atanh_p, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, cbrt, cbrt_p, ceil, ceil_p, clz, clz_p, conj, conj_p, convert_element_type, convert_element_type_p, copy_p, cos, cos_p, cosh, cosh_p, div, div_p, eq, eq_p, exp, exp2, exp2_p, exp_p, expm1, expm1_p, floor, floor_p, ge, ge_p, gt, gt_p, imag, imag_p, integer_pow, integer_pow_p, is_finite, is_finite_p, le, le_p, log, log1p, log1p_p, log_p, logistic, logistic_p, lt, lt_p, max, max_p, min, min_p, mul, mul_p, ne, ne_p, neg, neg_p, nextafter, nextafter_p, not_p, or_p, population_count, population_count_p, pow, pow_p, real, real_p, rem, rem_p, round, round_p, rsqrt, rsqrt_p, select, select_n, select_n_p, shift_left, shift_left_p, shift_right_arithmetic, shift_right_arithmetic_p, shift_right_logical, shift_right_logical_p, sign, sign_p, sin, sin_p, sinh, sinh_p, sqrt, sqrt_p, square, square_p, stop_gradient, stop_gradient_p, sub, sub_p, tan, tan_p, tanh, tanh_p, xor_p,
)
from pyjax._src.lax.shapes import (
    broadcast, broadcast_in_dim, broadcast_in_dim_p, broadcasted_iota, concatenate, concatenate_p, expand_dims, iota, iota_p, reshape, reshape_p, rev, rev_p, slice, slice_p, squeeze, squeeze_p, transpose, transpose_p,
)
from pyjax._src.lax.reductions import (
    argmax, argmax_p, argmin, argmin_p, reduce_and, reduce_and_p, reduce_max, reduce_max_p, reduce_min, reduce_min_p, reduce_or, reduce_or_p, reduce_prod, reduce_prod_p, reduce_sum, reduce_sum_p, reduce_xor, reduce_xor_p,
)
from pyjax._src.lax.dot import (
    dot, dot_general, dot_general_p,
)
from pyjax._src.lax.dot import DotDimensionNumbers, Precision
from pyjax._src.lax.convolution import *  # noqa: F401,F403
from pyjax._src.lax.fft import *  # noqa: F401,F403
from pyjax._src.lax.slicing import *  # noqa: F401,F403
from pyjax._src.lax.sorting import *  # noqa: F401,F403
from pyjax._src.lax.special import *  # noqa: F401,F403
from pyjax._src.lax.windowed import *  # noqa: F401,F403
from pyjax.lax import linalg  # noqa: E402,F401
from pyjax._src.lax.parallel import *  # noqa: F401,F403
