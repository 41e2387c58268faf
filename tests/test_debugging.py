"""Issue 24, seeing inside compiled code: io_callback and ordered effects,
effects_barrier, jax.debug.breakpoint and jax.debug.log, jax_debug_nans /
jax_debug_infs (with the location pyjax adds), leaked-tracer reports, and
the pyjax extensions Traced.eqn_count_by_line and jit(max_traces=N). The
texts JAX 0.11 prints are compared in tests/golden/programs_debugging.py."""

import io
import logging

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import debugger
from pyjax._src.interpreters.dce import dce_jaxpr
from pyjax._src.jit import compile_for_backend
from pyjax.experimental import io_callback

F32 = jax.ShapeDtypeStruct((), jnp.float32)


# --- io_callback and effects

def test_io_callback_effects_are_io_and_ordered_io():
    unordered = jax.make_jaxpr(lambda a: io_callback(lambda a: a, F32, a))(1.0)
    ordered = jax.make_jaxpr(lambda a: io_callback(lambda a: a, F32, a, ordered=True))(1.0)
    assert [str(e) for e in unordered.effects] == ["IO"]
    assert [str(e) for e in ordered.effects] == ["OrderedIO"]
    # A scan, cond or jit holding one carries its effect (JAX's does too).
    scanned = jax.make_jaxpr(lambda xs: lax.scan(lambda c, x: (io_callback(lambda a: None, None, x, ordered=True), c)[1:] + (None,), 0.0, xs))(jnp.ones(2))
    assert [str(e) for e in scanned.jaxpr.eqns[0].effects] == ["OrderedIO"]


def test_io_callback_with_unused_result_survives_dce_and_runs():
    calls = []
    f = lambda a: (io_callback(lambda a: calls.append(np.asarray(a)) or a, F32, a), a * 2)[1]  # noqa: E731
    closed = jax.make_jaxpr(f)(1.0)
    pruned, _ = dce_jaxpr(closed.jaxpr)
    assert [e.primitive.name for e in pruned.eqns] == ["io_callback", "mul"]
    jax.jit(f)(3.0)
    jax.jit(jax.jit(f))(4.0)
    assert [float(c) for c in calls] == [3.0, 4.0]


def test_ordered_callbacks_run_in_program_order_across_loops_and_calls():
    log = []

    def note(tag):
        return lambda x: log.append((tag, float(x)))

    def body(c, x):
        io_callback(note("scan"), None, x, ordered=True)
        return c + x, None

    def step(c):
        io_callback(note("while"), None, c, ordered=True)
        return c + 1

    @jax.jit
    def program(xs):
        io_callback(note("start"), None, xs[0], ordered=True)
        total = lax.scan(body, 0.0, xs)[0]
        n = lax.while_loop(lambda c: c < 2, step, 0.0)
        lax.cond(total > 0, lambda: io_callback(note("cond"), None, total, ordered=True), lambda: None)
        return total + n

    program(jnp.arange(1.0, 4.0))
    io_callback(note("eager"), None, 9.0, ordered=True)
    program(jnp.arange(1.0, 3.0))
    jax.effects_barrier()
    assert log == [("start", 1.0), ("scan", 1.0), ("scan", 2.0), ("scan", 3.0), ("while", 0.0), ("while", 1.0),
                   ("cond", 6.0), ("eager", 9.0),
                   ("start", 1.0), ("scan", 1.0), ("scan", 2.0), ("while", 0.0), ("while", 1.0), ("cond", 3.0)]


def test_io_callback_refusals_use_jax_messages():
    with pytest.raises(ValueError, match="^Cannot `vmap` ordered IO callback.$"):
        jax.vmap(lambda a: io_callback(lambda a: a, F32, a, ordered=True))(jnp.ones(2))
    with pytest.raises(ValueError, match="^IO callbacks do not support JVP.$"):
        jax.grad(lambda a: io_callback(lambda a: a, F32, a))(1.0)
    with pytest.raises(ValueError, match="^IO callbacks do not support transpose.$"):
        jax.linear_transpose(lambda a: io_callback(lambda a: a, F32, a), 1.0)(1.0)


def test_unordered_io_callback_under_vmap_calls_per_example():
    seen = []
    out = jax.vmap(lambda a: io_callback(lambda a: seen.append(float(a)) or a * 2, F32, a))(jnp.arange(3.0))
    assert seen == [0.0, 1.0, 2.0]
    np.testing.assert_array_equal(out, [0.0, 2.0, 4.0])


