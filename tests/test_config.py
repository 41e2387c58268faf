"""Tests for pyjax._src.config: options, overrides, environment variables and
trace_context(), with defaults and messages recorded from JAX 0.11
(tests/golden/promotion.json, "config" section)."""

import json
import os
import pathlib
import subprocess
import sys
import threading

import pytest

from pyjax._src import config as config_lib
from pyjax._src.config import config

GOLDEN = json.loads(
    (pathlib.Path(__file__).parent / "golden" / "promotion.json").read_text()
)["config"]


@pytest.fixture(autouse=True)
def restore_globals():
    """Tests that call config.update leave every option as they found it."""
    saved = {
        name: holder.get_global() for name, holder in config._value_holders.items()
    }
    yield
    for name, value in saved.items():
        config.update(name, value)


def plain(value):
    return value.value if hasattr(value, "value") else value


def error_of(fn):
    try:
        fn()
    except Exception as err:  # noqa: BLE001 -- compared with JAX's error
        return [{"error": type(err).__name__, "message": str(err)}]
    return []


def test_defaults_match_jax():
    got = {name: plain(getattr(config, name)) for name in GOLDEN["defaults"]}
    expected = dict(GOLDEN["defaults"])
    if "JAX_NUM_CPU_DEVICES" in os.environ:  # (tests/conftest.py asks for 8 devices)
        expected["jax_num_cpu_devices"] = int(os.environ["JAX_NUM_CPU_DEVICES"])
    assert got == expected
    assert config.jax_dynamic_shapes is False


@pytest.mark.parametrize(
    "key,fn",
    [
        ("unknown_update", lambda: config.update("jax_no_such_option", 1)),
        ("read_cm_flag", lambda: config.read("jax_numpy_rank_promotion")),
        ("read_unknown", lambda: config.read("jax_no_such_option")),
        (
            "bad_rank_promotion",
            lambda: config.update("jax_numpy_rank_promotion", "sometimes"),
        ),
        (
            "bad_dtype_promotion",
            lambda: config.update("jax_numpy_dtype_promotion", "loose"),
        ),
        ("bad_int", lambda: config.update("jax_num_cpu_devices", "two")),
        ("bad_platforms", lambda: config.update("jax_platforms", 3)),
        (
            "bad_matmul",
            lambda: config.update("jax_default_matmul_precision", "fastest"),
        ),
        ("cm_without_value", lambda: config_lib.numpy_rank_promotion()),
        ("bool_of_state", lambda: bool(config_lib.enable_x64)),
        ("set_attribute", lambda: setattr(config, "jax_enable_x64", True)),
    ],
)
def test_error_messages_match_jax(key, fn):
    assert error_of(fn) == GOLDEN["errors"][key]


def test_update_read_and_values():
    assert config.read("jax_enable_x64") is GOLDEN["read_x64"]
    config.update("jax_enable_x64", True)
    assert config.jax_enable_x64 is True
    assert config.x64_enabled is True
    assert config_lib.enable_x64.value is True
    assert config.read("jax_enable_x64") is True
    assert config.values["jax_enable_x64"] is True
    config.update("jax_numpy_dtype_promotion", "strict")
    assert config.jax_numpy_dtype_promotion == "strict"
    assert config.jax_numpy_dtype_promotion is config_lib.NumpyDtypePromotion.STRICT
    config.update("jax_enable_x64", 0)  # parsed to a bool, as in JAX
    assert config.jax_enable_x64 is False


def test_state_metadata():
    assert config_lib.enable_x64.__name__ == GOLDEN["state_names"]["enable_x64"]
    assert (
        config_lib.enable_x64.__doc__.splitlines()[0]
        == GOLDEN["enable_x64_doc_first_line"]
    )
    assert config_lib.enable_x64.name == "jax_enable_x64"


def test_context_manager_overrides_and_restores():
    assert config_lib.enable_x64.value is False
    with config_lib.enable_x64(True):
        assert config.jax_enable_x64 is True
        with config_lib.enable_x64(False):
            assert config_lib.enable_x64.value is False
        assert config_lib.enable_x64.value is True
    assert config_lib.enable_x64.value is False
    with config_lib.enable_x64():  # a bool option's bare context manager means True
        assert config_lib.enable_x64.value is True
    with pytest.raises(ValueError, match="new enum value must be in"):
        config_lib.numpy_rank_promotion("sometimes")


