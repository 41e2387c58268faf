"""jax.jit(..., donate_argnums=/donate_argnames=) on CPU under JAX 0.11:
which donated arguments a call deletes (`is_deleted()`), the warning
"Some donated buffers were not usable" (when, how often, what it lists),
and XLA's refusal of a taken buffer passed twice.

`PRELUDE` runs first; each case is an expression whose record is `str()` of
its value or the class and message of what it raised (first line). Recorded
by record_jit_donation.py under JAX 0.11.0; compared under pyjax by
tests/test_jit_donation.py.
"""

from __future__ import annotations

from case_runner import run_case_first_line as run_case  # noqa: F401

PRELUDE = '''
import warnings
import numpy as np
import jax
import jax.numpy as jnp

f32, f16 = np.float32, np.float16
x = np.ones(4, f32)
y = np.full(4, 2.0, f32)
m = np.ones((2, 2), f32)
z8 = np.ones(8, f32)

def to_arrays(tree):
    return jax.tree.map(jnp.array, tree)

def donate(f, args, argnums=(), argnames=(), kwargs=None, keep_unused=False, calls=1):
    """Deleted flags of the (array) arguments and the warnings, after `calls` calls."""
    g = jax.jit(f, donate_argnums=argnums, donate_argnames=argnames, keep_unused=keep_unused)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(calls):
            a, k = to_arrays(args), to_arrays(kwargs or {})
            jax.block_until_ready(g(*a, **k))
    deleted = jax.tree.map(lambda v: v.is_deleted(), (a, k))
    return f"deleted={deleted} warnings={[(w.category.__name__, str(w.message)) for w in caught]}"

def stages(f, arg):
    g = jax.jit(f, donate_argnums=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        counts = []
        g.lower(jnp.array(arg)); counts.append(len(caught))
        g(jnp.array(arg)); counts.append(len(caught))
        g(jnp.array(arg)); counts.append(len(caught))
    return counts

def twice(f, argnums):
    a = jnp.ones(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jax.jit(f, donate_argnums=argnums)(a, a)
    return a.is_deleted()

def nested():
    a = jnp.ones(4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jax.jit(lambda v: jax.jit(lambda w: w.sum(), donate_argnums=0)(v) * jnp.ones(4))(a)
    return len(caught), a.is_deleted()

def after_donation():
    a = jnp.ones(4)
    jax.jit(lambda v: v * 2, donate_argnums=0)(a)
    return jax.jit(lambda v: v * 2)(a)

def passthrough_result():
    a = jnp.arange(4.0)
    r = jax.jit(lambda v: v, donate_argnums=0)(a)
    return a.is_deleted(), r

def dead_only(v):
    _ = v * 2
    return jnp.ones(3)
'''

CASES: dict[str, str] = {
    "exact": "donate(lambda x: x * 2, [x], 0)",
    "no_output_fits": "donate(lambda x: x.sum(), [x], 0)",
    "other_dtype_same_width": "donate(lambda x: x.astype(jnp.int32), [x], 0)",
    "other_shape_same_count": "donate(lambda x: x.reshape(2, 2) * 2, [x], 0)",
    "half_width": "donate(lambda x: x.astype(jnp.float16), [x], 0)",
    "same_bytes_other_count": "donate(lambda x: jax.lax.bitcast_convert_type(x, jnp.float16).reshape(8), [x], 0)",
    "bigger_output": "donate(lambda x: jnp.concatenate([x, x]), [x], 0)",
    "bigger_donor": "donate(lambda z: z[:4] * 2, [z8], 0)",
    "two_donors_one_output": "donate(lambda x, y: x + y, [x, y], (0, 1))",
    "two_donors_two_outputs": "donate(lambda x, y: (x + y, x - y), [x, y], (0, 1))",
    "second_donated": "donate(lambda x, y: x + y, [x, y], 1)",
    "exact_before_size": "donate(lambda m, x: x * 2, [m, x], (0, 1))",
    "exact_before_size_2": "donate(lambda x, m: m * 2, [x, m], (0, 1))",
    "sizes_cross": "donate(lambda x, m: (x.reshape(2, 2) * 2, m.reshape(4) * 2), [x, m], (0, 1))",
    "xla_picks_by_bytes": "donate(lambda x: (x.astype(jnp.float16), jax.lax.bitcast_convert_type(x, jnp.int32)), "
                          "[x], 0)",
    "xla_cross_widths": "donate(lambda a, b: (b.reshape(2, 2) * 2, a.reshape(2, 2) * 2), [x.astype(f16), x], (0, 1))",
    "int_and_float": "donate(lambda a, b: (b * 2, a + 1), [np.arange(4, dtype=np.int32), x], (0, 1))",
    "bool_output": "donate(lambda v: v > 0, [np.ones(4, np.int8)], 0)",
    "two_unusable": "donate(lambda x, m: x.sum() + m.sum(), [x, m], (0, 1))",
    "three_unusable": "donate(lambda x, m, z: x.sum() + m.sum() + z.sum(), [x, m, z8], (0, 1, 2))",
    "pytree_dict": "donate(lambda d: {'a': d['a'] * 2, 'b': d['b'].sum()}, [{'a': x, 'b': y}], 0)",
    "pytree_list_unused_leaf": "donate(lambda l: [l[0] * 2], [[x, y]], 0)",
    "argnames": "donate(lambda x, y: x + y, [x], (), ('y',), {'y': y})",
    "passthrough": "donate(lambda x: x, [x], 0)",
    "passthrough_twice": "donate(lambda x: (x, x), [x], 0)",
    "passthrough_and_new": "donate(lambda x, y: (x, y * 2), [x, y], (0, 1))",
    "forward_other": "donate(lambda x, y: (y, x.sum()), [x, y], 0)",
    "unused": "donate(lambda x, y: y * 2, [x, y], 0)",
    "unused_kept": "donate(lambda x, y: y * 2, [x, y], 0, keep_unused=True)",
    "constant_output": "donate(lambda x: jnp.zeros(4), [x], 0)",
    "dead_use_only": "donate(dead_only, [x], 0)",
    "scalar": "donate(lambda v: v * 2, [np.float32(3)], 0)",
    "python_scalar_unusable": "donate(lambda v: v + jnp.ones(3), [3.0], 0)",
    "warned_once": "donate(lambda x: x.sum(), [x], 0, calls=3)",
    "lower_then_call": "stages(lambda v: v.sum(), x)",
    "nested_jit": "nested()",
    "use_after_donation": "after_donation()",
    "passthrough_result": "passthrough_result()",
    "same_array_donated_first": "twice(lambda p, q: p + q, 0)",
    "same_array_donated_second": "twice(lambda p, q: p + q, 1)",
    "same_array_both": "twice(lambda p, q: p + q, (0, 1))",
    "same_array_unusable": "twice(lambda p, q: (p + q).sum(), 0)",
    "same_array_xla_donor": "twice(lambda p, q: (p + q).astype(jnp.int32), 0)",
    "same_array_not_taken": "twice(lambda p, q: (p + q).astype(jnp.float16), 0)",
}
