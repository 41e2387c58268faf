"""Tests for pyjax._src.dtypes against facts recorded from JAX 0.11.

tests/golden/promotion.json is written by tests/golden/record_promotion.py run
with the reference JAX; every table here is compared to it entry by entry.
"""

import ast
import json
import pathlib
import re
import warnings

import ml_dtypes
import numpy as np
import pytest

import pyjax.dtypes as public_dtypes
from pyjax._src import config, dtypes

GOLDEN = json.loads(
    (pathlib.Path(__file__).parent / "golden" / "promotion.json").read_text()
)
WEAK = {"weak_int": (int, 1), "weak_float": (float, 1.0), "weak_complex": (complex, 1j)}
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
ALL_TYPES = STRONG + list(WEAK)
MODES = [("x64_off", False), ("x64_on", True)]


def np_dtype(name):
    return (
        np.dtype(getattr(ml_dtypes, name))
        if hasattr(ml_dtypes, name)
        else np.dtype(name)
    )


def normalise(entry):
    """Puts an outcome in the golden tables' short form: a promotion error is its
    class and sorted dtypes (JAX lists them in set order, which follows hashes
    that vary between runs), and warnings are left out (compared separately)."""
    entry = {k: v for k, v in entry.items() if k != "warned"}
    match = re.match(r"Input dtypes (\(.*?\)) have", entry.get("message", ""))
    if match:
        return {
            "error": entry["error"],
            "dtypes": sorted(ast.literal_eval(match.group(1))),
        }
    return entry


def outcome(fn, *args):
    try:
        result = fn(*args)
    except Exception as err:  # noqa: BLE001 -- compared with JAX's error
        return {"error": type(err).__name__, "message": str(err)}
    if isinstance(result, tuple):
        return {"dtype": str(result[0]), "weak_type": bool(result[1])}
    return {"dtype": str(result)}


def aval_of(name):
    """(dtype, weak_type) of an operand of that kind, as a traced value has it."""
    if name in WEAK:
        return dtypes.dtype(WEAK[name][1], canonicalize=True), True
    return dtypes.canonicalize_dtype(np_dtype(name)), False


def spec_of(name):
    return WEAK[name][0] if name in WEAK else np_dtype(name)


def mismatches(table, compute):
    bad = {}
    for key, expected in table.items():
        got = compute(*key.split(","))
        if normalise(got) != normalise(expected):
            bad[key] = (got, expected)
    return bad


# --- the promotion lattice ----------------------------------------------------------


@pytest.mark.parametrize("promotion", ["standard", "strict"])
@pytest.mark.parametrize("mode,x64", MODES)
def test_binary_promote_matches_jax_add(mode, x64, promotion):
    table = GOLDEN[mode][f"binary_{promotion}"]
    assert len(table) == len(ALL_TYPES) ** 2
    with config.enable_x64(x64), config.numpy_dtype_promotion(promotion):
        bad = mismatches(
            table, lambda a, b: outcome(dtypes.binary_promote, *aval_of(a), *aval_of(b))
        )
    assert not bad


@pytest.mark.parametrize("promotion", ["standard", "strict"])
@pytest.mark.parametrize("mode,x64", MODES)
def test_result_type_matches_jax(mode, x64, promotion):
    table = GOLDEN[mode][f"result_type_{promotion}"]

    def compute(a, b):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = outcome(
                lambda x, y: dtypes.result_type(x, y, return_weak_type_flag=True),
                spec_of(a),
                spec_of(b),
            )
        if caught:
            got["warned"] = sorted(
                {
                    re.match(r"Explicitly requested dtype (\w+)", str(w.message)).group(
                        1
                    )
                    for w in caught
                }
            )
        return got

    with config.enable_x64(x64), config.numpy_dtype_promotion(promotion):
        bad = mismatches(table, compute)
        warned = {k: compute(*k.split(",")).get("warned") for k in table}
    assert not bad
    assert warned == {k: v.get("warned") for k, v in table.items()}


