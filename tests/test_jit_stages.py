"""jit's stages API, compile logging, cache-miss explanations, donation, and
argument errors — each checked against the text JAX 0.11 prints."""

import logging

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp


def f(x, y):
    return x * y + 1


def test_trace_lower_compile():
    traced = jax.jit(f).trace(jnp.ones(3), 2.0)
    assert str(traced.jaxpr) == (
        "{ lambda ; a:f32[3] b:f32[]. let\n"
        "    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n"
        "    d:f32[3] = mul a c\n"
        "    e:f32[3] = add d 1.0:f32[]\n"
        "  in (e,) }"
    )
    assert repr(traced.out_info) == "ShapeDtypeStruct(shape=(3,), dtype=float32)"
    lowered = traced.lower()
    assert "def " in lowered.as_text("python") and "return" in lowered.as_text("python")
    assert lowered.as_text("jaxpr") == str(traced.jaxpr)
    with pytest.raises(ValueError, match="unknown dialect: foo"):
        lowered.as_text(dialect="foo")
    cost = lowered.cost_analysis()
    assert cost["flops"] == 6.0 and cost["bytes accessed"] > 0
    compiled = lowered.compile()
    np.testing.assert_array_equal(np.asarray(compiled(jnp.ones(3), 2.0)), np.full(3, 3.0, np.float32))
    stats = compiled.memory_analysis()
    assert stats.argument_size_in_bytes == 16 and stats.output_size_in_bytes == 12
    with pytest.raises(TypeError, match="Argument types differ"):
        compiled(jnp.ones(4), 2.0)


@pytest.mark.numpy_backend("the jax_log_compiles messages name the NumPy backend's stages")
def test_log_compiles_reports_the_three_stages(caplog):
    with caplog.at_level(logging.WARNING), jax.log_compiles(True):
        jax.jit(lambda x: x + 1.0)(jnp.ones(2))
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("Finished tracing <lambda> for jit in ") and m.endswith(" sec") for m in messages)
    assert any(m.startswith("Compiling jit(<lambda>) with global shapes and types (ShapedArray(float32[2]),)") for m in messages)
    assert any(m.startswith("Finished jaxpr to Python conversion jit(<lambda>) in ") for m in messages)
    assert any(m.startswith("Finished NumPy compilation of jit(<lambda>) in ") for m in messages)


def test_no_logging_without_the_option(caplog):
    with caplog.at_level(logging.WARNING):
        jax.jit(lambda x: x - 1.0)(jnp.ones(2))
    assert not caplog.records


def explained(caplog, action):
    caplog.clear()
    with caplog.at_level(logging.WARNING), jax.explain_cache_misses(True):
        action()
    return "\n".join(r.getMessage() for r in caplog.records)


def test_explain_cache_misses_reasons(caplog):
    def g(x, y):
        return x

    jg = jax.jit(g)
    text = explained(caplog, lambda: jg(jnp.ones(3), 2.0))
    assert "never seen function:\n    g id=" in text
    text = explained(caplog, lambda: jg(jnp.ones(4), 2.0))
    assert "all previously seen cache keys differ. For the closest previous key:" in text
    assert "different input types:\n  * at x, now f32[4] and before f32[3]" in text
    text = explained(caplog, lambda: jg(jnp.ones(4), jnp.float32(2.0)))
    assert "* at y, now f32[]{weak_type=False} and before f32[]{weak_type=True}https://docs.jax.dev/" in text
    text = explained(caplog, lambda: jg(jnp.ones(4), {"a": 1.0}))
    assert "different input pytree:\n  * at input path [0][1], now <class 'dict'> and before pytree leaf, so their Python types differ" in text
    assert explained(caplog, lambda: jg(jnp.ones(4), 2.0)) == ""  # a hit explains nothing

    def redefine():
        for _ in range(2):
            jax.jit(lambda x: x + 1)(1.0)

    text = explained(caplog, redefine)
    assert "maybe the function is\n  being re-defined repeatedly, preventing caching?" in text


def test_jit_of_the_same_function_shares_its_trace_cache():
    count = [0]

    def h(x):
        count[0] += 1
        return x * 2

    for _ in range(3):
        jax.jit(h)(jnp.ones(2))
    assert count[0] == 1


def test_donated_argument_is_deleted():
    double = jax.jit(lambda x: x * 2, donate_argnums=0)
    a = jnp.ones(3)
    out = double(a)
    np.testing.assert_array_equal(np.asarray(out), np.full(3, 2.0, np.float32))
    assert a.is_deleted()
    with pytest.raises(RuntimeError, match=r"^Array has been deleted with shape=float32\[3\]\.$"):
        a + 1
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        np.asarray(a)
    jaxpr = jax.make_jaxpr(lambda x: double(x))(jnp.ones(3))
    assert "donated_invars=(True,)" in str(jaxpr)


def test_non_array_argument_error_names_the_path():
    with pytest.raises(TypeError, match=r"The problematic value is of type <class 'str'> and was passed to the function at path y\."):
        jax.jit(f)(1.0, "a")
    with pytest.raises(TypeError, match=r"at path p\['w'\]"):
        jax.jit(lambda p: p["w"])({"w": "text"})


def test_static_argnums_out_of_range():
    with pytest.raises(ValueError, match=r"^Jitted function has static_argnums=\(3,\), but only accepts 2 positional arguments\.$"):
        jax.jit(f, static_argnums=3)(1.0, 2.0)


def test_clear_caches_forces_a_retrace():
    count = [0]

    def k(x):
        count[0] += 1
        return x

    jk = jax.jit(k)
    jk(1.0)
    jax.clear_caches()
    jk(1.0)
    assert count[0] == 2 and jk._cache_size() == 1
