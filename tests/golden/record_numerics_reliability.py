"""Records JAX 0.11.0's answers for tests/test_reliability_numerics.py.

Run with the reference JAX (JAX_PLATFORMS=cpu /tmp/jax-ref/bin/python
tests/golden/record_numerics_reliability.py); writes numerics_reliability.json
beside this file. The cases are built by `cases()`, which the test imports, so
both sides compute exactly the same programs.
"""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

# Signed zeros and NaNs, in every order the reductions and pairs meet them.
ROWS = [[0., -0.], [-0., 0.], [-0., -0.], [0., 0.], [0., -0., 0.], [-0., 0., -0.], [np.nan, 0.], [0., np.nan],
        [-0., np.nan, 0.], [-1., -0., 0.], [1., 0., -0.], [0., -0., 0., -0.], [-0., -0., 0., 0.]]
PAIR_VALUES = [0.0, -0.0, np.nan, 1.0, -1.0]
DTYPES = ["float32", "bfloat16", "float16"]
BYTE_ORDERS = [">f4", ">i8", ">f8", ">i4", ">u2", ">c8", ">i2"]


def bits(x) -> list:
    x = np.asarray(x)
    if x.dtype.kind in "fV" or x.dtype.name == "bfloat16":
        # Bit patterns (signed zeros told apart); a NaN's sign and payload are not compared.
        nan = np.isnan(x.astype(np.float32)).ravel()
        raw = x.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize]).ravel().tolist()
        return ["nan" if n else b for n, b in zip(nan, raw)]
    return x.ravel().tolist()


def cases(jax, jnp, lax):
    """name -> a function of no arguments returning an array (its bits are compared)."""
    out = {}
    for dtype in DTYPES:
        for i, row in enumerate(ROWS):
            def a(row=row, dtype=dtype):
                return jnp.array(row, dtype)
            for name, f in [("max", jnp.max), ("min", jnp.min), ("jit_max", jax.jit(jnp.max)),
                            ("jit_min", jax.jit(jnp.min)), ("nanmax", jnp.nanmax), ("nanmin", jnp.nanmin),
                            ("argmax", jnp.argmax), ("argmin", jnp.argmin), ("sort", jnp.sort),
                            ("cummax", lax.cummax), ("cummin", lax.cummin),
                            ("max_axis0", lambda x: jnp.max(jnp.stack([x, x[::-1]]), axis=0)),
                            ("max_axis1", lambda x: jnp.max(jnp.stack([x, x[::-1]]), axis=1)),
                            ("min_axis1", lambda x: jnp.min(jnp.stack([x, x[::-1]]), axis=1)),
                            ("jit_min_axis0", jax.jit(lambda x: jnp.min(jnp.stack([x, x[::-1]]), axis=0))),
                            ("window_max", lambda x: lax.reduce_window(x, -np.inf, lax.max, (2,), (1,), "VALID")),
                            ("window_min", lambda x: lax.reduce_window(x, np.inf, lax.min, (2,), (1,), "VALID")),
                            ("scatter_max", lambda x: jnp.zeros(1, x.dtype).at[jnp.zeros(x.shape[0], int)].max(x)),
                            ("scatter_min", lambda x: jnp.zeros(1, x.dtype).at[jnp.zeros(x.shape[0], int)].min(x)),
                            ("maximum_scalar", lambda x: jnp.maximum(x, 0.0)),
                            ("minimum_scalar", lambda x: jnp.minimum(x, -0.0)),
                            ("scatter_max_neg", lambda x: jnp.full(1, -0., x.dtype).at[jnp.zeros(x.shape[0], int)].max(x))]:
                out[f"{dtype}:{name}:{i}"] = lambda f=f, a=a: f(a())
        for x in PAIR_VALUES:
            for y in PAIR_VALUES:
                def pair(f, x=x, y=y, dtype=dtype):
                    return lambda: f(jnp.array(x, dtype), jnp.array(y, dtype))
                for name, f in [("lax.max", lax.max), ("lax.min", lax.min), ("jit_lax.max", jax.jit(lax.max)),
                                ("jit_lax.min", jax.jit(lax.min)), ("maximum", jnp.maximum), ("minimum", jnp.minimum),
                                ("fmax", jnp.fmax), ("fmin", jnp.fmin)]:
                    out[f"{dtype}:{name}:{x!r},{y!r}"] = pair(f)
    return out


def byte_order_cases(jax, jnp, lax):
    """name -> a function of a non-native NumPy array (it must raise)."""
    return {
        "asarray": jnp.asarray, "array": jnp.array, "device_put": jax.device_put,
        "jit": jax.jit(lambda x: x), "jit_add": jax.jit(lambda x: x + 1), "lax.add": lambda x: lax.add(x, x),
        "jnp.add": lambda x: jnp.add(x, 1), "jnp.sum": jnp.sum, "zeros_like": jnp.zeros_like,
        "dtype_arg": lambda x: jnp.array(np.arange(3), dtype=x.dtype),
        "astype": lambda x: jnp.arange(3).astype(x.dtype),
    }


def record(jax, jnp, lax) -> dict:
    values = {name: bits(f()) for name, f in cases(jax, jnp, lax).items()}
    errors = {}
    for order in BYTE_ORDERS:
        x = np.arange(3).astype(order)
        for name, f in byte_order_cases(jax, jnp, lax).items():
            try:
                r = f(x)
                errors[f"{order}:{name}"] = ["ok", str(r.dtype)]
            except Exception as e:  # noqa: BLE001 (the class is what is recorded)
                errors[f"{order}:{name}"] = [type(e).__name__, str(e)]
    # A NumPy scalar is always native: it enters as usual.
    errors["scalar_of_big_endian"] = ["ok", str(jnp.asarray(np.arange(3).astype(">f4")[0]).dtype)]
    return {"values": values, "errors": errors}


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    from jax import lax

    assert jax.__version__ == "0.11.0", jax.__version__
    data = record(jax, jnp, lax)
    path = pathlib.Path(__file__).with_name("numerics_reliability.json")
    path.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    print(f"wrote {len(data['values'])} values, {len(data['errors'])} errors to {path}", file=sys.stderr)