def test_effects_barrier_is_public_and_returns_none():
    assert jax.effects_barrier() is None


# --- jax.debug.breakpoint and jax.debug.log

def _scripted(commands: str):
    out = io.StringIO()
    return dict(stdin=io.StringIO(commands), stdout=out), out


def test_breakpoint_under_jit_shows_concrete_locals():
    kwargs, out = _scripted("p y\nx + 1\nup\np z\nup\ndown\nw\nfoo\nc\n")

    def inner(x):
        y = jnp.sin(x)
        jax.debug.breakpoint(**kwargs)
        return y * 2

    def outer(x):
        z = x + 1
        return inner(z)

    jax.jit(outer)(jnp.arange(3.0))
    text = out.getvalue()
    assert text.startswith("Entering jdb:\n(jdb) Array([0.84147")
    assert "(jdb) Array([2., 3., 4.], dtype=float32)\n" in text  # x + 1 in inner's frame
    assert "-> " in text and "return inner(z)" in text  # up: outer's line
    assert "(jdb) Array([1., 2., 3.], dtype=float32)\n" in text  # z in outer's frame
    assert "Traceback:\n" in text and "jax.debug.breakpoint(**kwargs)" in text
    assert "*** NameError: name 'foo' is not defined" in text


def test_breakpoint_with_a_registered_debugger_under_vmap():
    seen = []
    debugger.register_debugger("recorder", lambda frames, **kw: seen.append(frames[0].locals["y"]), priority=-5)

    def f(x):
        y = x * 10
        jax.debug.breakpoint(backend="recorder")
        return y

    jax.vmap(f)(jnp.arange(2.0))
    assert [float(v) for v in seen] == [0.0, 10.0]
    with pytest.raises(ValueError, match="mutually exclusive"):
        jax.debug.breakpoint(ordered=True, token=jnp.ones(1))


def test_debug_log_logs_a_record_at_the_callers_line(caplog):
    with caplog.at_level(logging.INFO, logger="pyjax._src.debugging"):
        jax.jit(lambda x: jax.debug.log("x = {}", x))(2.0)
    (record,) = caplog.records
    assert record.getMessage() == "x = 2.0"
    assert record.levelno == logging.INFO and record.pathname == __file__


# --- jax_debug_nans / jax_debug_infs

def _loss(x):
    y = jnp.log(x)  # the line the messages name
    return y * 2


_LOSS_LINE = _loss.__code__.co_firstlineno + 1


def test_debug_nans_off_raises_nothing_and_on_names_the_line(capsys):
    assert np.isnan(jax.jit(_loss)(-1.0))
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError) as info:
            jax.jit(_loss)(-1.0)
        jax.jit(_loss)(2.0)  # no invalid value: no error
    message = str(info.value)
    assert message.startswith(f"invalid value (nan) encountered in log at {__file__}:{_LOSS_LINE} (in _loss)")
    assert "equation: " in message and "= log " in message
    assert "Calling the de-optimized version." in capsys.readouterr().out
    assert np.isnan(jax.jit(_loss)(-1.0))  # off again


def test_debug_nans_eager_inside_scan_bodies_and_under_grad():
    def body(c, x):
        return c + jnp.log(x), None

    xs = jnp.array([1.0, -1.0])
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError, match=r"encountered in log at .*\(in body\)"):
            lax.scan(body, 0.0, xs)  # eager: JAX names only the scan
        with pytest.raises(FloatingPointError, match=r"encountered in log at .*\(in body\)"):
            jax.jit(lambda xs: lax.scan(body, 0.0, xs)[0])(xs)
        with pytest.raises(FloatingPointError, match=r"^invalid value \(nan\) encountered in sqrt at "):
            jax.grad(jnp.sqrt)(-1.0)
        with pytest.raises(FloatingPointError, match=r"^invalid value \(nan\) encountered in sqrt at "):
            jax.jit(jax.grad(jnp.sqrt))(-1.0)
        with pytest.raises(FloatingPointError, match=r"^invalid value \(nan\) encountered in div at "):
            jnp.zeros(2) / 0.0


def test_debug_infs_checks_infinities_only():
    with jax.debug_infs(True):
        with pytest.raises(FloatingPointError, match=r"^invalid value \(inf\) encountered in exp at "):
            jax.jit(lambda x: jnp.exp(x) + 1.0)(jnp.float32(1000.0))
        assert np.isnan(jnp.log(-1.0))  # a NaN is not an inf


