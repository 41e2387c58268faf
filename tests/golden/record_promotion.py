"""Records JAX 0.11's dtype and config facts into promotion.json.

Run with the reference JAX (not pyjax):

    /tmp/jax-ref/bin/python tests/golden/record_promotion.py

What is recorded, for x64 off and on:

* ``binary``: for every ordered pair of 15 dtypes and the three weak scalar
  kinds, the dtype and weak flag of ``a + b`` under ``jax.eval_shape``
  (standard and strict promotion; errors recorded with their message);
* ``result_type`` and ``promote_types`` on the same pairs, given as dtypes
  and the Python types ``int``/``float``/``complex``;
* canonicalize_dtype, short dtype names (as the jaxpr printer writes them),
  issubdtype on JAX's extra dtypes, the dtype of Python scalars;
* warning and error texts (explicit 64-bit dtypes, promotion errors, config
  errors) and config option defaults.
"""

import ast
import json
import os
import pathlib
import re
import subprocess
import sys
import warnings

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax._src import core
from jax._src import dtypes as jax_dtypes

STRONG = [
    "bool",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "int8",
    "int16",
    "int32",
    "int64",
    "bfloat16",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
WEAK = {"weak_int": (int, 1), "weak_float": (float, 1.0), "weak_complex": (complex, 1j)}
ALL_TYPES = STRONG + list(WEAK)
EXTRA_DTYPES = [
    "float8_e3m4",
    "float8_e4m3",
    "float8_e8m0fnu",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
    "int1",
    "uint1",
    "int2",
    "uint2",
    "int4",
    "uint4",
]


def np_dtype(name):
    return (
        np.dtype(getattr(ml_dtypes, name))
        if hasattr(ml_dtypes, name)
        else np.dtype(name)
    )


def error_record(err):
    """An error's class and text, with the dtypes of a failed promotion sorted:
    JAX lists them in set order, which follows per-process hashes."""
    message = str(err)
    match = re.match(r"Input dtypes (\(.*?\)) have", message)
    if match:
        message = message.replace(
            match.group(1), str(tuple(sorted(ast.literal_eval(match.group(1)))))
        )
    return {"error": type(err).__name__, "message": message}


def table_error(err):
    """The short form used in the large tables: the class and, for promotion
    errors, the sorted dtypes (full texts are recorded under "messages")."""
    match = re.match(r"Input dtypes (\(.*?\)) have", str(err))
    if match:
        return {
            "error": type(err).__name__,
            "dtypes": sorted(ast.literal_eval(match.group(1))),
        }
    return error_record(err)


def warned_dtypes(caught):
    """The dtypes named by explicit-x64 warnings (their text is under "messages")."""
    return sorted(
        {
            re.match(r"Explicitly requested dtype (\w+)", str(w.message)).group(1)
            for w in caught
        }
    )


def binary_value(name):
    """An argument for eval_shape: a Python scalar or an abstract array."""
    if name in WEAK:
        return WEAK[name][1]
    return jax.ShapeDtypeStruct((), np_dtype(name))


def dtype_spec(name):
    """An argument for result_type/promote_types: a dtype or a Python type."""
    return WEAK[name][0] if name in WEAK else np_dtype(name)


def record_binary():
    out = {}
    for a in ALL_TYPES:
        for b in ALL_TYPES:
            try:
                r = jax.eval_shape(jnp.add, binary_value(a), binary_value(b))
                out[f"{a},{b}"] = {
                    "dtype": str(r.dtype),
                    "weak_type": bool(r.weak_type),
                }
            except Exception as err:  # noqa: BLE001 -- recording JAX's behaviour
                out[f"{a},{b}"] = table_error(err)
    return out


def record_dtype_api(fn):
    out = {}
    for a in ALL_TYPES:
        for b in ALL_TYPES:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    r = fn(dtype_spec(a), dtype_spec(b))
                    entry = (
                        {"dtype": str(r[0]), "weak_type": bool(r[1])}
                        if isinstance(r, tuple)
                        else {"dtype": str(r)}
                    )
                except Exception as err:  # noqa: BLE001
                    entry = table_error(err)
            if caught:
                entry["warned"] = warned_dtypes(caught)
            out[f"{a},{b}"] = entry
    return out


WEAK_ARRAYS = ["bfloat16", "float16", "int8", "uint8", "int16", "bool"]


def record_weak_arrays():
    """Weakly-typed arrays of non-default dtypes (made by convert_element_type)
    meeting every operand kind: a + b, lattice_result_type and result_type."""
    from jax._src.lax import lax as lax_internal

    out = {}
    for w in WEAK_ARRAYS:
        for b in ALL_TYPES:

            def add(other, w=w):
                x = lax_internal._convert_element_type(
                    jnp.ones((), np_dtype(w)), np_dtype(w), weak_type=True
                )
                return x + other

            try:
                r = jax.eval_shape(add, binary_value(b))
                entry = {"dtype": str(r.dtype), "weak_type": bool(r.weak_type)}
            except Exception as err:  # noqa: BLE001
                entry = table_error(err)
            x = lax_internal._convert_element_type(
                jnp.ones((), np_dtype(w)), np_dtype(w), weak_type=True
            )
            other = WEAK[b][1] if b in WEAK else jnp.ones((), np_dtype(b))
            try:
                rt = jax_dtypes.result_type(x, other, return_weak_type_flag=True)
                entry["result_type"] = [str(rt[0]), bool(rt[1])]
            except Exception as err:  # noqa: BLE001
                entry["result_type"] = table_error(err)
            out[f"{w},{b}"] = entry
    return out


def record_mode(x64):
    jax.config.update("jax_enable_x64", x64)
    mode = {"canonicalize_dtype": {}, "dtype_of_python_scalar": {}}
    for name in STRONG + EXTRA_DTYPES:
        mode["canonicalize_dtype"][name] = str(
            jax_dtypes.canonicalize_dtype(np_dtype(name))
        )
    for value in (True, 1, 1.0, 1j):
        mode["dtype_of_python_scalar"][type(value).__name__] = str(
            jax_dtypes.dtype(value)
        )
    mode["default_dtypes"] = {
        "int": str(jax_dtypes.default_int_dtype()),
        "uint": str(jax_dtypes.default_uint_dtype()),
        "float": str(jax_dtypes.default_float_dtype()),
        "complex": str(jax_dtypes.default_complex_dtype()),
    }
    for promotion in ("standard", "strict"):
        with jax.numpy_dtype_promotion(promotion):
            mode[f"binary_{promotion}"] = record_binary()
            mode[f"result_type_{promotion}"] = record_dtype_api(
                lambda a, b: jax_dtypes.result_type(a, b, return_weak_type_flag=True)
            )
            mode[f"promote_types_{promotion}"] = record_dtype_api(jnp.promote_types)
    mode["weak_arrays"] = record_weak_arrays()
    mode["narrow_promotion_errors"] = {}
    for a, b in [
        ("float8_e4m3fn", "float16"),
        ("float8_e5m2", "float8_e4m3fn"),
        ("float6_e2m3fn", "float32"),
        ("float4_e2m1fn", "bfloat16"),
        ("int4", "int8"),
        ("uint4", "int4"),
        ("int2", "uint8"),
    ]:
        try:
            jnp.promote_types(np_dtype(a), np_dtype(b))
            mode["narrow_promotion_errors"][f"{a},{b}"] = None
        except Exception as err:  # noqa: BLE001
            mode["narrow_promotion_errors"][f"{a},{b}"] = error_record(err)
    mode["narrow_with_weak"] = {}
    for a in EXTRA_DTYPES:
        for w in WEAK:
            try:
                entry = str(jnp.promote_types(np_dtype(a), WEAK[w][0]))
            except Exception as err:  # noqa: BLE001
                entry = error_record(err)
            mode["narrow_with_weak"][f"{a},{w}"] = entry
    return mode


def record_short_names():
    names = {}
    for name in STRONG + EXTRA_DTYPES:
        aval = core.ShapedArray((2,), np_dtype(name))
        names[name] = aval.str_short(short_dtypes=True).split("[")[0]
    names["float0"] = (
        core.ShapedArray((2,), jax.dtypes.float0)
        .str_short(short_dtypes=True)
        .split("[")[0]
    )
    jaxpr_text = str(jax.make_jaxpr(lambda x: x)(np.zeros(2, ml_dtypes.float8_e4m3fn)))
    return names, jaxpr_text


def record_issubdtype():
    categories = {
        "floating": np.floating,
        "inexact": np.inexact,
        "integer": np.integer,
        "signedinteger": np.signedinteger,
        "unsignedinteger": np.unsignedinteger,
        "number": np.number,
        "generic": np.generic,
        "bool_": np.bool_,
        "complexfloating": np.complexfloating,
        "extended": jax.dtypes.extended,
        "prng_key": jax.dtypes.prng_key,
    }
    table = {}
    for name in STRONG + EXTRA_DTYPES:
        table[name] = {
            c: bool(jax.dtypes.issubdtype(np_dtype(name), cat))
            for c, cat in categories.items()
        }
    key_dtype = jax.random.key(0).dtype
    table["key<fry>"] = {
        c: bool(jax.dtypes.issubdtype(key_dtype, cat)) for c, cat in categories.items()
    }
    return table


def capture_warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
        except Exception as err:  # noqa: BLE001 -- the exact text, unsorted
            return [{"error": type(err).__name__, "message": str(err)}]
    return [str(w.message) for w in caught]


def record_messages():
    jax.config.update("jax_enable_x64", False)
    msgs = {
        "zeros_float64": capture_warnings(lambda: jnp.zeros(2, jnp.float64)),
        "array_float64": capture_warnings(lambda: jnp.array(1.0, dtype="float64")),
        "user_dtype_int64": capture_warnings(
            lambda: jax_dtypes.check_and_canonicalize_user_dtype(np.int64, "arange")
        ),
        "user_dtype_no_fun": capture_warnings(
            lambda: jax_dtypes.check_and_canonicalize_user_dtype("complex128")
        ),
        "user_dtype_object": capture_warnings(
            lambda: jax_dtypes.check_and_canonicalize_user_dtype(object, "zeros")
        ),
        "user_dtype_none": capture_warnings(
            lambda: jax_dtypes.check_and_canonicalize_user_dtype(None)
        ),
        "result_type_empty": capture_warnings(lambda: jax_dtypes.result_type()),
        "dtype_invalid": capture_warnings(lambda: jax_dtypes.dtype("object")),
        "dtype_none": capture_warnings(lambda: jax_dtypes.dtype(None)),
    }
    with jax.numpy_dtype_promotion("strict"):
        msgs["strict_i32_f32"] = capture_warnings(
            lambda: jnp.promote_types("int32", "float32")
        )
        msgs["strict_i32_u8"] = capture_warnings(
            lambda: jnp.promote_types("int32", "uint8")
        )
        msgs["strict_bool_weak_int"] = capture_warnings(
            lambda: jnp.promote_types("bool", int)
        )
        msgs["strict_c64_weak_float"] = capture_warnings(
            lambda: jnp.promote_types(float, "complex64")
        )
    msgs["result_type_float64"] = capture_warnings(
        lambda: jax_dtypes.result_type(np.float64, np.int8)
    )
    with _explicit_x64("error"):
        msgs["explicit_error_zeros"] = capture_warnings(
            lambda: jnp.zeros(2, jnp.float64)
        )
    with _explicit_x64("allow"):
        msgs["explicit_allow_dtype"] = str(jnp.zeros(2, jnp.float64).dtype)
    return msgs


def _explicit_x64(value):
    from jax._src import config as jax_config

    return jax_config.explicit_x64_dtypes(value)


OPTIONS = [
    "jax_enable_x64",
    "jax_numpy_dtype_promotion",
    "jax_numpy_rank_promotion",
    "jax_default_matmul_precision",
    "jax_disable_jit",
    "jax_log_compiles",
    "jax_explain_cache_misses",
    "jax_enable_checks",
    "jax_debug_nans",
    "jax_debug_infs",
    "jax_platforms",
    "jax_default_prng_impl",
    "jax_threefry_partitionable",
    "jax_num_cpu_devices",
    "jax_check_tracer_leaks",
    "jax_traceback_filtering",
    "jax_enable_compilation_cache",
    "jax_compilation_cache_dir",
    "jax_explicit_x64_dtypes",
    "jax_default_device",
    "jax_debug_key_reuse",
    "jax_enable_custom_prng",
    "jax_legacy_prng_key",
    "jax_softmax_custom_jvp",
    "jax_allow_f16_reductions",
    "jax_random_seed_offset",
]


def env_error(var, value):
    code = "import jax"
    env = dict(os.environ, **{var: value})
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.stderr.strip().splitlines()[-1] if proc.returncode else None


def record_config():
    from jax._src import config as jax_config

    cfg = jax.config
    defaults = {}
    for name in OPTIONS:
        value = getattr(cfg, name)
        defaults[name] = (
            value
            if value is None or isinstance(value, (bool, int, str))
            else str(value)
        )
        if hasattr(value, "value"):  # enum members: record the plain value
            defaults[name] = value.value
    errors = {
        "unknown_update": capture_warnings(lambda: cfg.update("jax_no_such_option", 1)),
        "read_cm_flag": capture_warnings(lambda: cfg.read("jax_numpy_rank_promotion")),
        "read_unknown": capture_warnings(lambda: cfg.read("jax_no_such_option")),
        "bad_rank_promotion": capture_warnings(
            lambda: cfg.update("jax_numpy_rank_promotion", "sometimes")
        ),
        "bad_dtype_promotion": capture_warnings(
            lambda: cfg.update("jax_numpy_dtype_promotion", "loose")
        ),
        "bad_int": capture_warnings(lambda: cfg.update("jax_num_cpu_devices", "two")),
        "bad_platforms": capture_warnings(lambda: cfg.update("jax_platforms", 3)),
        "bad_matmul": capture_warnings(
            lambda: cfg.update("jax_default_matmul_precision", "fastest")
        ),
        "cm_without_value": capture_warnings(lambda: jax.numpy_rank_promotion()),
        "bool_of_state": capture_warnings(lambda: bool(jax.enable_x64)),
        "set_attribute": capture_warnings(lambda: setattr(cfg, "jax_enable_x64", True)),
    }
    env = {
        "JAX_ENABLE_X64=maybe": env_error("JAX_ENABLE_X64", "maybe"),
        "JAX_NUMPY_RANK_PROMOTION=sometimes": env_error(
            "JAX_NUMPY_RANK_PROMOTION", "sometimes"
        ),
    }
    doc = jax.enable_x64.__doc__.splitlines()[0]
    read_x64 = cfg.read("jax_enable_x64")
    return {
        "defaults": defaults,
        "errors": errors,
        "env_errors": env,
        "enable_x64_doc_first_line": doc,
        "read_x64": read_x64,
        "state_names": {"enable_x64": jax.enable_x64.__name__},
        "has_explicit_x64": hasattr(jax_config, "explicit_x64_dtypes"),
    }


def main():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        facts = {
            "jax_version": jax.__version__,
            "x64_off": record_mode(False),
            "x64_on": record_mode(True),
        }
    facts["short_names"], facts["jaxpr_float8"] = record_short_names()
    facts["issubdtype"] = record_issubdtype()
    facts["messages"] = record_messages()
    jax.config.update("jax_enable_x64", False)
    jax.config.update("jax_numpy_dtype_promotion", "standard")
    facts["config"] = record_config()
    facts["public_dtypes_names"] = [n for n in dir(jax.dtypes) if not n.startswith("_")]
    path = pathlib.Path(__file__).with_name("promotion.json")
    path.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
