"""The seed tour: make_jaxpr, the tracer error and its lax.cond fix, scan vs
a Python loop, the retracing counter, random keys, pytrees."""

import time

from _impl import load

jax, jnp, lax, args = load(__doc__)

print(jax.make_jaxpr(lambda x: jnp.maximum(x * 2.0 + 1.0, 0.0))(jnp.float32(3.0)))


def bad(x):
    if x > 0:
        return x
    return -x


try:
    jax.jit(bad)(1.0)
except jax.errors.TracerBoolConversionError as e:
    print("refused:", str(e).splitlines()[0])


def good(x):
    return lax.cond(x > 0, lambda v: v, lambda v: -v, x)


print("cond fix:", float(jax.jit(good)(-3.0)))

W = jnp.eye(8) * 0.5


def body(h, x):
    h = jnp.tanh(W @ h + x)
    return h, h


xs = jnp.ones((200, 8)) * 0.1
t0 = time.perf_counter()
h_scan, _ = jax.jit(lambda h, xs: lax.scan(body, h, xs))(jnp.zeros(8), xs)
scan_s = time.perf_counter() - t0


def unrolled(h, xs):
    for t in range(xs.shape[0]):
        h, _ = body(h, xs[t])
    return h


t0 = time.perf_counter()
h_loop = jax.jit(unrolled)(jnp.zeros(8), xs)
loop_s = time.perf_counter() - t0
print(f"scan == loop: {bool(jnp.allclose(h_scan, h_loop, atol=1e-5))}; first call scan {scan_s * 1e3:.1f} ms, unrolled {loop_s * 1e3:.1f} ms")

traces = []


@jax.jit
def counted(x):
    traces.append(x.shape)
    return x * 2


counted(jnp.ones(3))
counted(jnp.ones(3))
counted(jnp.ones(4))
print("traces:", traces)

key = jax.random.key(0)
k1, k2 = jax.random.split(key)
print("normal:", [round(float(v), 5) for v in jax.random.normal(k1, (3,))])

params = {"w": jnp.ones((2, 2)), "b": (jnp.zeros(2), 1.0)}
leaves, treedef = jax.tree_util.tree_flatten(params)
print("treedef:", treedef, "leaves:", len(leaves))
print("grad of a pytree:", jax.tree.map(lambda g: g.shape, jax.grad(lambda p: jnp.sum(p["w"]) + p["b"][1])(params)))