@pytest.mark.parametrize("promotion", ["standard", "strict"])
@pytest.mark.parametrize("mode,x64", MODES)
def test_promote_types_matches_jax(mode, x64, promotion):
    table = GOLDEN[mode][f"promote_types_{promotion}"]
    with config.enable_x64(x64), config.numpy_dtype_promotion(promotion):
        bad = mismatches(
            table, lambda a, b: outcome(dtypes.promote_types, spec_of(a), spec_of(b))
        )
    assert not bad


@pytest.mark.parametrize("mode,x64", MODES)
def test_narrow_dtypes_refuse_implicit_promotion(mode, x64):
    with config.enable_x64(x64):
        for key, expected in GOLDEN[mode]["narrow_promotion_errors"].items():
            a, b = key.split(",")
            got = outcome(dtypes.promote_types, np_dtype(a), np_dtype(b))
            assert normalise(got) == normalise(expected), key
            assert got["error"] == "TypePromotionError"
        for key, expected in GOLDEN[mode]["narrow_with_weak"].items():
            a, weak = key.split(",")
            got = outcome(dtypes.promote_types, np_dtype(a), WEAK[weak][0])
            expected = {"dtype": expected} if isinstance(expected, str) else expected
            assert normalise(got) == normalise(expected), key


@pytest.mark.parametrize(
    "key,args",
    [
        ("strict_bool_weak_int", ("bool", int)),
        ("strict_c64_weak_float", (float, "complex64")),
    ],
)
def test_strict_messages_with_weak_types(key, args):
    with config.numpy_dtype_promotion("strict"):
        got = capture(lambda: dtypes.promote_types(*args))
    expected = GOLDEN["messages"][key]
    assert [normalise(g) if isinstance(g, dict) else g for g in got] == [
        normalise(e) if isinstance(e, dict) else e for e in expected
    ]
    if expected:
        assert got[0]["message"].endswith(expected[0]["message"][-150:])


def test_strict_message_names_both_dtypes():
    expected = GOLDEN["messages"]["strict_i32_f32"][0]
    with (
        config.numpy_dtype_promotion("strict"),
        pytest.raises(dtypes.TypePromotionError) as info,
    ):
        dtypes.promote_types("int32", "float32")
    # promote_types keeps its arguments' order, so the text is exact.
    assert str(info.value) == expected["message"]
    assert isinstance(info.value, ValueError)


def test_binary_promote_cache_follows_x64_and_mode():
    i32 = np.dtype("int32")
    u32 = np.dtype("uint32")
    with config.enable_x64(False):
        assert dtypes.binary_promote(u32, False, i32, False) == (i32, False)
    with config.enable_x64(True):
        assert dtypes.binary_promote(u32, False, i32, False) == (
            np.dtype("int64"),
            False,
        )
    with (
        config.numpy_dtype_promotion("strict"),
        pytest.raises(dtypes.TypePromotionError),
    ):
        dtypes.binary_promote(u32, False, i32, False)


class _Traced:
    """Duck-types a tracer: a dtype and an aval with a weak_type flag."""

    def __init__(self, dtype_name, weak_type):
        self.dtype = np_dtype(dtype_name)
        self.aval = type("Aval", (), {"weak_type": weak_type, "dtype": self.dtype})()


@pytest.mark.parametrize("mode,x64", MODES)
def test_weak_arrays_of_non_default_dtypes(mode, x64):
    """A weak bfloat16 plus a Python int stays bfloat16 (jnp.add), while
    result_type reports the weak result as its kind's default dtype."""
    table = GOLDEN[mode]["weak_arrays"]
    with config.enable_x64(x64):
        for key, expected in table.items():
            w, b = key.split(",")
            binary = outcome(dtypes.binary_promote, np_dtype(w), True, *aval_of(b))
            other = WEAK[b][1] if b in WEAK else _Traced(aval_of(b)[0].name, False)
            lattice = outcome(dtypes.lattice_result_type, _Traced(w, True), other)
            reported = outcome(
                lambda x, y: dtypes.result_type(x, y, return_weak_type_flag=True),
                _Traced(w, True),
                other,
            )
            jax_binary = {k: v for k, v in expected.items() if k != "result_type"}
            assert normalise(binary) == normalise(jax_binary), key
            assert normalise(lattice) == normalise(jax_binary), key
            jax_reported = expected["result_type"]
            if isinstance(jax_reported, list):
                jax_reported = {"dtype": jax_reported[0], "weak_type": jax_reported[1]}
            assert normalise(reported) == normalise(jax_reported), key


