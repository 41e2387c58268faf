"""Issue 19 item 4: one shape canonicalisation.

Every public shape goes through avals.canonicalize_shape: negative and
non-integer dimensions are refused with JAX's error classes and wording
(recorded from JAX 0.11.0 by tests/golden/record_reliability_shapes.py), and
an array no machine can hold is refused when it would be allocated (eagerly,
or when a jitted program runs) with XLA's out-of-memory error, instead of a
zero-stride view that spins in the first reduction over it. Tracing such
shapes stays fine, as in JAX.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.avals import ShapedArray, canonicalize_shape
from pyjax.errors import JaxRuntimeError

HUGE = (10**6, 10**6)  # 4e12 bytes of float32: more than any test machine holds
OVERFLOW = (2**40, 2**40)  # 2**80 elements: past int64
NOT_INTEGER = "Shapes must be 1D sequences of concrete values of integer type, got (2.0,)."
OOM = "RESOURCE_EXHAUSTED: Out of memory allocating 4000000000000 bytes."
OVERFLOW_MESSAGE = ("Bad StatusOr access: INVALID_ARGUMENT: overflow in static extent product: "
                    "dimensions=[1099511627776, 1099511627776].")


KEY = jax.random.key(0)

# name -> f(shape): every public entry point that takes a shape and makes an array.
ENTRY_POINTS = {
    "jnp.zeros": lambda s: jnp.zeros(s),
    "jnp.ones": lambda s: jnp.ones(s, jnp.int32),
    "jnp.empty": lambda s: jnp.empty(s),
    "jnp.full": lambda s: jnp.full(s, 2.0),
    "jnp.zeros_like": lambda s: jnp.zeros_like(jnp.ones(2), shape=s),
    "jnp.ones_like": lambda s: jnp.ones_like(jnp.ones(2), shape=s),
    "jnp.full_like": lambda s: jnp.full_like(jnp.ones(2), 3.0, shape=s),
    "jnp.broadcast_to": lambda s: jnp.broadcast_to(1.0, s),
    "lax.full": lambda s: lax.full(s, 1.0),
    "lax.broadcast": lambda s: lax.broadcast(1.0, s),
    "lax.broadcast_in_dim": lambda s: lax.broadcast_in_dim(1.0, s, ()),
    "lax.broadcasted_iota": lambda s: lax.broadcasted_iota(np.int32, s, 0),
    "random.normal": lambda s: jax.random.normal(KEY, s),
    "random.uniform": lambda s: jax.random.uniform(KEY, s),
    "random.randint": lambda s: jax.random.randint(KEY, s, 0, 3),
    "random.bits": lambda s: jax.random.bits(KEY, s),
    "random.normal (raw key)": lambda s: jax.random.normal(jax.random.PRNGKey(0), s),
    "jit(jnp.zeros)": lambda s: jax.jit(lambda: jnp.zeros(s))(),
    "eval_shape(jnp.zeros)": lambda s: jax.eval_shape(lambda: jnp.zeros(s)),
}
# Those that allocate (eval_shape does not: it only traces).
ALLOCATING = [name for name in ENTRY_POINTS if not name.startswith("eval_shape")]


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_negative_dimension_is_refused(name):
    with pytest.raises(TypeError, match="non-?negative"):
        ENTRY_POINTS[name]((3, -1))


@pytest.mark.parametrize("name", ENTRY_POINTS)
@pytest.mark.parametrize("dim", [2.0, np.float32(2.0)], ids=["float", "np.float32"])
def test_non_integer_dimension_is_refused(name, dim):
    # A float equal to an int hashes like it: no cache may let it through as 2.
    ENTRY_POINTS[name]((2,))
    with pytest.raises(TypeError, match=r"Shapes must be 1D sequences of concrete values of integer type, got \("):
        ENTRY_POINTS[name]((dim,))


@pytest.mark.parametrize("name", ALLOCATING)
def test_huge_array_fails_at_creation(name):
    expected = OOM.replace("4000000000000", "1000000000000") if name == "random.bernoulli" else OOM
    with pytest.raises(JaxRuntimeError, match=expected):
        ENTRY_POINTS[name](HUGE)


@pytest.mark.parametrize("name", ALLOCATING)
def test_overflowing_size_fails_at_creation(name):
    with pytest.raises(RuntimeError, match=OVERFLOW_MESSAGE.replace("[", r"\[")):
        ENTRY_POINTS[name](OVERFLOW)


# --- the reproducers


def test_zeros_of_huge_shape_raises_instead_of_spinning():
    # Was: a zero-stride view, whose .sum() spun for minutes inside NumPy (no
    # signal interrupts that loop: hence a child process with a timeout).
    code = ("import pyjax.numpy as jnp\n"
            "try:\n    jnp.zeros((10**6, 10**6)).sum()\n"
            "except RuntimeError as e:\n    print(type(e).__name__, e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == f"JaxRuntimeError {OOM}", out.stderr
    with pytest.raises(JaxRuntimeError) as info:
        jnp.zeros((10**6, 10**6))
    assert str(info.value) == OOM
    assert isinstance(info.value, RuntimeError)  # JAX's JaxRuntimeError is one


def test_huge_shapes_trace_but_a_jitted_call_fails():
    f = jax.jit(lambda: jnp.zeros(HUGE).sum())
    assert "f32[1000000,1000000] = broadcast_in_dim" in str(f.trace().jaxpr)
    assert jax.eval_shape(lambda: jnp.zeros(HUGE)).shape == HUGE
    assert jax.eval_shape(lambda: jnp.zeros(OVERFLOW)).shape == OVERFLOW
    with pytest.raises(JaxRuntimeError, match=OOM):
        f()
    with pytest.raises(RuntimeError, match="overflow in static extent product"):
        jax.jit(lambda: jnp.zeros(OVERFLOW))()  # (compiling it used to exhaust memory)


def test_tracing_a_huge_shape_does_not_let_eager_calls_skip_the_check():
    # Abstract evaluation is memoised and the eager hit path reads that memo:
    # a huge result must not be memoised where an eager call finds it unchecked.
    jax.make_jaxpr(lambda: lax.broadcast_in_dim(1.0, (7, 10**6, 10**6), ()))()
    with pytest.raises(JaxRuntimeError):
        lax.broadcast_in_dim(1.0, (7, 10**6, 10**6), ())


def test_large_arrays_that_fit_are_fine():
    assert jnp.zeros((1000, 1000)).sum() == 0
    assert jax.jit(lambda: jnp.ones((1000, 1000)).sum())() == 10**6


def test_random_normal_negative_shape():
    # Was: an array of shape (-2,).
    with pytest.raises(TypeError, match=r"random shape must have every element be nonnegative, got \(-2,\)"):
        jax.random.normal(KEY, (-2,))


def test_random_split_negative_and_float():
    with pytest.raises(TypeError, match=r"nonnegative, got \(-1,\)"):
        jax.random.split(KEY, -1)
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        jax.random.split(KEY, 2.0)  # JAX's (Python's) message
    with pytest.raises(JaxRuntimeError):
        jax.random.split(KEY, 10**12)


def test_eval_shape_negative_shape():
    # Was: ShapeDtypeStruct(shape=(-2,)).
    with pytest.raises(TypeError, match=r"^broadcast_in_dim shape must have every element be nonnegative, got \(-2,\)\.$"):
        jax.eval_shape(lambda: jnp.zeros((-2,)))
    with pytest.raises(TypeError, match="broadcast_in_dim shape must have every element be nonnegative"):
        jax.jit(lambda: jnp.zeros((-2,))).trace()


def test_shape_dtype_struct_shape_is_checked():
    assert jax.ShapeDtypeStruct([2, np.int64(3)], jnp.float32).shape == (2, 3)
    assert jax.ShapeDtypeStruct(HUGE, jnp.float32).size == 10**12
    assert jax.ShapeDtypeStruct(OVERFLOW, jnp.float32).size == 2**80
    with pytest.raises(TypeError, match="nonnegative"):
        jax.ShapeDtypeStruct((-2,), jnp.float32)
    with pytest.raises(TypeError, match=NOT_INTEGER.replace("(", r"\(").replace(")", r"\)")):
        jax.ShapeDtypeStruct((2.0,), jnp.float32)


def test_lax_slice_strides():
    x = jnp.arange(5)
    with pytest.raises(TypeError, match=r"^slice strides must have every element be nonnegative, got \(-1,\)\.$"):
        lax.slice(x, (0,), (5,), (-1,))
    with pytest.raises(TypeError, match=r"slice strides must have every element be an integer type, got \(<class 'float'>,\)\."):
        lax.slice(x, (0,), (5,), (2.0,))
    with pytest.raises(TypeError):
        lax.slice(x, (0.5,), (5,))  # was floored to 0 silently
    np.testing.assert_array_equal(lax.slice(x, (0,), (5,), (2,)), [0, 2, 4])


# --- JAX's exact wording at each entry point (tests/golden/record_reliability_shapes.py)


@pytest.mark.parametrize("call, message", [
    (lambda: jnp.zeros((-2,)), "broadcast_in_dim shape must have every element be nonnegative, got (-2,)."),
    (lambda: jnp.ones(-2), "broadcast_in_dim shape must have every element be nonnegative, got (-2,)."),
    (lambda: jnp.zeros([2, -3]), "broadcast_in_dim shape must have every element be nonnegative, got (2, -3)."),
    (lambda: jnp.broadcast_to(1.0, (-2,)), "broadcast_in_dim shape must have every element be nonnegative, got (-2,)."),
    (lambda: lax.reshape(jnp.ones(4), (-2,)), "reshape new_sizes must all be positive, got (-2,)."),
    (lambda: lax.broadcasted_iota(np.int32, (-2,), 0), "iota shape must have every element be nonnegative, got (-2,)."),
    (lambda: lax.iota(np.int32, -2), "iota shape must have every element be nonnegative, got (-2,)."),
    (lambda: jax.random.randint(KEY, (-2,), 0, 3),
     "Only non-negative indices are allowed when broadcasting static shapes, but got shape (-2,)."),
    (lambda: jax.random.bernoulli(KEY, 0.5, (-2,)),
     "Only non-negative indices are allowed when broadcasting static shapes, but got shape (-2,)."),
    (lambda: jnp.broadcast_shapes((-2,), ()),
     "Only non-negative indices are allowed when broadcasting static shapes, but got shape (-2,)."),
    (lambda: lax.dynamic_slice(jnp.arange(5), (0,), (-1,)),
     "slice slice_sizes must be greater than or equal to zero, got slice_sizes of (-1,)."),
    (lambda: jnp.zeros((2.0,)), NOT_INTEGER),
    (lambda: jnp.zeros([2.0, 3]), "Shapes must be 1D sequences of concrete values of integer type, got [2.0, 3]."),
    (lambda: jnp.reshape(jnp.ones(4), (2.0,)), NOT_INTEGER),
    (lambda: lax.reshape(jnp.ones(4), (2.0,)), NOT_INTEGER),
    (lambda: lax.iota(np.int32, 2.0), NOT_INTEGER),
    (lambda: lax.dynamic_slice(jnp.arange(5), (0,), (2.0,)), NOT_INTEGER),
    (lambda: jax.random.normal(KEY, (np.float32(3),)),
     "Shapes must be 1D sequences of concrete values of integer type, got (np.float32(3.0),)."),
])
def test_jax_wording(call, message):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == message


def test_traced_dimension_names_the_argument():
    with pytest.raises(TypeError) as info:
        jax.jit(lambda n: jnp.zeros((n,)))(3)
    text = str(info.value)
    assert text.startswith("Shapes must be 1D sequences of concrete values of integer type, got (")
    assert "If using `jit`, try using `static_argnums`" in text
    assert "depends on the value of the argument n" in text


# --- the canonicalisation itself and the ShapedArray backstop


def test_canonicalize_shape():
    assert canonicalize_shape(3) == (3,)
    assert canonicalize_shape(np.int64(3)) == (3,)
    assert canonicalize_shape([2, np.int32(3), True]) == (2, 3, 1)
    assert canonicalize_shape(np.array([2, 3])) == (2, 3)
    assert all(type(d) is int for d in canonicalize_shape((np.int16(2), np.uint8(3))))
    assert canonicalize_shape(()) == ()
    canonicalize_shape((4, 5))
    with pytest.raises(TypeError):  # after (4, 5) was seen: still refused
        canonicalize_shape((4.0, 5))
    with pytest.raises(TypeError, match="nonnegative"):
        canonicalize_shape((4, -5))


def test_shaped_array_refuses_negative_dimensions():
    with pytest.raises(TypeError, match=r"nonnegative, got \(3, -2\)"):
        ShapedArray((3, -2), np.float32)
    with pytest.raises(TypeError, match="integer type"):
        ShapedArray((3, 2.5), np.float32)


def test_shaped_array_size_is_exact():
    aval = ShapedArray(OVERFLOW, np.float32)
    assert aval.size == 2**80  # np.prod in int64 wrapped to 0
    assert aval.too_big and not ShapedArray((1000, 1000), np.float32).too_big
    with pytest.raises(TypeError, match=r"of total size 1208925819614629174706176\)"):
        lax.reshape(jnp.ones(4), OVERFLOW)
