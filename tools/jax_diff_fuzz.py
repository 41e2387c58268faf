"""Differential fuzzing of pyjax against JAX 0.11.0: random jax.numpy programs.

Each program is a short chain of jnp/lax/nn calls (unary and binary ufuncs,
casts, indexing, `.at[]` updates, shifts, reductions, cumulative ops,
`where`, matmul) on small arrays of mixed dtypes (float32, ints, bool,
unsigned) and shapes that broadcast. Every program runs eagerly and under
`jit`, and where its first argument is a float array also under `grad`,
`jit(grad)` and `vmap`. The values, dtypes, weak types and error classes
are compared; floats to a few float32 ulps (transcendentals differ from
XLA's by ulps: docs/differences.md), everything else exactly.

The same seed makes the same programs in both interpreters. Run from the
repository root, JAX's reference venv beside pyjax's:

    /tmp/jax-ref/bin/python tools/jax_diff_fuzz.py run jax 7 400 /tmp/j7.npz
    python3 tools/jax_diff_fuzz.py run pyjax 7 400 /tmp/p7.npz
    python3 tools/jax_diff_fuzz.py compare /tmp/j7.npz /tmp/p7.npz

(`--x64` after `run ...` turns on jax_enable_x64.) Session 11 ran about
8,000 programs this way; what it found is pinned in tests/golden/fidelity.json
(cases_fidelity.py): a boolean mask times a float (XLA's select rewrite),
the promotion of a weak int beside an unsigned one to float, the JVPs of
the cumulative primitives on a negative axis, scalar flips.
"""

from __future__ import annotations

import random
import sys

import numpy as np

_UNARY = ["jnp.sin", "jnp.cos", "jnp.tanh", "jnp.exp", "jnp.log1p", "jnp.abs", "jnp.negative", "jnp.square",
          "jnp.sqrt", "jnp.floor", "jnp.ceil", "jnp.round", "jnp.sign", "jax.nn.relu", "jax.nn.sigmoid",
          "jax.nn.softplus", "jax.nn.gelu", "jnp.expm1", "jnp.arctan", "jnp.cbrt", "jax.nn.silu", "jnp.log",
          "jnp.reciprocal", "jnp.rint", "jnp.trunc"]
_LAMBDAS = [
    "lambda v: v.astype(jnp.int32)", "lambda v: v.astype(jnp.uint8)", "lambda v: v.astype(jnp.int8)",
    "lambda v: v.astype(jnp.float16)", "lambda v: v.astype(jnp.bool_)", "jnp.bitwise_not",
    "lambda v: jnp.clip(v, -1, 2)", "lambda v: v[::-1]", "lambda v: v[..., 1:]", "lambda v: jnp.flip(v, -1)",
    "lambda v: jnp.roll(v, 2)", "lambda v: v.T", "lambda v: jnp.reshape(v, (-1,))",
    "lambda v: jnp.take(v.reshape(-1), jnp.array([0, -1, 5, 7]), mode='clip') if v.size else v",
    "lambda v: v.reshape(-1).at[jnp.array([0, 2, 2, -1])].add(3) if v.size > 3 else v",
    "lambda v: v.reshape(-1).at[jnp.array([1, 1])].set(jnp.array([5, 7]).astype(v.dtype)) if v.size > 2 else v",
    "lambda v: v.reshape(-1).at[jnp.array([0, 9])].get(mode='fill', fill_value=-2) if v.size else v",
    "lambda v: jnp.left_shift(v, 3) if jnp.issubdtype(v.dtype, jnp.integer) else v",
    "lambda v: jnp.right_shift(v, 33) if jnp.issubdtype(v.dtype, jnp.integer) else v",
    "lambda v: v * 100", "lambda v: (v * 1e6).astype(jnp.int8)",
    "lambda v: jnp.floor_divide(v, 0) if jnp.issubdtype(v.dtype, jnp.integer) else v",
    "lambda v: jnp.remainder(v, 0) if jnp.issubdtype(v.dtype, jnp.integer) else v", "lambda v: -v",
    "lambda v: jnp.nan_to_num(v / 0)", "lambda v: jnp.isnan(v / 0)", "lambda v: jnp.sign(v / 0)",
    "lambda v: jnp.searchsorted(jnp.sort(v.reshape(-1)), v)",
    "lambda v: jnp.bincount(jnp.abs(v.reshape(-1)).astype(jnp.int32) % 5, length=5)",
    "lambda v: jnp.diff(v) if v.ndim else v", "lambda v: jnp.tril(v) if v.ndim >= 2 else v",
    "lambda v: jnp.einsum('...i,...i->...', v, v)", "lambda v: jnp.power(v, 3)", "lambda v: v ** 0.5",
    "lambda v: jnp.mod(v, -3)", "lambda v: jnp.fmod(v, -3)", "lambda v: v // -2", "lambda v: v % 4"]
