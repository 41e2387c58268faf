"""Key-reuse checking cases (jax.experimental.key_reuse, jax_debug_key_reuse).

`PRELUDE` defines functions that use typed PRNG keys well or badly; each
case is an expression whose record is `str()` of its value (a signature, or
a list of outcomes of eager steps) or the class and first message line of
what it raised. Recorded by record_key_reuse.py under JAX 0.11.0; compared
under pyjax by tests/random/test_key_reuse.py.
"""

from __future__ import annotations

from case_runner import run_case_first_line as run_case  # noqa: F401

PRELUDE = '''
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.key_reuse._core import (
    KeyReuseSignature, Sink, Source, Forward, check_key_reuse, function_type_signature,
    consume, assert_consumed, assert_unconsumed)

normal = jax.random.normal

def twice(k): return jax.random.normal(k) + jax.random.normal(k)
def once(k): return jax.random.normal(k)
def split_then_use(k):
    a, b = jax.random.split(k)
    return jax.random.normal(a), jax.random.normal(k)
def good_split(k):
    k1, k2 = jax.random.split(k)
    return jax.random.normal(k1) + jax.random.normal(k2)
def split_idx(k):
    ks = jax.random.split(k)
    return jax.random.normal(ks[0]) + jax.random.normal(ks[0])
def split_idx_ok(k):
    ks = jax.random.split(k)
    return jax.random.normal(ks[0]) + jax.random.normal(ks[1])
def split_slice(k):
    ks = jax.random.split(k, 4)
    return jax.vmap(normal)(ks[:2]), jax.vmap(normal)(ks[1:])
def split_slice_ok(k):
    ks = jax.random.split(k, 4)
    return jax.vmap(normal)(ks[:2]), jax.vmap(normal)(ks[2:])
def fold(k): return jax.random.normal(jax.random.fold_in(k, 1)) + jax.random.normal(k)
def fold2(k): return jax.random.normal(jax.random.fold_in(k, 1)) + jax.random.normal(jax.random.fold_in(k, 2))
def clone(k): return jax.random.normal(jax.random.clone(k)) + jax.random.normal(k)
def cond_reuse(k, p):
    return jax.lax.cond(p, lambda k: jax.random.normal(k), lambda k: 0.0, k) + jax.random.normal(k)
def cond_one_branch(k, p):
    return jax.lax.cond(p, lambda k: jax.random.normal(k), lambda k: 0.0, k)
def cond_forward(k, p):
    return jax.lax.cond(p, lambda k: k, lambda k: k, k)
def scan_const(k):
    def body(c, _): return c, jax.random.normal(k)
    return jax.lax.scan(body, 0., None, length=3)
def scan_carry_bad(k):
    def body(c, _): return c, jax.random.normal(c)
    return jax.lax.scan(body, k, None, length=3)
def scan_carry_ok(k):
    def body(c, _):
        c, s = jax.random.split(c)
        return c, jax.random.normal(s)
    return jax.lax.scan(body, k, None, length=3)[1]
def scan_xs(k):
    return jax.lax.scan(lambda c, kk: (c, jax.random.normal(kk)), 0., jax.random.split(k, 3))[1]
def while_const(k):
    return jax.lax.while_loop(lambda c: c[1] < 3, lambda c: (c[0], c[1] + jax.random.normal(k)), (0, 0.))
def while_carry_ok(k):
    def body(c):
        kk, x = c
        kk, s = jax.random.split(kk)
        return kk, x + jax.random.normal(s)
    return jax.lax.while_loop(lambda c: c[1] < 3, body, (k, 0.))[1]
def nested_jit(k): return jax.jit(once)(k) + jax.jit(once)(k)
def ret_key(k): return k
def ret_split(k): return jax.random.split(k)
def unwrap(k): return jax.random.key_data(k), jax.random.normal(k)
def eqk(k): return (k == k), jax.random.normal(k)
def bcast(k):
    kb = jnp.broadcast_to(k, (2,))
    return jax.random.normal(kb[0]) + jax.random.normal(k)
def concat_keys(k):
    a, b = jax.random.split(k)
    return jax.vmap(normal)(jnp.concatenate([a[None], b[None]])), jax.random.normal(a)
def remat_reuse(k):
    return jax.checkpoint(lambda k: jax.random.normal(k))(k) + jax.random.normal(k)
def consumed_then_used(k):
    consume(k)
    return jax.random.normal(k)
def asserts(k):
    assert_unconsumed(k)
    x = jax.random.normal(k)
    assert_consumed(k)
    return x
def asserts_wrong(k):
    assert_consumed(k)
    return jax.random.normal(k)

def steps(*thunks):
    """Runs eager steps in order: 'ok' or the class and message of what each raised."""
    out = []
    for thunk in thunks:
        try:
            thunk()
            out.append("ok")
        except Exception as e:
            cause = f" <- {type(e.__cause__).__name__}: {str(e.__cause__).splitlines()[0]}" if e.__cause__ else ""
            out.append(f"{type(e).__name__}: {str(e).splitlines()[0]}{cause}")
    return out

def eager(make, *uses):
    """Under jax_debug_key_reuse: a key from make(), then each use of it in turn."""
    with jax.debug_key_reuse(True):
        k = make()
        return steps(*[lambda u=u: u(k) for u in uses])

def jitted(f, *args):
    with jax.debug_key_reuse(True):
        return steps(lambda: jax.jit(f)(jax.random.key(0), *args))

key = jax.random.key(0)
'''

