"""jax.numpy reductions, statistics and cumulative programs whose JAX 0.11.0
behaviour is recorded in numpy_reductions.json (see programs_core.py for the
format; record with `record_core.py numpy_reductions`)."""

from programs_core import program_set

PROGRAMS, program = program_set()


def jaxpr(name: str, body: str, *args: str) -> None:
    program(name, "jaxpr", f"result = jax.make_jaxpr({body})({', '.join(args)})")


def value(name: str, expression: str) -> None:
    program(name, "value", f"result = {expression}")


def error(name: str, source: str) -> None:
    program(name, "error", source)


F = "jnp.ones((3, 4))"
I = "jnp.ones((3, 4), jnp.int8)"
B = "jnp.ones((3, 4), bool)"
H = "jnp.ones((3, 4), jnp.float16)"
X = "jnp.arange(12.0).reshape(3, 4) - 5.5"

# ---- sum / prod / max / min / all / any
jaxpr("sum_all", "jnp.sum", F)
jaxpr("sum_axis_keepdims", "lambda x: jnp.sum(x, axis=1, keepdims=True)", F)
jaxpr("sum_axes_tuple", "lambda x: jnp.sum(x, axis=(0, -1))", "jnp.ones((2, 3, 4))")
jaxpr("sum_int8_promotes", "jnp.sum", I)
jaxpr("sum_int8_no_promote", "lambda x: jnp.sum(x, promote_integers=False)", I)
jaxpr("sum_bool", "lambda x: jnp.sum(x, axis=0)", B)
jaxpr("sum_float16_upcast", "lambda x: jnp.sum(x, axis=0)", H)
jaxpr("sum_dtype", "lambda x: jnp.sum(x, dtype=jnp.int32)", F)
jaxpr("sum_where_initial", "lambda x: jnp.sum(x, axis=1, where=x > 0, initial=1.0)", F)
jaxpr("sum_weak_scalar", "jnp.sum", "2.0")
jaxpr("prod_axis", "lambda x: jnp.prod(x, axis=0)", F)
jaxpr("prod_bool", "jnp.prod", B)
jaxpr("max_axis", "lambda x: jnp.max(x, axis=1)", F)
jaxpr("max_where_initial", "lambda x: jnp.max(x, where=x > 0, initial=0.0)", F)
jaxpr("min_int_initial", "lambda x: jnp.min(x, initial=3)", I)
jaxpr("amax_keepdims", "lambda x: jnp.amax(x, axis=0, keepdims=True)", F)
jaxpr("all_axis", "lambda x: jnp.all(x > 0, axis=1)", F)
jaxpr("any_float", "jnp.any", F)
jaxpr("all_where", "lambda x: jnp.all(x, where=x > 1)", F)
jaxpr("method_sum", "lambda x: x.sum(0)", F)
jaxpr("method_max", "lambda x: x.max(axis=-1, keepdims=True)", F)
value("value_sum_int8", "jnp.sum(jnp.array([100, 100, 100], jnp.int8))")
value("value_prod_axis", "jnp.prod(jnp.arange(1, 7).reshape(2, 3), axis=1)")
value("value_max_where", "jnp.max(jnp.arange(6.0), where=jnp.arange(6) < 3, initial=-1.0)")
value("value_min_nan", "jnp.min(jnp.array([1.0, jnp.nan, 0.0]))")
value("value_sum_complex", "jnp.real(jnp.sum(jnp.array([1 + 2j, 3 - 1j])) * 1j)")
value("value_empty_sum", "jnp.sum(jnp.zeros((0, 3)), axis=0)")
error("error_max_empty", "result = jnp.max(jnp.zeros((0,)))")
error("error_max_where_no_initial", "result = jnp.max(jnp.ones(3), where=jnp.ones(3, bool))")
error("error_sum_where_not_bool", "result = jnp.sum(jnp.ones(3), where=jnp.ones(3))")
error("error_sum_duplicate_axis", "result = jnp.sum(jnp.ones((2, 2)), axis=(0, 0))")
error("error_sum_axis_out_of_range", "result = jnp.sum(jnp.ones((2, 2)), axis=2)")
error("error_sum_traced_axis", "result = jax.jit(lambda x, a: jnp.sum(x, axis=a))(jnp.ones(3), 0)")
error("error_initial_not_scalar", "result = jnp.sum(jnp.ones(3), initial=jnp.ones(2))")