def test_result_type_none_is_default_float_and_empty_raises():
    with config.enable_x64(True):
        assert dtypes.result_type(None) == np.dtype("float64")
    assert dtypes.result_type(None, np.int8) == np.dtype("float32")
    with pytest.raises(ValueError) as info:
        dtypes.result_type()
    assert str(info.value) == GOLDEN["messages"]["result_type_empty"][0]["message"]


# --- canonicalisation, defaults, dtype() -------------------------------------------


@pytest.mark.parametrize("mode,x64", MODES)
def test_canonicalize_dtype(mode, x64):
    with config.enable_x64(x64):
        got = {
            name: str(dtypes.canonicalize_dtype(np_dtype(name)))
            for name in GOLDEN[mode]["canonicalize_dtype"]
        }
        defaults = {
            "int": str(dtypes.default_int_dtype()),
            "uint": str(dtypes.default_uint_dtype()),
            "float": str(dtypes.default_float_dtype()),
            "complex": str(dtypes.default_complex_dtype()),
        }
    assert got == GOLDEN[mode]["canonicalize_dtype"]
    assert defaults == GOLDEN[mode]["default_dtypes"]


def test_canonicalize_accepts_dtype_likes_and_rejects_extended():
    assert dtypes.canonicalize_dtype("float64") == np.dtype("float32")
    assert dtypes.canonicalize_dtype(np.int64) == np.dtype("int32")
    assert dtypes.canonicalize_dtype(int) == np.dtype("int32")
    with pytest.raises(TypeError, match="not understood"):
        dtypes.canonicalize_dtype("not-a-dtype")
    with pytest.raises(ValueError, match="allow_extended_dtype=False"):
        dtypes.canonicalize_dtype(_KEY_DTYPE)
    assert (
        dtypes.canonicalize_dtype(_KEY_DTYPE, allow_extended_dtype=True) is _KEY_DTYPE
    )


@pytest.mark.parametrize("mode,x64", MODES)
def test_dtype_of_python_scalars(mode, x64):
    with config.enable_x64(x64):
        got = {
            type(v).__name__: str(dtypes.dtype(v, canonicalize=True))
            for v in (True, 1, 1.0, 1j)
        }
        raw = [dtypes.dtype(v) for v in (True, 1, 1.0, 1j)]
    assert got == GOLDEN[mode]["dtype_of_python_scalar"]
    assert raw == [np.dtype(n) for n in ("bool", "int64", "float64", "complex128")]


def test_dtype_of_values():
    assert dtypes.dtype(np.zeros(2, np.int16)) == np.dtype("int16")
    assert dtypes.dtype(np.zeros(2, np.float64), canonicalize=True) == np.dtype(
        "float32"
    )
    assert dtypes.dtype(np.float32(1)) == np.dtype("float32")

    class Traced:
        aval = None
        dtype = np.dtype("float64")

    # Arrays and tracers keep their dtype even when x64 is off.
    assert dtypes.dtype(Traced(), canonicalize=True) == np.dtype("float64")
    for key, fn in [
        ("dtype_invalid", lambda: dtypes.dtype("object")),
        ("dtype_none", lambda: dtypes.dtype(None)),
    ]:
        expected = GOLDEN["messages"][key][0]
        with pytest.raises(Exception) as info:
            fn()
        assert (type(info.value).__name__, str(info.value)) == (
            expected["error"],
            expected["message"],
        )