_BINARY = ["jnp.add", "jnp.subtract", "jnp.multiply", "jnp.maximum", "jnp.minimum", "jnp.arctan2", "jnp.hypot",
           "jnp.true_divide", "jnp.power", "jnp.fmod", "jnp.remainder", "jnp.floor_divide", "jnp.copysign",
           "jnp.logaddexp"]
_REDUCTIONS = ["jnp.sum", "jnp.mean", "jnp.max", "jnp.min", "jnp.prod", "jnp.var", "jnp.std", "jnp.argmax",
               "jnp.argmin", "jnp.cumsum", "jnp.cumprod", "jnp.sort", "jnp.argsort", "jax.nn.softmax",
               "jax.nn.logsumexp", "jnp.any", "jnp.all", "jnp.median", "jnp.ptp", "jnp.count_nonzero",
               "jnp.nansum", "lax.cummax"]
_SHAPES = [(), (3,), (4, 3), (2, 4, 3), (1, 3), (4, 1)]
_DTYPES = ["float32", "float32", "int32", "bool", "uint8", "int8", "int32", "uint32", "int16"]


def program(r: random.Random) -> tuple[str, list]:
    """A random program's source (`def f(a0, ...)`) and its arguments' (shape, dtype)."""
    args = [(r.choice(_SHAPES), r.choice(_DTYPES)) for _ in range(r.randint(1, 3))]
    names = [f"a{i}" for i in range(len(args))]
    lines = []
    for k in range(r.randint(1, 6)):
        x, kind = r.choice(names), r.random()
        if kind < 0.2:
            line = f"{r.choice(_UNARY)}({x})"
        elif kind < 0.5:
            line = f"({r.choice(_LAMBDAS)})({x})"
        elif kind < 0.72:
            line = f"{r.choice(_BINARY)}({x}, {r.choice(names + ['2', '0.5', '-1.5', '3'])})"
        elif kind < 0.85:
            f, axis = r.choice(_REDUCTIONS), r.choice(["None", "0", "-1"])
            if f in ("jnp.cumsum", "jnp.cumprod", "lax.cummax") and axis == "None":
                axis = "0"
            line = f"{f}({x}, axis={axis}) if jnp.ndim({x}) else {x}"
        elif kind < 0.92:
            line = f"jnp.where({x} > 0, {x}, {r.choice(names + ['1.0', '0'])})"
        else:
            y = r.choice(names)
            line = (f"jnp.matmul({x}, jnp.swapaxes({y}, -1, -2)) if jnp.ndim({x}) >= 2 and jnp.ndim({y}) >= 2 "
                    f"and jnp.shape({x})[-1] == jnp.shape({y})[-1] else {x} * 1")
        lines.append(f"t{k} = {line}")
        names.append(f"t{k}")
    body = "\n    ".join(lines + [f"return {names[-1]}"])
    return f"def f({', '.join(f'a{i}' for i in range(len(args)))}):\n    {body}", args


def _value(shape, dtype: str, r: random.Random, jnp) -> np.ndarray:
    rs = np.random.RandomState(r.randint(0, 2**31 - 1))
    if dtype == "bool":
        return np.asarray(rs.rand(*shape) > 0.5)
    if dtype[0] in "iu":
        return rs.randint(0 if dtype[0] == "u" else -5, 6, size=shape).astype(dtype)
    return (np.asarray(rs.randn(*shape)) * 2).astype(np.float32).astype(jnp.dtype(dtype))