_STATIC = ["twice", "once", "split_then_use", "good_split", "split_idx", "split_idx_ok", "split_slice", "split_slice_ok", "fold",
           "fold2", "clone", "scan_const", "scan_carry_bad", "scan_carry_ok", "scan_xs", "while_const",
           "while_carry_ok", "nested_jit", "ret_key", "ret_split", "unwrap", "eqk", "bcast", "concat_keys",
           "remat_reuse", "consumed_then_used", "asserts", "asserts_wrong"]

CASES: dict[str, str] = {
    **{f"signature_{name}": f"function_type_signature({name}, key)" for name in _STATIC},
    **{f"check_{name}": f"check_key_reuse({name}, key)" for name in ("twice", "good_split", "split_idx")},
    "signature_cond_reuse": "function_type_signature(cond_reuse, key, True)",
    "signature_cond_one_branch": "function_type_signature(cond_one_branch, key, True)",
    "signature_cond_forward": "function_type_signature(cond_forward, key, True)",
    "signature_repr_masked": "KeyReuseSignature(Sink(0, np.array([True, False])), Source(1), Forward(0, 2))",
    "signature_repr_order": "KeyReuseSignature(Forward(1, 0), Source(2), Sink(1), Sink(0))",
    "jit_twice": "jitted(twice)",
    "jit_once": "jitted(once)",
    "jit_split_idx": "jitted(split_idx)",
    "jit_cond_reuse": "jitted(cond_reuse, True)",
    "jit_scan_const": "jitted(scan_const)",
    "eager_normal": "eager(lambda: jax.random.key(1), normal, normal, normal)",
    "eager_jit": "eager(lambda: jax.random.key(1), jax.jit(once), jax.jit(once))",
    "eager_split": "eager(lambda: jax.random.key(1), jax.random.split, jax.random.split)",
    "eager_fold_in": "eager(lambda: jax.random.key(1), lambda k: jax.random.fold_in(k, 1), "
                     "lambda k: jax.random.fold_in(k, 1), normal, normal)",
    "eager_clone": "eager(lambda: jax.random.key(1), lambda k: normal(jax.random.clone(k)), normal, normal)",
    "eager_index": "eager(lambda: jax.random.split(jax.random.key(1), 3), lambda ks: normal(ks[0]), "
                   "lambda ks: normal(ks[0]), lambda ks: normal(ks[1]), jax.vmap(normal), lambda ks: normal(ks[2]))",
    "eager_unpack": "eager(lambda: jax.random.split(jax.random.key(2)), "
                    "lambda ks: [normal(k) for k in ks], jax.vmap(normal), lambda ks: normal(ks[0]))",
    "eager_key_data": "eager(lambda: jax.random.key(3), jax.random.key_data, normal, jax.random.key_data, normal)",
    "eager_wrapped": "eager(lambda: jax.random.wrap_key_data(jnp.zeros(2, 'uint32')), normal, normal)",
    "eager_raw_key": "eager(lambda: jax.random.PRNGKey(0), normal, normal)",
    "eager_grad": "eager(lambda: jax.random.key(4), lambda k: jax.grad(lambda x: x * normal(k))(1.0), "
                  "lambda k: jax.grad(lambda x: x * normal(k))(1.0))",
    "eager_vmap": "eager(lambda: jax.random.split(jax.random.key(5), 3), jax.vmap(normal), jax.vmap(normal))",
    "eager_vmap_twice": "eager(lambda: jax.random.split(jax.random.key(6), 3), "
                        "jax.vmap(lambda k: normal(k) + normal(k)))",
    "eager_returned_key": "eager(lambda: jax.random.key(7), normal, jax.jit(ret_key), lambda k: normal(jax.jit(ret_key)(k)))",
    "eager_split_outputs": "eager(lambda: jax.random.key(8), lambda k: [normal(s) for s in jax.jit(ret_split)(k)])",
    "eager_off": "steps(lambda: normal(key), lambda: normal(key))",
}