def test_override_survives_global_update_and_exceptions():
    with config_lib.numpy_rank_promotion("raise"):
        config.update("jax_numpy_rank_promotion", "warn")
        assert config_lib.numpy_rank_promotion.value == "raise"
    assert config_lib.numpy_rank_promotion.value == "warn"
    with pytest.raises(RuntimeError), config_lib.debug_nans(True):
        raise RuntimeError("boom")
    assert config_lib.debug_nans.value is False


def test_context_manager_as_decorator():
    @config_lib.enable_x64(True)
    def read_x64():
        return config_lib.enable_x64.value

    assert read_x64() is True
    assert config_lib.enable_x64.value is False


def test_overrides_are_thread_local():
    seen = {}

    def worker():
        seen["x64"] = config_lib.enable_x64.value
        with config_lib.enable_checks(True):
            seen["checks"] = config_lib.enable_checks.value

    with config_lib.enable_x64(True):
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert config_lib.enable_checks.value is False
    assert seen == {"x64": False, "checks": True}
    config.update("jax_enable_x64", True)
    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen["x64"] is True


def test_trace_context_tracks_tracing_options():
    names = config_lib.trace_context_names()
    for name in (
        "jax_enable_x64",
        "jax_numpy_dtype_promotion",
        "jax_numpy_rank_promotion",
        "jax_default_matmul_precision",
        "jax_default_prng_impl",
        "jax_threefry_partitionable",
        "jax_enable_checks",
        "jax_dynamic_shapes",
    ):
        assert name in names
    assert "jax_log_compiles" not in names
    before = config_lib.trace_context()
    assert config_lib.trace_context() is before  # cached
    assert hash(before) == hash(config_lib.trace_context())
    x64_index = names.index("jax_enable_x64")
    with config_lib.enable_x64(True):
        inside = config_lib.trace_context()
        assert inside != before and inside[x64_index] is True
    assert config_lib.trace_context() == before
    config.update("jax_default_matmul_precision", "highest")
    assert (
        config_lib.trace_context()[names.index("jax_default_matmul_precision")]
        == "highest"
    )
    config.update("jax_log_compiles", True)  # not a tracing option
    assert config_lib.trace_context()[x64_index] is False


def test_trace_context_is_per_thread():
    seen = {}

    def worker():
        seen["context"] = config_lib.trace_context()

    with config_lib.numpy_rank_promotion("raise"):
        inside = config_lib.trace_context()
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    assert seen["context"] != inside
    assert seen["context"] == config_lib.trace_context()


def test_public_context_managers():
    with config_lib.disable_jit_context():
        assert config.jax_disable_jit is True
    with config_lib.disable_jit_context(False):
        assert config.jax_disable_jit is False
    with config_lib.checking_leaks():
        assert config.jax_check_tracer_leaks is True
    with config_lib.numpy_dtype_promotion("strict"):
        assert config.jax_numpy_dtype_promotion == "strict"
    with config_lib.default_matmul_precision("float32"):
        assert config.jax_default_matmul_precision == "float32"
    assert config.jax_check_tracer_leaks is False


def run_with_env(env, code):
    full_env = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "-c", code],
        env=full_env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    "text,expected",
    [
        ("1", True),
        ("true", True),
        ("ON", True),
        ("yes", True),
        ("0", False),
        ("off", False),
    ],
)
def test_environment_sets_bool_default(text, expected):
    proc = run_with_env(
        {"JAX_ENABLE_X64": text},
        "from pyjax._src import config; print(config.enable_x64.value)",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(expected)


def test_environment_sets_other_defaults():
    proc = run_with_env(
        {
            "JAX_NUMPY_RANK_PROMOTION": "raise",
            "JAX_NUM_CPU_DEVICES": "8",
            "JAX_PLATFORMS": "cpu",
            "JAX_NUMPY_DTYPE_PROMOTION": "strict",
        },
        "from pyjax._src.config import config as c; print(c.jax_numpy_rank_promotion, "
        "c.jax_num_cpu_devices, c.jax_platforms, c.jax_numpy_dtype_promotion)",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["raise", "8", "cpu", "strict"]


@pytest.mark.parametrize("key", sorted(GOLDEN["env_errors"]))
def test_environment_errors_match_jax(key):
    var, value = key.split("=")
    proc = run_with_env({var: value}, "import pyjax._src.config")
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines()[-1] == GOLDEN["env_errors"][key]