# ---- mean / var / std / average / ptp / count_nonzero
jaxpr("mean_axis", "lambda x: jnp.mean(x, axis=1)", F)
jaxpr("mean_int", "jnp.mean", I)
jaxpr("mean_float16", "jnp.mean", H)
jaxpr("mean_where", "lambda x: jnp.mean(x, axis=0, where=x > 0)", F)
jaxpr("var_axis0", "lambda x: jnp.var(x, axis=0)", F)
jaxpr("std_ddof", "lambda x: jnp.std(x, ddof=1)", F)
jaxpr("var_complex", "jnp.var", "jnp.ones(3, jnp.complex64)")
jaxpr("var_where_keepdims", "lambda x: jnp.var(x, axis=1, keepdims=True, where=x > 0)", F)
jaxpr("average_weights", "lambda x, w: jnp.average(x, axis=1, weights=w)", F, "jnp.ones(4)")
jaxpr("average_returned", "lambda x: jnp.average(x, returned=True)", F)
jaxpr("ptp_axis", "lambda x: jnp.ptp(x, axis=1)", F)
jaxpr("count_nonzero_axis", "lambda x: jnp.count_nonzero(x, axis=1)", F)
value("value_mean_int", "jnp.mean(jnp.arange(10))")
value("value_var_ddof", f"jnp.var({X}, axis=0, ddof=1)")
value("value_std_correction", f"jnp.std({X}, correction=1.5)")
value("value_var_too_few", "jnp.var(jnp.ones(2), ddof=2)")
value("value_average", "jnp.average(jnp.arange(6.0).reshape(2, 3), axis=1, weights=jnp.array([1.0, 2.0, 3.0]))")
value("value_count_nonzero", "jnp.count_nonzero(jnp.array([[0, 1, 2], [3, 0, 0]]), axis=0)")
error("error_var_ddof_and_correction", "result = jnp.var(jnp.ones(3), ddof=1, correction=1)")
error("error_average_shape", "result = jnp.average(jnp.ones((2, 3)), weights=jnp.ones(3))")
error("error_std_int_dtype", "result = jnp.std(jnp.ones(3), dtype=jnp.int32)")

# ---- nan-variants
jaxpr("nansum_axis", "lambda x: jnp.nansum(x, axis=1)", F)
jaxpr("nanmax", "jnp.nanmax", F)
jaxpr("nanmin_initial", "lambda x: jnp.nanmin(x, initial=0.0)", F)
jaxpr("nanmean", "lambda x: jnp.nanmean(x, axis=0)", F)
jaxpr("nanvar", "jnp.nanvar", F)
jaxpr("nanstd_ddof", "lambda x: jnp.nanstd(x, ddof=1)", F)
jaxpr("nanprod_int", "jnp.nanprod", I)
jaxpr("nanargmax", "lambda x: jnp.nanargmax(x, axis=1)", F)
value("value_nansum", "jnp.nansum(jnp.array([1.0, jnp.nan, 2.0]))")
value("value_nanmax_all_nan", "jnp.nanmax(jnp.array([[jnp.nan, 1.0], [jnp.nan, jnp.nan]]), axis=1)")
value("value_nanmean", "jnp.nanmean(jnp.array([[1.0, jnp.nan], [3.0, 4.0]]), axis=1)")
value("value_nanvar", "jnp.nanvar(jnp.array([1.0, jnp.nan, 3.0, 4.0]))")
value("value_nanargmin", "jnp.nanargmin(jnp.array([[jnp.nan, 2.0, 1.0], [jnp.nan, jnp.nan, jnp.nan]]), axis=1)")