def test_debug_nans_leaves_compiled_code_unchanged():
    def f(x):
        return jnp.tanh(x @ x.T).sum()

    closed = jax.make_jaxpr(f)(jnp.ones((3, 3)))
    before = compile_for_backend(closed).source
    with jax.debug_nans(True):
        assert compile_for_backend(closed).source == before
        assert jax.jit(f)(jnp.ones((3, 3))) == f(jnp.ones((3, 3)))
    assert compile_for_backend(closed).source == before
    assert jax._src.jit.FLOAT_CHECKS[0] is None  # off: jit's call path checks nothing


# --- leaked tracers

def test_checking_leaks_names_the_argument_and_the_holder():
    leaked = []

    def f(x):
        leaked.append(x)
        return x + 1

    with jax.checking_leaks(), pytest.raises(Exception) as info:
        jax.jit(f)(1.0)
    message = str(info.value)
    assert message.startswith("Leaked trace DynamicJaxprTrace. Leaked tracer(s):\n\nJitTracer(~float32[])\n")
    assert "depends on the value of the argument x." in message
    assert "> is referred to by <list " in message and "[0]\n" in message


# --- pyjax extensions

def test_eqn_count_by_line_counts_body_equations_too():
    def f(x):
        y = jnp.sin(x) * 2.0 + 1.0
        return lax.scan(lambda c, a: (c + jnp.cos(a), None), 0.0, y)[0]

    first = f.__code__.co_firstlineno
    traced = jax.jit(f).trace(jnp.ones(3))
    counts = traced.eqn_count_by_line()
    body = traced.jaxpr.eqns[-1].params["jaxpr"]
    assert counts[f"{__file__}:{first + 1} (f)"] == 3
    assert counts[f"{__file__}:{first + 2} (<lambda>)"] == len(body.eqns) >= 2  # inside the scan body
    assert counts[f"{__file__}:{first + 2} (f)"] == 1  # the scan itself


def test_max_traces_raises_on_the_next_trace_with_the_explanation():
    g = jax.jit(lambda x: x * 2, max_traces=2)
    g(1.0)
    g(jnp.ones(2))
    g(jnp.ones(2))  # a cache hit is no trace
    with pytest.raises(RuntimeError) as info:
        g(jnp.ones(3))
    message = str(info.value)
    assert message.startswith("jit(<lambda>) was about to be traced 3 times, more than max_traces=2.\n")
    assert "TRACING CACHE MISS at " in message and "different input types:" in message


# --- checkify

def test_checkify_through_vmap_of_check_grad_and_jit_of_loops():
    from pyjax.experimental import checkify

    def f(x):
        checkify.check(x > 0, "x must be positive, got {}", x)
        return jnp.log(x)

    # A check inside vmap, functionalized outside: the batched predicate fails if any example does.
    err, out = checkify.checkify(jax.vmap(f))(jnp.array([1.0, -1.0]))
    assert err.get() is not None and "x must be positive" in err.get()
    # Differentiating through a checkified function: the error is computed on primal values.
    grads = jax.grad(lambda x: checkify.checkify(f)(x)[1])(jnp.float32(2.0))
    assert float(grads) == 0.5
    err, _ = jax.jit(checkify.checkify(lambda x: lax.fori_loop(0, 3, lambda i, c: f(c) + c, x)))(jnp.float32(0.5))
    assert err.get() is not None and err.get().endswith("(`check` failed)")
    with pytest.raises(jax.errors.JaxRuntimeError, match="must be positive"):
        err.throw()


def test_checkify_first_failure_wins_and_all_checks_combine():
    from pyjax.experimental import checkify

    def g(x, i):
        y = jnp.log(x)          # NaN first
        z = jnp.ones(3)[i]      # then out of bounds
        checkify.check(x > 10, "small {}", x)
        return y + z

    err, _ = checkify.checkify(g, errors=checkify.all_checks)(jnp.float32(-1.0), jnp.int32(7))
    assert err.get() == "nan generated by primitive: log."
    err, _ = checkify.checkify(g, errors=checkify.index_checks | checkify.user_checks)(jnp.float32(-1.0), jnp.int32(7))
    assert err.get().startswith("out-of-bounds indexing for array of shape (3,): index 7 is out of bounds")
    assert isinstance(err.get_exception(), checkify.OOBError)