def test_is_weakly_typed():
    class Tracer:
        class aval:
            weak_type = True

    class Aval:
        weak_type = False

    assert dtypes.is_weakly_typed(1) and dtypes.is_weakly_typed(1.0)
    assert dtypes.is_weakly_typed(1j)
    assert not dtypes.is_weakly_typed(True)
    assert not dtypes.is_weakly_typed(np.float32(1))
    assert not dtypes.is_weakly_typed(np.zeros(2))
    assert dtypes.is_weakly_typed(Tracer())
    assert not dtypes.is_weakly_typed(Aval())
    assert dtypes.is_python_scalar(2.0) and not dtypes.is_python_scalar(np.float64(2))


def capture(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
        except Exception as err:  # noqa: BLE001
            return [{"error": type(err).__name__, "message": str(err)}]
    return [str(w.message) for w in caught]


@pytest.mark.parametrize(
    "key,fn",
    [
        (
            "user_dtype_int64",
            lambda: dtypes.check_and_canonicalize_user_dtype(np.int64, "arange"),
        ),
        (
            "user_dtype_no_fun",
            lambda: dtypes.check_and_canonicalize_user_dtype("complex128"),
        ),
        (
            "user_dtype_object",
            lambda: dtypes.check_and_canonicalize_user_dtype(object, "zeros"),
        ),
        ("user_dtype_none", lambda: dtypes.check_and_canonicalize_user_dtype(None)),
        (
            "zeros_float64",
            lambda: dtypes.check_and_canonicalize_user_dtype(np.float64, "zeros"),
        ),
        (
            "array_float64",
            lambda: dtypes.check_user_dtype_supported("float64", "array"),
        ),
        ("result_type_float64", lambda: dtypes.result_type(np.float64, np.int8)),
    ],
)
def test_explicit_dtype_messages(key, fn):
    with config.enable_x64(False):
        assert capture(fn) == GOLDEN["messages"][key]


def test_explicit_x64_modes():
    with config.enable_x64(False):
        with config.explicit_x64_dtypes("error"):
            got = capture(
                lambda: dtypes.check_and_canonicalize_user_dtype(np.float64, "zeros")
            )
        assert got == GOLDEN["messages"]["explicit_error_zeros"]
        with config.explicit_x64_dtypes("allow"):
            allowed = dtypes.check_and_canonicalize_user_dtype(np.float64, "zeros")
        assert str(allowed) == GOLDEN["messages"]["explicit_allow_dtype"]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert dtypes.check_and_canonicalize_user_dtype(float) == np.dtype(
                "float32"
            )
    with config.enable_x64(True), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dtypes.check_and_canonicalize_user_dtype(np.float64) == np.dtype(
            "float64"
        )


# --- names, issubdtype, short names ---------------------------------------------------


class _FryScalar(dtypes.prng_key):
    pass


class _KeyDType(dtypes.ExtendedDType):
    """A stand-in PRNG key dtype, as jax.random builds for 'fry' keys."""

    type = _FryScalar
    name = "key<fry>"

    def __repr__(self):
        return self.name


_KEY_DTYPE = _KeyDType()
_CATEGORIES = {
    "floating": np.floating,
    "inexact": np.inexact,
    "integer": np.integer,
    "signedinteger": np.signedinteger,
    "unsignedinteger": np.unsignedinteger,
    "number": np.number,
    "generic": np.generic,
    "bool_": np.bool_,
    "complexfloating": np.complexfloating,
    "extended": dtypes.extended,
    "prng_key": dtypes.prng_key,
}


def test_issubdtype_matches_jax():
    got = {}
    for name in GOLDEN["issubdtype"]:
        subject = _KEY_DTYPE if name == "key<fry>" else np_dtype(name)
        got[name] = {
            c: dtypes.issubdtype(subject, cat) for c, cat in _CATEGORIES.items()
        }
    assert got == GOLDEN["issubdtype"]
    assert dtypes.issubdtype(_KEY_DTYPE, _KEY_DTYPE)
    assert not dtypes.issubdtype(np.float32, _KEY_DTYPE)
    assert dtypes.issubdtype("bfloat16", "bfloat16")


def test_short_dtype_names_match_jaxpr_printer():
    got = {
        name: dtypes.short_dtype_name(np_dtype(name))
        for name in GOLDEN["short_names"]
        if name != "float0"
    }
    got["float0"] = dtypes.short_dtype_name(dtypes.float0)
    assert got == GOLDEN["short_names"]
    assert dtypes.short_dtype_name(_KEY_DTYPE) == "key<fry>"
    assert "a:f8_e4m3fn[2]" in GOLDEN["jaxpr_float8"]


def test_public_module_exports_jax_names():
    exported = sorted(n for n in dir(public_dtypes) if not n.startswith("_"))
    assert exported == sorted(GOLDEN["public_dtypes_names"])
    assert public_dtypes.bfloat16 is ml_dtypes.bfloat16
    assert public_dtypes.float0 == np.dtype([("float0", np.void, 0)])
    assert issubclass(public_dtypes.TypePromotionError, ValueError)


def test_finfo_iinfo_cover_ml_dtypes():
    assert dtypes.finfo(dtypes.bfloat16).bits == 16
    assert dtypes.finfo(dtypes.bfloat16).eps == ml_dtypes.finfo(ml_dtypes.bfloat16).eps
    assert dtypes.finfo(dtypes.float8_e4m3fn).max == 448.0
    assert (dtypes.iinfo(dtypes.int4).min, dtypes.iinfo(dtypes.int4).max) == (-8, 7)
    assert dtypes.itemsize_bits(dtypes.int4) == 4
    assert dtypes.itemsize_bits(np.complex64) == 64
    assert dtypes.itemsize_bits(np.bool_) == 8
    assert not dtypes.supports_inf(dtypes.float8_e4m3fn)
    assert dtypes.supports_inf(dtypes.bfloat16)


def test_scalar_type_and_inexact_helpers():
    assert dtypes.scalar_type_of(np.zeros(2, dtypes.bfloat16)) is float
    assert dtypes.scalar_type_of(np.int8(3)) is int
    assert dtypes.scalar_type_of(True) is bool
    assert dtypes.scalar_type_of(np.complex64(1)) is complex
    assert dtypes.to_inexact_dtype(np.int64) == np.dtype("float64")
    assert dtypes.to_inexact_dtype(np.int8) == np.dtype("float32")
    assert dtypes.to_inexact_dtype(dtypes.bfloat16) == np.dtype(dtypes.bfloat16)
    assert dtypes.to_numeric_dtype(np.bool_) == np.dtype("int32")
    assert dtypes.to_complex_dtype(np.float64) == np.dtype("complex128")
    assert dtypes.to_floating_dtype(np.complex64) == np.dtype("float32")
    with pytest.raises(OverflowError, match="too large to convert to int32"):
        dtypes.scalar_type_to_dtype(int, 1 << 40)
    assert dtypes.coerce_to_array(3).dtype == np.dtype("int32")


def test_isdtype_kinds():
    assert dtypes.isdtype(dtypes.bfloat16, "real floating")
    assert dtypes.isdtype(dtypes.int4, "signed integer")
    assert dtypes.isdtype(np.uint8, ("bool", "integral"))
    assert not dtypes.isdtype(np.float32, "integral")
    assert dtypes.isdtype(np.float32, np.float32)
    with pytest.raises(ValueError, match="Unrecognized kind"):
        dtypes.isdtype(np.float32, "floaty")


def test_tangent_dtype():
    assert dtypes.tangent_dtype(np.dtype("int32")) == dtypes.float0
    assert dtypes.tangent_dtype(np.dtype("bool")) == dtypes.float0
    assert dtypes.tangent_dtype(np.dtype("float16")) == np.dtype("float16")
    assert dtypes.tangent_dtype(np.dtype(dtypes.bfloat16)) == np.dtype(dtypes.bfloat16)
    assert dtypes.tangent_dtype(np.dtype("complex64")) == np.dtype("complex64")


def test_extended_dtypes_promote_only_with_themselves():
    assert dtypes.binary_promote(_KEY_DTYPE, False, _KEY_DTYPE, False) == (
        _KEY_DTYPE,
        False,
    )
    with pytest.raises(ValueError, match="is not a valid dtype for JAX type promotion"):
        dtypes.binary_promote(_KEY_DTYPE, False, np.dtype("float32"), False)
