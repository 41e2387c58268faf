"""chex on pyjax and JAX: shape/rank/type/tree assertions (passing and
failing), assert_max_traces, @chex.dataclass as a pytree through jit and
tree maps, and chex.variants running one test under jit and without it.

    python -m pyjax run examples/ecosystem/chex_checks.py

Prints one JSON line of outcomes (each a pass, or the assertion's error class).
"""

import json
import time
import unittest

import numpy as np

import jax
import jax.numpy as jnp
import chex

start = time.perf_counter()
results = {}


def outcome(fn):
    try:
        fn()
        return "ok"
    except AssertionError as e:
        return "AssertionError: " + str(e).splitlines()[0][:60]


x = jnp.ones((3, 4))
results["assert_shape_ok"] = outcome(lambda: chex.assert_shape(x, (3, 4)))
results["assert_shape_bad"] = outcome(lambda: chex.assert_shape(x, (3, 5)))
results["assert_rank_ok"] = outcome(lambda: chex.assert_rank([x, jnp.ones(2)], [2, 1]))
results["assert_rank_bad"] = outcome(lambda: chex.assert_rank(x, 3))
results["assert_type_ok"] = outcome(lambda: chex.assert_type(jnp.arange(3), int))
results["assert_type_bad"] = outcome(lambda: chex.assert_type(x, int))
results["assert_equal_shape_bad"] = outcome(lambda: chex.assert_equal_shape([x, jnp.ones((4, 3))]))
results["trees_all_close_ok"] = outcome(
    lambda: chex.assert_trees_all_close({"a": x}, {"a": x + 1e-7}, rtol=1e-5))
results["trees_all_close_bad"] = outcome(lambda: chex.assert_trees_all_close({"a": x}, {"a": x + 1.0}))
results["tree_all_finite_bad"] = outcome(lambda: chex.assert_tree_all_finite({"a": jnp.array([1.0, jnp.nan])}))
results["scalar_positive_ok"] = outcome(lambda: chex.assert_scalar_positive(2.0))
results["assert_axis_dimension_ok"] = outcome(lambda: chex.assert_axis_dimension(x, 1, 4))
results["is_broadcastable_bad"] = outcome(lambda: chex.assert_is_broadcastable((2, 3), (3, 2)))

traces = []


@jax.jit
@chex.assert_max_traces(n=1)
def double(v):
    traces.append(1)
    return 2 * v


double(jnp.ones(3))
double(jnp.ones(3) * 2)
results["max_traces_same_shape"] = len(traces)
results["max_traces_retrace"] = outcome(lambda: double(jnp.ones(4)))


@chex.dataclass
class Params:
    w: chex.Array
    b: chex.Array


p = Params(w=jnp.arange(3.0), b=jnp.array(1.0))
q = jax.jit(lambda p: jax.tree_util.tree_map(lambda t: t * 3, p))(p)
results["dataclass_jit"] = [q.w.tolist(), float(q.b)]
results["dataclass_leaves"] = len(jax.tree_util.tree_leaves(p))
results["dataclass_replace"] = float(p.replace(b=jnp.array(5.0)).b)
results["dataclass_grad"] = jax.grad(lambda p: jnp.sum(p.w ** 2) + p.b)(p).w.tolist()


def compile_new():
    return jax.jit(lambda v: v * 7 + 1)(jnp.ones(5))


try:  # every compilation goes through the backend compiler chex restricts
    with chex.restrict_backends(forbidden=["cpu"]):
        compile_new()
    results["restrict_backends"] = "compiled"
except RuntimeError as e:  # chex's RestrictedBackendError
    results["restrict_backends"] = f"{type(e).__name__}: {e}"


class VariantsTest(chex.TestCase):
    @chex.variants(with_jit=True, without_jit=True)
    def test_fn(self):
        fn = self.variant(lambda a, b: a @ b + 1.0)
        out = fn(jnp.eye(2), jnp.ones((2, 2)))
        chex.assert_trees_all_close(out, 2.0 * np.ones((2, 2)))

    @chex.variants(with_jit=True, without_jit=True)
    def test_fails(self):
        fn = self.variant(lambda a: a * 2)
        chex.assert_trees_all_close(fn(jnp.ones(2)), jnp.ones(2))


suite = unittest.defaultTestLoader.loadTestsFromTestCase(VariantsTest)
run = unittest.TestResult()
suite.run(run)
results["variants_run"] = run.testsRun
results["variants_failed"] = sorted(t.id().rsplit(".", 1)[1] for t, _ in run.failures)
results["variants_errors"] = [e[:200] for _, e in run.errors]
print(json.dumps({"library": "chex", "version": chex.__version__, "jax": jax.__version__,
                  "results": results, "seconds": round(time.perf_counter() - start, 3)}))
