"""Test configuration: tests import `helpers` from this folder; x64 stays off.

The whole suite also runs in JAX's checking mode (`jax_enable_checks`: every
primitive's output checked against its abstract value, every compiled jaxpr
type-checked):

    JAX_ENABLE_CHECKS=1 python -m pytest -q tests      (or PYJAX_ENABLE_CHECKS=1)

In that mode the tests that read the plain mode's own machinery (eager plans,
generated source line by line, the option's default) are skipped, and the
findings not yet fixed are expected failures, each with what was found.

Under `PYJAX_BACKEND=iree` (every jitted call on the IREE backend,
docs/iree.md "Running the suite on IREE"), tests marked
`@pytest.mark.numpy_backend("reason")` are skipped with the reason; in any
other run the marker does nothing.

`PYJAX_WARNINGS_AS_ERRORS=1` turns every RuntimeWarning (NumPy's "invalid
value encountered ...", ComplexWarning, ...) raised from pyjax's own modules
or from the code pyjax compiles into an error: JAX is silent where pyjax
computes, so such a warning is a leak. .ci/run runs the numerics suites
this way (tests/test_warnings_as_errors.py checks the mechanism)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
os.environ.pop("JAX_ENABLE_X64", None)
# Eight CPU devices, as the sharding goldens were recorded with (the count is
# fixed when the devices are first used, so it is set before any test runs).
os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")
# Every test process builds its native code itself (tests of builds, tiering and their failures must
# see them); the cross-process library cache has its own tests (tests/backends/test_native_cache.py).
os.environ.setdefault("PYJAX_NATIVE_CACHE_DIR", "")
if os.environ.get("PYJAX_ENABLE_CHECKS"):
    os.environ.setdefault("JAX_ENABLE_CHECKS", os.environ["PYJAX_ENABLE_CHECKS"])

# Node id prefixes -> why the test does not apply in checking mode.
_NOT_IN_CHECKS_MODE = {
    "tests/test_reliability_caches.py::test_eager_plan_stored_only_after_its_call_succeeded": "reads eager plans",
    "tests/test_reliability_caches.py::test_site_program_stored_only_after_its_first_run": "reads eager Site plans",
    "tests/test_config.py::test_defaults_match_jax": "asserts the option's default",
    "tests/test_config.py::test_overrides_are_thread_local": "asserts the option's default",
    "tests/backends/test_numpy_loops.py::test_direct_dot_is_bitwise_the_impl[float64":
        "feeds float64 buffers to a program traced for float32 (x64 off), which the checks reject",
    "tests/backends/test_numpy_loops.py::test_scalar_operators_are_bitwise_the_ufuncs[float64":
        "feeds float64 buffers to a program traced for float32 (x64 off), which the checks reject",
    "tests/backends/test_numpy_compile.py::test_params_whose_names_are_not_identifiers_go_through_a_dict":
        "compiles a primitive without abstract evaluation, which the jaxpr check needs",
}
for _name in ("an_impl_that_is_a_ufunc_is_called_directly_with_out", "dropped_and_unused_outputs_of_multiple_result_"
              "equations", "dead_buffers_are_deleted_after_their_last_use", "dead_intermediates_are_reused_through_out",
              "no_reuse_of_inputs_consts_scalars_or_broadcast_views", "reuse_after_the_view_dies",
              "reuse_when_a_dying_view_of_the_buffer_is_read_by_the_same_ufunc",
              "no_reuse_across_shape_or_dtype_changes", "jit_is_inlined_with_renamed_variables_and_hoisted_consts",
              "stop_gradient_costs_nothing", "a_5000_equation_chain_compiles_quickly"):
    _NOT_IN_CHECKS_MODE[f"tests/backends/test_numpy_compile.py::test_{_name}"] = (
        "reads generated source line by line (checking mode adds a check line per equation)")

for _name in ("plans_are_memoised_and_exact_for_ufuncs", "set_default_trace_drops_plans",
              "small_programs_run_as_direct_numpy_calls", "large_programs_keep_the_compiled_program",
              "set_default_trace_drops_site_and_scalar_plans", "fast_path_calls_agree_with_the_ordinary_path",
              "fast_path_uses_its_compiled_program_and_follows_config"):
    _NOT_IN_CHECKS_MODE[f"tests/test_eager_plans.py::test_{_name}"] = (
        "reads eager plans and fast paths, which checking mode replaces by checked calls")

for _name in ("reduction_takes_the_fast_path", "first_call_of_a_key_compiles_nothing",
              "contractions_take_the_fast_path_and_match_jit", "three_argument_where_takes_the_fast_path_and_matches_jit"):
    _NOT_IN_CHECKS_MODE[f"tests/numpy/test_numpy_eager.py::test_{_name}"] = (
        "asserts an eager Site's compiled program ran, which checking mode replaces by checked calls")

for _name in ("eager_jnp_calls_tier_up_bitwise", "eager_mean_runs_its_native_callable"):
    _NOT_IN_CHECKS_MODE[f"tests/backends/test_native_loops.py::test_{_name}"] = (
        "reads eager Site plans' native tier, which checking mode replaces by checked calls")
_NOT_IN_CHECKS_MODE["tests/backends/test_native_reliability.py::test_an_eager_programs_one_output_call_is_rechecked_too"] = (
    "reads an eager Site plan's native tier, which checking mode replaces by checked calls (run alone in "
    "checking mode it finds no tier)")

# Found by checking mode, outside the checks themselves (issue 19's report).
_FOUND_BY_CHECKS = {
    "tests/test_vmap.py::test_vmap_of_jit_collective_under_grad_and_jit":
        "the transposed jit of a psum under vmap returns f32[3,2] where its jaxpr declares f32[1,2]",
    "tests/test_golden.py::test_program_matches_jax[collectives:vmap_grad_all_gather_mixed_value]":
        "add_any under vmap+grad of all_gather returns f32[3,2] where its jaxpr declares f32[1,2]",
    "tests/test_golden.py::test_program_matches_jax[vmap_axis_env:value_constant_psum_per_size]":
        "BatchTrace.lift_constant wraps psum(1, 'i')'s Python int as an Array buffer (broadcast gives int64)",
    "tests/test_golden.py::test_program_matches_jax[vmap_axis_env:error_cached_under_vmap_then_called_outside]":
        "BatchTrace.lift_constant wraps psum(1, 'i')'s Python int as an Array buffer (broadcast gives int64)",
}


# A warning is attributed to the module of the frame that raised it: pyjax's
# modules, and the code the NumPy backend generates (its globals name a
# pyjax module too).
WARNINGS_AS_ERRORS = (r"error::RuntimeWarning:pyjax(\.|$)",)


def _iree_run() -> bool:
    """The suite runs against the IREE backend (`PYJAX_BACKEND=iree`, or
    `JAX_PLATFORMS` naming iree first; docs/iree.md)."""
    if os.environ.get("PYJAX_BACKEND", "").strip().lower() == "iree":
        return True
    return os.environ.get("JAX_PLATFORMS", "").split(",")[0].strip().lower() == "iree"


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "numpy_backend(reason): checks NumPy-backend-only behaviour (generated Python, native tiers, "
                   "bit-exact XLA arithmetic, a primitive the IREE backend declares it cannot run); skipped, with "
                   "the reason, only when the suite runs under PYJAX_BACKEND=iree (docs/iree.md)")
    if os.environ.get("PYJAX_WARNINGS_AS_ERRORS", "") not in ("", "0"):
        for line in WARNINGS_AS_ERRORS:
            config.addinivalue_line("filterwarnings", line)


def pytest_collection_modifyitems(config, items):
    from pyjax._src import config as config_lib

    if _iree_run():
        for item in items:
            marker = item.get_closest_marker("numpy_backend")
            if marker is not None:
                why = marker.kwargs.get("reason") or (marker.args[0] if marker.args else "NumPy-backend behaviour")
                item.add_marker(pytest.mark.skip(reason=f"NumPy backend only (PYJAX_BACKEND=iree): {why}"))
    if not config_lib.enable_checks.value:
        return
    for item in items:
        for prefix, reason in _NOT_IN_CHECKS_MODE.items():
            if item.nodeid.startswith(prefix):
                item.add_marker(pytest.mark.skip(reason=f"checking mode: {reason}"))
        reason = _FOUND_BY_CHECKS.get(item.nodeid)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=f"found by checking mode: {reason}", strict=False))