def run(impl: str, seed: int, count: int, out: str, x64: bool) -> None:
    """Runs `count` programs of `seed` on `impl` ('jax' or 'pyjax'), saving the results to `out`."""
    if impl == "jax":
        import jax
        import jax.numpy as jnp
        from jax import lax
    else:
        import pyjax as jax
        import pyjax.numpy as jnp
        from pyjax import lax
    jax.config.update("jax_enable_x64", x64)
    results = {}
    for i in range(count):
        r = random.Random(seed * 100003 + i)
        source, specs = program(r)
        values = [_value(s, d, r, jnp) for s, d in specs]
        scope = {"jnp": jnp, "jax": jax, "lax": lax}
        exec(source, scope)
        f = scope["f"]
        grad = jax.grad(lambda *a: jnp.sum(f(*a)).astype(jnp.float32))
        modes = {"eager": f, "jit": jax.jit(f)}
        if values[0].dtype.kind == "f" and values[0].ndim:
            modes.update(grad=grad, jitgrad=jax.jit(grad),
                         vmap=jax.vmap(f, in_axes=(0,) + (None,) * (len(values) - 1)))
        for mode, fn in modes.items():
            key = f"{i}:{mode}"
            try:
                y = fn(*[jnp.asarray(v) for v in values])
                results[key + ":val"] = np.asarray(y)
                results[key + ":dtype"] = np.array(str(y.dtype))
                results[key + ":weak"] = np.array(bool(getattr(y, "weak_type", False)))
            except Exception as e:  # noqa: BLE001  (the error class is a result too)
                results[key + ":err"] = np.array(type(e).__name__ + ": " + str(e).split("\n")[0][:200])
        results[f"{i}:src"] = np.array(f"{source}\n# {specs!r}")
    np.savez(out, **results)


def _difference(ref, mine, key: str) -> str | None:
    def get(d, suffix):
        return d[key + suffix] if key + suffix in d.files else None

    ref_err, my_err = get(ref, ":err"), get(mine, ":err")
    if ref_err is not None or my_err is not None:
        if ref_err is None or my_err is None:
            return f"error mismatch: jax={ref_err} pyjax={my_err}"
        if str(ref_err).split(":")[0] != str(my_err).split(":")[0]:
            return f"error class: jax={ref_err} pyjax={my_err}"
        return None
    a, b = ref[key + ":val"], mine[key + ":val"]
    ref_dtype, my_dtype = str(ref[key + ":dtype"]), str(mine[key + ":dtype"])
    if ref_dtype != my_dtype or a.shape != b.shape:
        return f"dtype/shape jax={ref_dtype}{a.shape} pyjax={my_dtype}{b.shape}"
    if bool(ref[key + ":weak"]) != bool(mine[key + ":weak"]):
        return "weak type differs"
    if a.dtype.kind in "fc":
        tol = 8e-5 if ref_dtype not in ("float16", "bfloat16") else 6e-2
        if not np.allclose(a.astype(np.complex128), b.astype(np.complex128), rtol=tol, atol=tol, equal_nan=True):
            return "values differ"
    elif not np.array_equal(a, b):
        return "values differ (exact)"
    return None


def compare(ref_path: str, mine_path: str) -> int:
    """Prints each result of `mine_path` that differs from `ref_path`'s; returns the count."""
    ref, mine = np.load(ref_path), np.load(mine_path)
    keys = sorted({k.rsplit(":", 1)[0] for k in ref.files if not k.endswith(":src")},
                  key=lambda s: (int(s.split(":")[0]), s))
    bad = 0
    for key in keys:
        message = _difference(ref, mine, key)
        if message:
            bad += 1
            print(f"--- {key}: {message}\n{ref[key.split(':')[0] + ':src']}")
    print(f"differences: {bad} of {len(keys)}")
    return bad


if __name__ == "__main__":
    if len(sys.argv) >= 6 and sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], "--x64" in sys.argv[6:])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(1 if compare(sys.argv[2], sys.argv[3]) else 0)
    else:
        sys.exit(__doc__)