# ---- argmax / argmin
jaxpr("argmax_flat", "jnp.argmax", F)
jaxpr("argmin_axis_keepdims", "lambda x: jnp.argmin(x, axis=0, keepdims=True)", F)
jaxpr("argmax_negative_axis", "lambda x: jnp.argmax(x, axis=-1)", "jnp.ones((2, 3, 4))")
value("value_argmax_nan", "jnp.argmax(jnp.array([1.0, jnp.nan, 3.0]))")
value("value_argmin_ties", "jnp.argmin(jnp.array([2, 1, 1, 3]))")
error("error_argmax_empty", "result = jnp.argmax(jnp.zeros((0,)))")

# ---- cumulative
jaxpr("cumsum_axis", "lambda x: jnp.cumsum(x, axis=1)", F)
jaxpr("cumsum_flat_int8", "jnp.cumsum", I)
jaxpr("cumsum_bool", "lambda x: jnp.cumsum(x, axis=0)", B)
jaxpr("cumprod_dtype", "lambda x: jnp.cumprod(x, dtype=jnp.int32)", F)
jaxpr("cumsum_to_bool", "lambda x: jnp.cumsum(x, dtype=bool)", F)
jaxpr("nancumsum", "lambda x: jnp.nancumsum(x, axis=0)", F)
jaxpr("nancumprod", "jnp.nancumprod", F)
jaxpr("cumulative_sum_initial", "lambda x: jnp.cumulative_sum(x, axis=1, include_initial=True)", I)
jaxpr("cumulative_prod", "lambda x: jnp.cumulative_prod(x, axis=0)", F)
value("value_cumsum", "jnp.cumsum(jnp.arange(6).reshape(2, 3), axis=0)")
value("value_cumprod_flat", "jnp.cumprod(jnp.arange(1.0, 5.0))")
value("value_nancumsum", "jnp.nancumsum(jnp.array([1.0, jnp.nan, 2.0]))")
value("value_cumulative_sum_int8", "jnp.cumulative_sum(jnp.array([100, 100], jnp.int8))")
error("error_cumulative_sum_scalar", "result = jnp.cumulative_sum(jnp.float32(1))")
error("error_cumulative_sum_axis", "result = jnp.cumulative_sum(jnp.ones((2, 2)))")

# ---- quantile / percentile / median
jaxpr("median_axis", "lambda x: jnp.median(x, axis=1)", F)
jaxpr("quantile_scalar", "lambda x: jnp.quantile(x, 0.25)", "jnp.ones(5)")
jaxpr("quantile_vector_keepdims", "lambda x, q: jnp.quantile(x, q, axis=0, keepdims=True)", F, "jnp.array([0.1, 0.9])")
jaxpr("percentile_nearest", "lambda x: jnp.percentile(x, 50.0, method='nearest')", F)
jaxpr("nanmedian", "lambda x: jnp.nanmedian(x, axis=0)", F)
jaxpr("quantile_tuple_axis", "lambda x: jnp.quantile(x, 0.5, axis=(0, 2))", "jnp.ones((2, 3, 4))")
value("value_median_even", "jnp.median(jnp.array([[3.0, 1.0, 4.0, 2.0]]), axis=1)")
value("value_quantile_methods", "jnp.stack([jnp.quantile(jnp.arange(5.0), 0.3, method=m) for m in ('linear', 'lower', 'higher', 'midpoint', 'nearest')])")
value("value_percentile_vector", "jnp.percentile(jnp.arange(10.0), jnp.array([10.0, 50.0, 90.0]))")
value("value_quantile_nan", "jnp.quantile(jnp.array([[1.0, jnp.nan, 3.0], [1.0, 2.0, 3.0]]), 0.5, axis=1)")
value("value_nanquantile", "jnp.nanquantile(jnp.array([[1.0, jnp.nan, 3.0], [4.0, 5.0, 6.0]]), 0.5, axis=1)")
value("value_quantile_inverted_cdf", "jnp.quantile(jnp.array([1.0, 2.0, 3.0, 4.0]), 0.5, method='inverted_cdf', weights=jnp.array([1.0, 1.0, 1.0, 5.0]))")
error("error_quantile_method", "result = jnp.quantile(jnp.ones(3), 0.5, method='bad')")
error("error_quantile_q_rank", "result = jnp.quantile(jnp.ones(3), jnp.ones((2, 2)))")
error("error_quantile_complex", "result = jnp.quantile(jnp.ones(3, jnp.complex64), 0.5)")
